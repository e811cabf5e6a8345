package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// DeclType resolves a type named in a routine declaration: arrays and
// pseudo-types are allowed, and table.column%TYPE stands for the
// column's type (with PostgreSQL's NOTICE). Typmods are dropped, as
// pg_proc keeps none.
func DeclType(c *Ctx, tn *pg.TypeName) (types.Type, error) {
	if tn.PctType {
		return pctType(c, tn)
	}
	t, err := expr.DeclTypeFromName(tn)
	if err != nil && pgerr.Code(err) == pgerr.UndefinedObject && len(tn.ArrayBounds) == 0 {
		// An enum: its values are what the routine gets and returns.
		var names []string
		for _, n := range tn.Names {
			names = append(names, n.GetString_().GetSval())
		}
		if lookup := (&Planner{C: c}).userTypeLookup(); lookup != nil {
			if ut, ok, uerr := lookup(names); uerr != nil || ok {
				return ut, uerr
			}
		}
	}
	return t, err
}

func pctType(c *Ctx, tn *pg.TypeName) (types.Type, error) {
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	bad := func() (types.Type, error) {
		e := pgerr.Errorf(pgerr.SyntaxError, "improper %%TYPE reference (too few dotted names): %s", strings.Join(parts, "."))
		e.Position = tn.Location + 1
		return types.Type{}, e
	}
	if len(parts) < 2 {
		return bad()
	}
	schema, table, column := "", parts[len(parts)-2], parts[len(parts)-1]
	if len(parts) > 2 {
		schema = parts[len(parts)-3]
	}
	rel, err := c.Eng.Catalog.Lookup(c.Tx, schema, table)
	if err != nil {
		return types.Type{}, err
	}
	if rel == nil {
		e := pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, table))
		e.Position = tn.Location + 1
		return types.Type{}, e
	}
	i := rel.AttrByName(column)
	if i < 0 {
		e := pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, table)
		e.Position = tn.Location + 1
		return types.Type{}, e
	}
	t := rel.Attrs[i].Type
	if c.Notice != nil {
		c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "type reference %s%%TYPE converted to %s", strings.Join(parts, "."), t.BaseName()))
	}
	return types.Type{OID: t.OID, Typmod: -1}, nil
}

// ArgDefaultText compiles a parameter's DEFAULT expression, coerced to
// the parameter's type t, and gives the text pg_proc keeps (and
// pg_get_function_arguments prints) of it.
func ArgDefaultText(c *Ctx, n *pg.Node, t types.Type) (string, error) {
	if err := refuseInDefault(n); err != nil {
		return "", err
	}
	p := &Planner{C: c}
	e, err := p.compiler(nil).Compile(n)
	if err != nil {
		return "", err
	}
	from := e.Type()
	ce, err := expr.Coerce(e, t, types.CastAssignment)
	if err != nil {
		pe := pgerr.Errorf(pgerr.DatatypeMismatch, "argument of DEFAULT must be type %s, not type %s", t.BaseName(), from.BaseName())
		return "", pe
	}
	return defaultText(ce), nil
}

// refuseInDefault refuses subqueries in a parameter default, as
// PostgreSQL's EXPR_KIND_FUNCTION_DEFAULT does.
func refuseInDefault(n *pg.Node) error {
	var err error
	parser.Walk(n, func(m proto.Message) bool {
		if sl, ok := m.(*pg.SubLink); ok && err == nil {
			e := pgerr.Errorf(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression")
			e.Position = sl.Location + 1
			err = e
		}
		return err == nil
	})
	return err
}

// defaultText prints a stored default as ruleutils does: the coercion
// to the parameter's type is implicit, so it does not show.
func defaultText(e expr.Expr) string {
	if cast, ok := e.(*expr.Cast); ok && cast.Ctx != types.CastExplicit {
		e = cast.Arg
	}
	if k, ok := e.(*expr.Const); ok && !k.Val.IsNull() {
		switch k.T.OID {
		case types.Int2OID, types.Int8OID, types.NumericOID:
			s := types.FormatText(k.T, k.Val)
			if !strings.HasPrefix(s, "-") && s != "NaN" && (k.T.OID != types.Int8OID || len(s) < 10) {
				return s
			}
		}
	}
	return e.String()
}
