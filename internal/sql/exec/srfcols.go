package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// srfColumns names the columns of a multi-column set-returning function
// in FROM: the function's own names, overridden by the alias's column
// list (jsonb_each(j) AS e(k, v)).
func srfColumns(srf *types.SRF, alias string, colAliases []string) ([]scopeCol, []string) {
	var cols []scopeCol
	var names []string
	for i, c := range srf.Cols {
		name := c.Name
		if i < len(colAliases) {
			name = colAliases[i]
		}
		names = append(names, name)
		cols = append(cols, scopeCol{rel: alias, name: name, t: c.Type, index: i})
	}
	return cols, names
}

// shapeSRF gives a builtin set-returning function whose columns depend on
// the call (types.SRF.Shape) its column definition list, and refuses a
// definition list for the others.
func (p *Planner) shapeSRF(srf *types.SRF, ts []types.Type, rf *pg.RangeFunction, fc *pg.FuncCall) (*types.SRF, error) {
	if srf.Shape == nil {
		if len(rf.Coldeflist) > 0 {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
		}
		return srf, nil
	}
	var coldef []types.SRFColumn
	for _, cd := range rf.Coldeflist {
		def := cd.GetColumnDef()
		t, err := expr.TypeFromName(def.TypeName)
		if err != nil {
			return nil, err
		}
		coldef = append(coldef, types.SRFColumn{Name: def.Colname, Type: t})
	}
	shaped, err := srf.Shape(types.SRFCall{Settings: p.compiler(nil).Settings, Args: ts, ColDef: coldef, TargetList: p.q.tlistSRFs[rf]})
	if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.SyntaxError && len(coldef) == 0 {
		pe.Position = fc.Location + 1
	}
	return shaped, err
}

// srfRecord is one row of a multi-column SRF as a record value.
func srfRecord(srf *types.SRF, vals []types.Datum) types.Datum {
	ts := make([]types.Type, len(srf.Cols))
	for i, c := range srf.Cols {
		ts[i] = c.Type
	}
	return types.RecordValue(ts, vals)
}
