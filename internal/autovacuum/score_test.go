package autovacuum

import (
	"math"
	"testing"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/guc"
)

func defaults() Settings {
	s := ReadSettings(func(n string) string { return guc.Defs[n].Default })
	return s
}

func TestDefaultsArePostgreSQLs(t *testing.T) {
	s := defaults()
	if !s.Enabled || s.VacThreshold != 50 || s.VacScale != 0.2 || s.VacInsThreshold != 1000 || s.AnlThreshold != 50 ||
		s.AnlScale != 0.1 || s.VacMaxThreshold != 1e8 || s.FreezeMaxAge != 2e8 || s.WeightVac != 1 {
		t.Fatalf("defaults %+v", s)
	}
}

// TestThresholds: a table is vacuumed once its dead tuples pass
// 50 + 0.2 × reltuples (capped at autovacuum_vacuum_max_threshold), and
// its score is the ratio to that threshold.
func TestThresholds(t *testing.T) {
	s := defaults()
	cases := []struct {
		ts     TableState
		vacuum bool
		vac    float64
	}{
		{TableState{RelTuples: 1000, Dead: 250}, false, 1},
		{TableState{RelTuples: 1000, Dead: 251}, true, 251.0 / 250},
		{TableState{RelTuples: -1, Dead: 51}, true, 51.0 / 50}, // never vacuumed: reltuples taken as 0
		{TableState{RelTuples: 1e10, Dead: 1e8 + 1}, true, (1e8 + 1) / 1e8},
		{TableState{RelTuples: 1000, Dead: 1e6, Options: map[string]string{"autovacuum_enabled": "off"}}, false, 1e6 / 250.0},
		{TableState{RelTuples: 1000, Dead: 100, Options: map[string]string{"autovacuum_vacuum_threshold": "0", "autovacuum_vacuum_scale_factor": "0.05"}}, true, 2},
	}
	for i, c := range cases {
		d := Evaluate(c.ts, s)
		if d.DoVacuum != c.vacuum || math.Abs(d.Vac-c.vac) > 1e-9 {
			t.Errorf("case %d: vacuum %v vac score %v, want %v %v", i, d.DoVacuum, d.Vac, c.vacuum, c.vac)
		}
	}
}

// TestInsertAndAnalyze: the insert threshold (off at -1) and the analyze
// one, each scored as its ratio.
func TestInsertAndAnalyze(t *testing.T) {
	s := defaults()
	d := Evaluate(TableState{RelTuples: 0, InsSinceVacuum: 1001, ModSince: 40}, s)
	if !d.DoVacuum || d.DoAnalyze || math.Abs(d.VacIns-1.001) > 1e-9 || math.Abs(d.Anl-0.8) > 1e-9 {
		t.Fatalf("%+v", d)
	}
	d = Evaluate(TableState{InsSinceVacuum: 1e6, Options: map[string]string{"autovacuum_vacuum_insert_threshold": "-1"}}, s)
	if d.DoVacuum || d.VacIns != 0 {
		t.Fatalf("insert threshold -1: %+v", d)
	}
}

// TestWeightsAndWraparound: weights scale the components; a table past
// autovacuum_freeze_max_age is vacuumed even with autovacuum disabled, and
// past the failsafe age its score is boosted.
func TestWeightsAndWraparound(t *testing.T) {
	s := defaults()
	s.WeightVac = 2
	if d := Evaluate(TableState{Dead: 100}, s); d.Vac != 4 || d.Score != 4 {
		t.Fatalf("weight 2: %+v", d)
	}
	s = defaults()
	s.Enabled = false
	d := Evaluate(TableState{XidAge: 2e8 + 1}, s)
	if !d.DoVacuum || !d.Wraparound || d.DoAnalyze {
		t.Fatalf("past freeze max age: %+v", d)
	}
	old := Evaluate(TableState{XidAge: 1.7e9}, defaults())
	if want := math.Pow(1.7e9/2e8, 17); math.Abs(old.Score-want)/want > 1e-9 {
		t.Fatalf("failsafe boost: score %v, want %v", old.Score, want)
	}
}

// TestWorkListOrder: descending score; ties (all weights 0) keep the
// order the tables were given in (pg_class order).
func TestWorkListOrder(t *testing.T) {
	mk := func(oid uint32, score float64) Candidate {
		return Candidate{Rel: &catalog.Relation{OID: oid}, Decision: Decision{Score: score, DoVacuum: true}}
	}
	got := WorkList([]Candidate{mk(1, 2), mk(2, 0), mk(3, 9), {Rel: &catalog.Relation{OID: 4}, Decision: Decision{Score: 99}}, mk(5, 0), mk(6, 5)})
	var oids []uint32
	for _, c := range got {
		oids = append(oids, c.Rel.OID)
	}
	if want := []uint32{3, 6, 1, 2, 5}; len(oids) != len(want) || oids[0] != 3 || oids[1] != 6 || oids[2] != 1 || oids[3] != 2 || oids[4] != 5 {
		t.Fatalf("order %v, want %v", oids, want)
	}
}
