package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func setOpName(op pg.SetOperation) string {
	switch op {
	case pg.SetOperation_SETOP_INTERSECT:
		return "INTERSECT"
	case pg.SetOperation_SETOP_EXCEPT:
		return "EXCEPT"
	}
	return "UNION"
}

// coerceCols projects n's rows to the given column types.
func coerceCols(n Node, have []Column, want []Column) (Node, error) {
	same := true
	exprs := make([]expr.Expr, len(have))
	for i, c := range have {
		var e expr.Expr = &expr.Var{Index: i, T: c.Type, Name: c.Name}
		if c.Type.OID != want[i].Type.OID {
			same = false
			var err error
			if e, err = expr.Coerce(e, want[i].Type, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		exprs[i] = e
	}
	if same {
		return n, nil
	}
	return &Project{Input: n, Exprs: exprs, Cols: want}, nil
}

// planSetOp plans UNION/INTERSECT/EXCEPT [ALL] and the ORDER BY/LIMIT
// that apply to its result.
func (p *Planner) planSetOp(s *pg.SelectStmt, parent levelScope, level int) (Node, []Column, error) {
	ln, lcols, _, err := p.planQuery(s.Larg, parent, level)
	if err != nil {
		return nil, nil, err
	}
	rn, rcols, _, err := p.planQuery(s.Rarg, parent, level)
	if err != nil {
		return nil, nil, err
	}
	name := setOpName(s.Op)
	if len(lcols) != len(rcols) {
		return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	cols := make([]Column, len(lcols))
	for i := range lcols {
		t, ok := types.CommonType(lcols[i].Type, rcols[i].Type)
		if !ok {
			return nil, nil, pgerr.Errorf(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", name, lcols[i].Type, rcols[i].Type)
		}
		if t.OID == types.UnknownOID {
			t = types.Text
		}
		cols[i] = Column{Name: lcols[i].Name, Type: t}
	}
	if ln, err = coerceCols(ln, lcols, cols); err != nil {
		return nil, nil, err
	}
	if rn, err = coerceCols(rn, rcols, cols); err != nil {
		return nil, nil, err
	}
	var node Node
	switch s.Op {
	case pg.SetOperation_SETOP_UNION:
		node = &Append{Inputs: []Node{ln, rn}, Cols: cols}
		if !s.All {
			var gb []expr.Expr
			for i, c := range cols {
				gb = append(gb, &expr.Var{Index: i, T: c.Type, Name: c.Name})
			}
			node = &Agg{Input: node, GroupBy: gb, Cols: cols, distinct: true}
		}
	default:
		node = &SetOp{Left: ln, Right: rn, Except: s.Op == pg.SetOperation_SETOP_EXCEPT, All: s.All, Cols: cols}
	}
	return p.orderByOutputColumns(node, cols, s)
}

// orderByOutputColumns adds the ORDER BY (which may only name output
// columns, by name or position) and LIMIT/OFFSET of s on top of node: the
// tail of a set operation or of a VALUES list.
func (p *Planner) orderByOutputColumns(node Node, cols []Column, s *pg.SelectStmt) (Node, []Column, error) {
	var err error
	var keys []SortKey
	for _, sb := range s.SortClause {
		by := sb.GetSortBy()
		idx := -1
		if ac := by.Node.GetAConst(); ac != nil && ac.GetIval() != nil {
			idx = int(ac.GetIval().Ival) - 1
			if idx < 0 || idx >= len(cols) {
				return nil, nil, pgerr.Errorf(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", idx+1)
			}
		} else if cr := by.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
			idx = matchTarget(cols, cr.Fields[0].GetString_().GetSval())
			if idx < 0 {
				return nil, nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", cr.Fields[0].GetString_().GetSval())
			}
		} else {
			return nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
				WithDetail("Only result column names can be used, not expressions or functions.")
		}
		k, err := sortKeyFor(by, &expr.Var{Index: idx, T: cols[idx].Type, Name: cols[idx].Name})
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) > 0 {
		node = &Sort{Input: node, Keys: keys}
	}
	if node, err = p.limit(node, s); err != nil {
		return nil, nil, err
	}
	return node, cols, nil
}

// limit adds LIMIT/OFFSET of s on top of node.
func (p *Planner) limit(node Node, s *pg.SelectStmt) (Node, error) {
	if s.LimitCount == nil && s.LimitOffset == nil {
		return node, nil
	}
	l := &Limit{Input: node}
	c0 := p.compiler(nil)
	if s.LimitCount != nil {
		e, err := c0.Compile(s.LimitCount)
		if err != nil {
			return nil, err
		}
		if l.Count, err = expr.Coerce(e, types.Int8, types.CastAssignment); err != nil {
			return nil, err
		}
	}
	if s.LimitOffset != nil {
		e, err := c0.Compile(s.LimitOffset)
		if err != nil {
			return nil, err
		}
		if l.Offset, err = expr.Coerce(e, types.Int8, types.CastAssignment); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Append returns the rows of each input in turn (UNION ALL).
type Append struct {
	nodeBase
	Inputs []Node
	Cols   []Column
	i      int
}

func (a *Append) Columns() []Column { return a.Cols }
func (a *Append) Open(c *Ctx) error {
	a.i = 0
	if len(a.Inputs) > 0 {
		return Open(c, a.Inputs[0])
	}
	return nil
}
func (a *Append) Next(c *Ctx) (Row, error) {
	for a.i < len(a.Inputs) {
		r, err := Next(c, a.Inputs[a.i])
		if err != nil || r != nil {
			return r, err
		}
		Close(c, a.Inputs[a.i])
		a.i++
		if a.i < len(a.Inputs) {
			if err := Open(c, a.Inputs[a.i]); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}
func (a *Append) Close(c *Ctx) {
	if a.i < len(a.Inputs) {
		Close(c, a.Inputs[a.i])
		a.i = len(a.Inputs)
	}
}

func rowKey(cols []Column, r Row) string {
	var kb strings.Builder
	for i, c := range cols {
		if r[i].IsNull() {
			kb.WriteString("\x00N")
		} else {
			kb.Write(types.AppendGroupKey(nil, c.Type, r[i]))
		}
		kb.WriteByte(0)
	}
	return kb.String()
}

// SetOp is INTERSECT [ALL] / EXCEPT [ALL] by hashing the right input.
type SetOp struct {
	nodeBase
	Left, Right Node
	Except, All bool
	Cols        []Column
	counts      map[string]int
	emitted     map[string]bool
}

func (s *SetOp) Columns() []Column { return s.Cols }
func (s *SetOp) Open(c *Ctx) error {
	s.counts, s.emitted = map[string]int{}, map[string]bool{}
	if err := Open(c, s.Right); err != nil {
		return err
	}
	for {
		r, err := Next(c, s.Right)
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		s.counts[rowKey(s.Cols, r)]++
	}
	Close(c, s.Right)
	return Open(c, s.Left)
}
func (s *SetOp) Next(c *Ctx) (Row, error) {
	for {
		r, err := Next(c, s.Left)
		if err != nil || r == nil {
			return nil, err
		}
		k := rowKey(s.Cols, r)
		n := s.counts[k]
		if s.All {
			if s.Except {
				if n > 0 {
					s.counts[k]--
					continue
				}
				return r, nil
			}
			if n > 0 {
				s.counts[k]--
				return r, nil
			}
			continue
		}
		if s.emitted[k] || (n > 0) == s.Except {
			continue
		}
		s.emitted[k] = true
		return r, nil
	}
}
func (s *SetOp) Close(c *Ctx) { Close(c, s.Left) }
