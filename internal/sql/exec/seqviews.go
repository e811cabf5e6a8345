package exec

import (
	"github.com/tidal-db/tidal/internal/access/sequence"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func init() {
	catalogViews["pg_sequences"] = &systemView{
		cols: colSpec("schemaname", types.Name, "sequencename", types.Name, "sequenceowner", types.Name,
			"data_type", types.Regtype, "start_value", types.Int8, "min_value", types.Int8, "max_value", types.Int8,
			"increment_by", types.Int8, "cycle", types.Boolean, "cache_size", types.Int8, "last_value", types.Int8),
		rows: sequencesRows,
	}
}

// sequencesRows is the pg_sequences view: pg_sequence with names, and the
// last value handed out (NULL before the first nextval or after a
// setval(…, false)).
func sequencesRows(c *Ctx) ([]Row, error) {
	seqs, err := c.Eng.Catalog.Sequences(c.Tx)
	if err != nil {
		return nil, err
	}
	// Relations are all owned by the bootstrap superuser so far.
	owner, err := c.Eng.Catalog.RoleName(c.Tx, catalog.BootstrapSuperuserID)
	if err != nil {
		return nil, err
	}
	var out []Row
	for _, r := range seqs {
		st, err := sequence.Read(c.U(), c.Eng.Catalog.SeqRel(r))
		if err != nil {
			return nil, err
		}
		last := types.Null()
		if st.IsCalled {
			last = types.Int(st.LastValue)
		}
		o := r.Seq.Options
		out = append(out, Row{types.Str(nspName(c.Eng.Catalog, r.Namespace)), types.Str(r.Name), types.Str(owner),
			types.Int(int64(r.Seq.TypeOID)), types.Int(o.Start), types.Int(o.Min), types.Int(o.Max),
			types.Int(o.Increment), types.Bool(o.Cycle), types.Int(o.Cache), last})
	}
	return out, nil
}
