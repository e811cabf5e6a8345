package guc

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

const (
	intMax = math.MaxInt32
	intMin = math.MinInt32
)

// autovacuumDefs are the autovacuum launcher's and workers' settings and
// the cost-based vacuum delay, with PostgreSQL's defaults and ranges
// (PostgreSQL 17; the *_score_weight ones and autovacuum_max_parallel_workers
// are PostgreSQL 19's, autovacuum_vacuum_max_threshold PostgreSQL 18's).
func autovacuumDefs() {
	def(Def{Name: "autovacuum_max_workers", Kind: Int, Default: "3", Context: Postmaster, Min: 1, Max: 262143, Desc: "Sets the maximum number of simultaneously running autovacuum worker processes."})
	def(Def{Name: "autovacuum_naptime", Kind: Int, Default: "60", Unit: "s", Context: Sighup, Min: 1, Max: 2147483, Desc: "Time to sleep between autovacuum runs."})
	def(Def{Name: "autovacuum_vacuum_threshold", Kind: Int, Default: "50", Context: Sighup, Min: 0, Max: intMax})
	def(Def{Name: "autovacuum_vacuum_insert_threshold", Kind: Int, Default: "1000", Context: Sighup, Min: -1, Max: intMax})
	def(Def{Name: "autovacuum_analyze_threshold", Kind: Int, Default: "50", Context: Sighup, Min: 0, Max: intMax})
	def(Def{Name: "autovacuum_vacuum_max_threshold", Kind: Int, Default: "100000000", Context: Sighup, Min: -1, Max: intMax, Desc: "Maximum number of tuple updates or deletes prior to vacuum."})
	def(Def{Name: "autovacuum_vacuum_scale_factor", Kind: Real, Default: "0.2", Context: Sighup, FMin: 0, FMax: 100})
	def(Def{Name: "autovacuum_vacuum_insert_scale_factor", Kind: Real, Default: "0.2", Context: Sighup, FMin: 0, FMax: 100})
	def(Def{Name: "autovacuum_analyze_scale_factor", Kind: Real, Default: "0.1", Context: Sighup, FMin: 0, FMax: 100})
	def(Def{Name: "autovacuum_freeze_max_age", Kind: Int, Default: "200000000", Context: Postmaster, Min: 100000, Max: 2000000000})
	def(Def{Name: "autovacuum_multixact_freeze_max_age", Kind: Int, Default: "400000000", Context: Postmaster, Min: 10000, Max: 2000000000})
	def(Def{Name: "autovacuum_vacuum_cost_delay", Kind: Real, Default: "2", Unit: "ms", Context: Sighup, FMin: -1, FMax: 100})
	def(Def{Name: "autovacuum_vacuum_cost_limit", Kind: Int, Default: "-1", Context: Sighup, Min: -1, Max: 10000})
	def(Def{Name: "autovacuum_max_parallel_workers", Kind: Int, Default: "0", Context: Sighup, Min: 0, Max: 1024, Desc: "Maximum number of parallel workers that a single autovacuum worker can take from the max_parallel_workers pool."})
	for _, w := range []string{"freeze", "multixact_freeze", "vacuum", "vacuum_insert", "analyze"} {
		def(Def{Name: "autovacuum_" + w + "_score_weight", Kind: Real, Default: "1", Context: Sighup, FMin: 0, FMax: 10,
			Desc: "Scaling factor of the " + strings.ReplaceAll(w, "_", " ") + " score for autovacuum prioritization."})
	}
	def(Def{Name: "vacuum_cost_delay", Kind: Real, Default: "0", Unit: "ms", Context: User, FMin: 0, FMax: 100})
	def(Def{Name: "vacuum_cost_limit", Kind: Int, Default: "200", Context: User, Min: 1, Max: 10000})
	def(Def{Name: "vacuum_cost_page_hit", Kind: Int, Default: "1", Context: User, Min: 0, Max: 10000})
	def(Def{Name: "vacuum_cost_page_miss", Kind: Int, Default: "2", Context: User, Min: 0, Max: 10000})
	def(Def{Name: "vacuum_cost_page_dirty", Kind: Int, Default: "20", Context: User, Min: 0, Max: 10000})
	def(Def{Name: "vacuum_freeze_table_age", Kind: Int, Default: "150000000", Context: User, Min: 0, Max: 2000000000})
	def(Def{Name: "vacuum_failsafe_age", Kind: Int, Default: "1600000000", Context: User, Min: 0, Max: 2100000000})
	def(Def{Name: "vacuum_multixact_failsafe_age", Kind: Int, Default: "1600000000", Context: User, Min: 0, Max: 2100000000})
}

// normalizeReal checks a floating-point setting (with "ms" or "s" for a
// time in milliseconds) against its range, with PostgreSQL's messages.
func (d *Def) normalizeReal(v string) (string, error) {
	num, unit := splitUnit(v)
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) {
		if d.Unit != "" {
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.Name, v).
				WithHint("Valid units for this parameter are %s.", validUnits(d.Unit))
		}
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.Name, v)
	}
	if unit != "" {
		um, ok := unitMul[unit]
		if d.Unit == "" || !ok || isMem(unit) {
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.Name, v).
				WithHint("Valid units for this parameter are %s.", validUnits("ms"))
		}
		f = f * um / unitMul[d.Unit]
	}
	if f < d.FMin || f > d.FMax {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "%s%s is outside the valid range for parameter \"%s\" (%s .. %s)",
			fmtReal(f), unitSuffix(d.Unit), d.Name, fmtReal(d.FMin), fmtReal(d.FMax))
	}
	return fmtReal(f), nil
}

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

func fmtReal(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Float returns a Real (or Int) setting's value.
func Float(v string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f
}
