package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// constraintDef is pg_get_constraintdef: a constraint as its definition
// in a CREATE TABLE, in PostgreSQL's wording ("PRIMARY KEY (id)",
// "CHECK ((c > 0))", "FOREIGN KEY (pid) REFERENCES p(id) ON DELETE
// CASCADE"). pretty drops the parentheses PostgreSQL's pretty mode drops.
func constraintDef(c *Ctx, oid uint32, pretty bool) (types.Datum, error) {
	cat, tx := c.Eng.Catalog, c.Tx
	k, err := cat.ConstraintByOID(tx, oid)
	if err != nil || k == nil {
		return types.Null(), err
	}
	if k.TypID != 0 {
		return domainConstraintDef(c, k, pretty)
	}
	rel, err := cat.ByOID(tx, k.RelID)
	if err != nil || rel == nil {
		return types.Null(), err
	}
	var def string
	switch k.Type {
	case catalog.ConPrimary:
		def = "PRIMARY KEY (" + quotedCols(rel, k.Keys) + ")"
	case catalog.ConUnique:
		def = "UNIQUE (" + quotedCols(rel, k.Keys) + ")"
	case catalog.ConCheck:
		e, err := CompileCheck(c, rel, k.Expr)
		if err != nil {
			return types.Null(), err
		}
		if pretty {
			def = "CHECK (" + prettyExpr(e) + ")"
		} else {
			def = "CHECK (" + e.String() + ")"
		}
	case catalog.ConForeign:
		parent, err := cat.ByOID(tx, k.FRelID)
		if err != nil || parent == nil {
			return types.Null(), err
		}
		name := cat.NamespaceQualifier(tx, parent.Namespace) + types.QuoteIdent(parent.Name)
		def = "FOREIGN KEY (" + quotedCols(rel, k.Keys) + ") REFERENCES " + name + "(" + quotedCols(parent, k.FKeys) + ")"
		if k.FMatch == catalog.FKMatchFull {
			def += " MATCH FULL"
		}
		def += fkActionClause("UPDATE", k.FUpdType) + fkActionClause("DELETE", k.FDelType)
	default:
		return types.Null(), nil
	}
	if !k.Validated {
		def += " NOT VALID"
	}
	return types.Str(def), nil
}

func quotedCols(rel *catalog.Relation, cols []int16) string {
	names := make([]string, len(cols))
	for i, k := range cols {
		if int(k) >= 1 && int(k) <= len(rel.Attrs) {
			names[i] = types.QuoteIdent(rel.Attrs[k-1].Name)
		}
	}
	return strings.Join(names, ", ")
}

func fkActionClause(event string, action byte) string {
	switch action {
	case catalog.FKRestrict:
		return " ON " + event + " RESTRICT"
	case catalog.FKCascade:
		return " ON " + event + " CASCADE"
	case catalog.FKSetNull:
		return " ON " + event + " SET NULL"
	case catalog.FKSetDefault:
		return " ON " + event + " SET DEFAULT"
	}
	return ""
}

// prettyExpr prints e as PostgreSQL's pretty mode does for the common
// shapes: no parentheses around the whole expression or around the
// operands of AND/OR that bind tighter anyway.
func prettyExpr(e expr.Expr) string {
	if b, ok := e.(*expr.BoolOp); ok && b.Op == "NOT" {
		if ab, ok := b.Args[0].(*expr.BoolOp); ok && ab.Op != "NOT" {
			return "NOT (" + prettyExpr(ab) + ")"
		}
		return "NOT " + prettyExpr(b.Args[0])
	}
	if b, ok := e.(*expr.BoolOp); ok {
		parts := make([]string, len(b.Args))
		for i, a := range b.Args {
			parts[i] = prettyExpr(a)
			if ab, ok := a.(*expr.BoolOp); ok && ab.Op != "NOT" && ab.Op != b.Op {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		return strings.Join(parts, " "+b.Op+" ")
	}
	return stripOuterParens(e.String())
}

// stripOuterParens removes one pair of parentheses enclosing all of s.
func stripOuterParens(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\'':
			inQuote = !inQuote
		case inQuote:
		case ch == '(':
			depth++
		case ch == ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s
			}
		}
	}
	return s[1 : len(s)-1]
}
