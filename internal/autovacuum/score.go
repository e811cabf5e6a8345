package autovacuum

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/guc"
)

// Settings are the server-wide settings that decide which tables need
// autovacuum and in what order.
type Settings struct {
	Enabled                          bool
	VacThreshold, VacInsThreshold    float64
	AnlThreshold, VacMaxThreshold    float64
	VacScale, VacInsScale, AnlScale  float64
	FreezeMaxAge, MultiFreezeMaxAge  float64
	FailsafeAge, MultiFailsafeAge    float64
	WeightXid, WeightMxid, WeightVac float64
	WeightVacIns, WeightAnl          float64
}

// ReadSettings reads them through get (a setting's raw value by name).
func ReadSettings(get func(name string) string) Settings {
	f := func(n string) float64 { return guc.Float(get(n)) }
	return Settings{
		Enabled:           get("autovacuum") == "on",
		VacThreshold:      f("autovacuum_vacuum_threshold"),
		VacInsThreshold:   f("autovacuum_vacuum_insert_threshold"),
		AnlThreshold:      f("autovacuum_analyze_threshold"),
		VacMaxThreshold:   f("autovacuum_vacuum_max_threshold"),
		VacScale:          f("autovacuum_vacuum_scale_factor"),
		VacInsScale:       f("autovacuum_vacuum_insert_scale_factor"),
		AnlScale:          f("autovacuum_analyze_scale_factor"),
		FreezeMaxAge:      f("autovacuum_freeze_max_age"),
		MultiFreezeMaxAge: f("autovacuum_multixact_freeze_max_age"),
		FailsafeAge:       f("vacuum_failsafe_age"),
		MultiFailsafeAge:  f("vacuum_multixact_failsafe_age"),
		WeightXid:         f("autovacuum_freeze_score_weight"),
		WeightMxid:        f("autovacuum_multixact_freeze_score_weight"),
		WeightVac:         f("autovacuum_vacuum_score_weight"),
		WeightVacIns:      f("autovacuum_vacuum_insert_score_weight"),
		WeightAnl:         f("autovacuum_analyze_score_weight"),
	}
}

// TableState is what the decision reads about one table: its reloptions,
// pg_class figures, the ages of its relfrozenxid and relminmxid, and its
// activity counters.
type TableState struct {
	Options                        map[string]string
	RelTuples                      float64 // pg_class.reltuples; < 0: never vacuumed or analyzed
	XidAge, MxidAge                float64
	Dead, InsSinceVacuum, ModSince int64
}

// Decision is a table's PostgreSQL 19 scores and what autovacuum would do.
type Decision struct {
	XID, MXID, Vac, VacIns, Anl float64
	Score                       float64
	DoVacuum, DoAnalyze         bool
	Wraparound                  bool
}

// Evaluate is PostgreSQL's relation_needs_vacanalyze with PostgreSQL 19's
// scores: eligibility is by threshold (a count above base + scale ×
// reltuples), and each component is its count's ratio to its threshold
// times its weight; the score, the largest component, only orders the
// work list. Past the failsafe age the score is raised to a power that
// grows with the age, so that a table near wraparound goes first.
func Evaluate(t TableState, s Settings) Decision {
	o := t.Options
	enabled := s.Enabled && optBool(o, "autovacuum_enabled", true)
	vacBase := optFloat(o, "autovacuum_vacuum_threshold", s.VacThreshold)
	vacMax := optFloat(o, "autovacuum_vacuum_max_threshold", s.VacMaxThreshold)
	vacScale := optFloat(o, "autovacuum_vacuum_scale_factor", s.VacScale)
	insBase := optFloat(o, "autovacuum_vacuum_insert_threshold", s.VacInsThreshold)
	insScale := optFloat(o, "autovacuum_vacuum_insert_scale_factor", s.VacInsScale)
	anlBase := optFloat(o, "autovacuum_analyze_threshold", s.AnlThreshold)
	anlScale := optFloat(o, "autovacuum_analyze_scale_factor", s.AnlScale)
	freezeMax := math.Min(optFloat(o, "autovacuum_freeze_max_age", s.FreezeMaxAge), s.FreezeMaxAge)
	multiMax := math.Min(optFloat(o, "autovacuum_multixact_freeze_max_age", s.MultiFreezeMaxAge), s.MultiFreezeMaxAge)

	reltuples := math.Max(t.RelTuples, 0) // never vacuumed: taken as empty
	vacThresh := vacBase + vacScale*reltuples
	if vacMax >= 0 && vacThresh > vacMax {
		vacThresh = vacMax
	}
	// tidal keeps no relallfrozen: every page counts as unfrozen.
	insThresh := insBase + insScale*reltuples
	anlThresh := anlBase + anlScale*reltuples

	var d Decision
	d.Wraparound = t.XidAge > freezeMax || t.MxidAge > multiMax
	d.XID = t.XidAge / math.Max(freezeMax, 1) * s.WeightXid
	d.MXID = t.MxidAge / math.Max(multiMax, 1) * s.WeightMxid
	d.Vac = float64(t.Dead) / math.Max(vacThresh, 1) * s.WeightVac
	if insBase >= 0 {
		d.VacIns = float64(t.InsSinceVacuum) / math.Max(insThresh, 1) * s.WeightVacIns
	}
	d.Anl = float64(t.ModSince) / math.Max(anlThresh, 1) * s.WeightAnl
	d.Score = max(d.XID, d.MXID, d.Vac, d.VacIns, d.Anl)
	d.Score = wraparoundBoost(d.Score, t.XidAge, freezeMax, s.FailsafeAge, s.WeightXid)
	d.Score = wraparoundBoost(d.Score, t.MxidAge, multiMax, s.MultiFailsafeAge, s.WeightMxid)

	if !enabled && !d.Wraparound {
		return d
	}
	d.DoVacuum = d.Wraparound || float64(t.Dead) > vacThresh ||
		(insBase >= 0 && float64(t.InsSinceVacuum) > insThresh)
	d.DoAnalyze = enabled && float64(t.ModSince) > anlThresh
	return d
}

// wraparoundBoost raises a score above 1 to the power age / 100 million
// once the age passes the effective failsafe age (the larger of the
// failsafe setting and 1.05 × the freeze max age, lowered by a weight
// above 1).
func wraparoundBoost(score, age, freezeMax, failsafe, weight float64) float64 {
	eff := math.Max(failsafe, 1.05*freezeMax)
	if weight > 1 {
		eff /= weight
	}
	if age < eff || score <= 1 {
		return score
	}
	return math.Pow(score, math.Max(1, age/1e8))
}

func optFloat(o map[string]string, name string, def float64) float64 {
	if v, ok := o[name]; ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return def
}

func optBool(o map[string]string, name string, def bool) bool {
	v, ok := o[name]
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "", "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
		return true
	}
	return false
}

// OptInt reads an integer reloption, def when unset.
func OptInt(o map[string]string, name string, def int) int {
	if v, ok := o[name]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}
