package autovacuum

import (
	"sort"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// Candidate is one table with its decision.
type Candidate struct {
	Rel    *catalog.Relation
	Schema string
	Decision
}

// Evaluated lists every permanent user table in pg_class order with its
// scores and decision (the rows of pg_stat_autovacuum_scores).
func Evaluated(cat *catalog.Catalog, tx *catalog.Txn, st *stats.Tables, s Settings) ([]Candidate, error) {
	rels, err := cat.UserTables(tx)
	if err != nil {
		return nil, err
	}
	return evaluate(cat, tx, st, s, rels)
}

// evaluateOne is Evaluated for one table (false: it is gone).
func evaluateOne(cat *catalog.Catalog, tx *catalog.Txn, st *stats.Tables, s Settings, oid uint32) (Candidate, bool, error) {
	rel, err := cat.ByOID(tx, oid)
	if err != nil || rel == nil || rel.Kind != catalog.KindTable {
		return Candidate{}, false, nil
	}
	out, err := evaluate(cat, tx, st, s, []*catalog.Relation{rel})
	if err != nil || len(out) == 0 {
		return Candidate{}, false, err
	}
	return out[0], true, nil
}

func evaluate(cat *catalog.Catalog, tx *catalog.Txn, st *stats.Tables, s Settings, rels []*catalog.Relation) ([]Candidate, error) {
	x := cat.Env().Xact
	horizons, err := cat.AllFreezeHorizons(tx)
	if err != nil {
		return nil, err
	}
	nextXid := x.NextXid()
	nextMulti, _ := x.Multi().Next()
	out := make([]Candidate, 0, len(rels))
	for _, rel := range rels {
		if rel.Persistence == catalog.PersistenceTemp {
			continue // autovacuum cannot see other sessions' temporary tables
		}
		h, ok := horizons[rel.OID]
		if !ok {
			continue // dropped since the list was read
		}
		frozen, minMulti := h.FrozenXid, h.MinMxid
		c := st.Get(rel.OID)
		ts := TableState{Options: rel.Options, RelTuples: float64(rel.Tuples),
			Dead: c.DeadTup, InsSinceVacuum: c.InsSinceVacuum, ModSince: c.ModSinceAnalyze}
		if xact.IsNormal(frozen) {
			ts.XidAge = float64(uint32(nextXid - frozen))
		}
		if minMulti != xact.InvalidMulti {
			ts.MxidAge = float64(uint32(nextMulti - minMulti))
		}
		out = append(out, Candidate{Rel: rel, Schema: cat.NamespaceName(rel.Namespace), Decision: Evaluate(ts, s)})
	}
	return out, nil
}

// WorkList is the tables that need a vacuum or an analyze, by descending
// score; equal scores (all weights 0) keep pg_class order.
func WorkList(all []Candidate) []Candidate {
	var out []Candidate
	for _, c := range all {
		if c.DoVacuum || c.DoAnalyze {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// readTxn is a read-only catalog transaction for the launcher and the
// view-less callers: a snapshot on a proc of its own, released by done.
func readTxn(x *xact.Manager) (tx *catalog.Txn, done func()) {
	proc := x.NewProc()
	tx = &catalog.Txn{Heap: &tableam.Txn{Proc: proc, Snap: x.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: &stats.Usage{}}
	return tx, func() {
		x.ResetXmin(proc)
		x.ReleaseProc(proc)
	}
}
