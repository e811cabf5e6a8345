package parser

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Template is a parse tree that serves every text of one shape: Bind
// writes a text's literal values into the tree's A_Const nodes in place,
// after which the tree is what Parse would return for that text, except
// that node locations still refer to the template's text (MapPosition
// translates them).
//
// Because Bind changes the tree in place, a template belongs to one
// session, and a bound tree must not be kept (in a prepared statement, a
// view, a portal) past the statement it was bound for.
type Template struct {
	Tree *pg.ParseResult
	// per literal of the shape: the A_Const nodes it became, and whether
	// the grammar folded a unary minus into them
	slots   [][]*pg.A_Const
	negated []bool
	spans   [][2]int // the template text's literal byte ranges
	length  int      // the template text's length
}

// NewTemplate makes a template from a text, its shape and its parse tree.
// It returns nil unless every literal of the shape became one or more
// A_Const nodes holding exactly the literal's value, at the literal's
// location or (unary minus) the minus sign's: a literal the grammar used
// for anything else (float(p), an array bound) could change the tree's
// structure with its value.
func NewTemplate(sql string, shape Shape, tree *pg.ParseResult) *Template {
	byLoc := map[int32][]*pg.A_Const{}
	Walk(tree, func(m proto.Message) bool {
		if ac, ok := m.(*pg.A_Const); ok {
			byLoc[ac.Location] = append(byLoc[ac.Location], ac)
			return false
		}
		return true
	})
	t := &Template{Tree: tree, length: len(sql)}
	for _, lit := range shape.Lits {
		nodes, neg := byLoc[int32(lit.Start)], false
		if len(nodes) == 0 && lit.MinusAt >= 0 {
			nodes, neg = byLoc[int32(lit.MinusAt)], true
		}
		if len(nodes) == 0 {
			return nil
		}
		for _, ac := range nodes {
			if !holds(ac, lit, neg) {
				return nil
			}
		}
		t.slots = append(t.slots, nodes)
		t.negated = append(t.negated, neg)
		t.spans = append(t.spans, [2]int{lit.Start, lit.End})
	}
	return t
}

// holds reports whether ac is exactly lit's constant (negated when the
// grammar folded a unary minus into it).
func holds(ac *pg.A_Const, lit Literal, neg bool) bool {
	if ac.Isnull {
		return false
	}
	switch lit.Kind {
	case LitInt:
		iv, ok := ac.Val.(*pg.A_Const_Ival)
		if !ok || iv.Ival == nil {
			return false
		}
		want := lit.Int
		if neg {
			want = -want
		}
		return iv.Ival.Ival == want
	case LitNumeric:
		fv, ok := ac.Val.(*pg.A_Const_Fval)
		if !ok || fv.Fval == nil {
			return false
		}
		want := lit.Text
		if neg {
			want = "-" + want
		}
		return fv.Fval.Fval == want
	case LitString:
		sv, ok := ac.Val.(*pg.A_Const_Sval)
		return ok && !neg && sv.Sval != nil && sv.Sval.Sval == lit.Text
	}
	return false
}

// Bind writes the literal values of shape (which must have the template's
// key) into the tree.
func (t *Template) Bind(shape Shape) {
	for i, lit := range shape.Lits {
		for _, ac := range t.slots[i] {
			switch lit.Kind {
			case LitInt:
				v := lit.Int
				if t.negated[i] {
					v = -v
				}
				ac.Val.(*pg.A_Const_Ival).Ival.Ival = v
			case LitNumeric:
				v := lit.Text
				if t.negated[i] {
					v = "-" + v
				}
				ac.Val.(*pg.A_Const_Fval).Fval.Fval = v
			case LitString:
				ac.Val.(*pg.A_Const_Sval).Sval.Sval = lit.Text
			}
		}
	}
}

// MapPosition translates a 1-based byte position in the template's text
// (an error's cursor position) to the same token's position in the text
// that shape was scanned from. Tokens are the same between literals, so
// a position is shifted by the length differences of the literals before
// it; a position inside a literal maps to that literal's start.
func (t *Template) MapPosition(pos int32, shape Shape) int32 {
	if pos <= 0 {
		return pos
	}
	off := int(pos) - 1
	shift := 0
	for i, sp := range t.spans {
		if off < sp[0] {
			break
		}
		lit := shape.Lits[i]
		if off < sp[1] {
			return int32(lit.Start + 1)
		}
		shift = lit.End - sp[1]
	}
	return int32(off + shift + 1)
}

// StmtRange is the byte range of the template's single statement in a
// text of its shape (the statement's text, without a trailing semicolon).
func (t *Template) StmtRange(sqlLen int) (start, end int) {
	raw := t.Tree.Stmts[0]
	start = int(raw.StmtLocation)
	end = sqlLen
	if raw.StmtLen > 0 {
		// What follows the statement holds no literal, so it is as long
		// in every text of the shape.
		end = sqlLen - (t.length - int(raw.StmtLocation+raw.StmtLen))
	}
	return start, end
}
