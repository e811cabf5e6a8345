package session

import (
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// relOptionKind is how a storage parameter's value is checked.
type relOptionKind int

const (
	relOptBool relOptionKind = iota
	relOptInt
	relOptReal
)

type relOptionDef struct {
	kind   relOptionKind
	lo, hi float64
}

// autovacuumRelOptions are the per-table autovacuum storage parameters,
// with PostgreSQL's ranges (reloptions.c); autovacuum_parallel_workers
// is PostgreSQL 19's (-1: one per index beyond the leader's, 0: serial).
var autovacuumRelOptions = map[string]relOptionDef{
	"autovacuum_enabled":                    {kind: relOptBool},
	"autovacuum_vacuum_threshold":           {relOptInt, 0, math.MaxInt32},
	"autovacuum_vacuum_max_threshold":       {relOptInt, -1, math.MaxInt32},
	"autovacuum_vacuum_insert_threshold":    {relOptInt, -1, math.MaxInt32},
	"autovacuum_analyze_threshold":          {relOptInt, 0, math.MaxInt32},
	"autovacuum_vacuum_scale_factor":        {relOptReal, 0, 100},
	"autovacuum_vacuum_insert_scale_factor": {relOptReal, 0, 100},
	"autovacuum_analyze_scale_factor":       {relOptReal, 0, 100},
	"autovacuum_vacuum_cost_delay":          {relOptReal, 0, 100},
	"autovacuum_vacuum_cost_limit":          {relOptInt, 1, 10000},
	"autovacuum_freeze_min_age":             {relOptInt, 0, 1000000000},
	"autovacuum_freeze_max_age":             {relOptInt, 100000, 2000000000},
	"autovacuum_freeze_table_age":           {relOptInt, 0, 2000000000},
	"autovacuum_multixact_freeze_min_age":   {relOptInt, 0, 1000000000},
	"autovacuum_multixact_freeze_max_age":   {relOptInt, 10000, 2000000000},
	"autovacuum_multixact_freeze_table_age": {relOptInt, 0, 2000000000},
	"log_autovacuum_min_duration":           {relOptInt, -1, math.MaxInt32},
	"autovacuum_parallel_workers":           {relOptInt, -1, 1024},
}

// autovacuumRelOption checks one autovacuum storage parameter and returns
// its value as reloptions keeps it; ok is false for other parameters.
// TOAST-table parameters (toast.autovacuum_…) are kept under their
// qualified name.
func autovacuumRelOption(de *pg.DefElem) (key, value string, ok bool, err error) {
	d, known := autovacuumRelOptions[de.Defname]
	if !known || (de.Defnamespace != "" && de.Defnamespace != "toast") {
		return "", "", false, nil
	}
	key = de.Defname
	if de.Defnamespace == "toast" {
		if de.Defname == "autovacuum_parallel_workers" {
			return "", "", false, nil
		}
		key = "toast." + de.Defname
	}
	raw := relOptionText(de)
	switch d.kind {
	case relOptBool:
		if de.Arg == nil {
			return key, "true", true, nil
		}
		if _, good := catalog.ParseBoolOption(raw); !good {
			return "", "", true, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for boolean option \"%s\": %s", de.Defname, raw)
		}
		return key, raw, true, nil
	case relOptInt:
		n, perr := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if perr != nil {
			return "", "", true, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for integer option \"%s\": %s", de.Defname, raw)
		}
		if float64(n) < d.lo || float64(n) > d.hi {
			return "", "", true, pgerr.Errorf(pgerr.InvalidParameterValue, "value %s out of bounds for option \"%s\"", raw, de.Defname).
				WithDetail("Valid values are between \"%d\" and \"%d\".", int64(d.lo), int64(d.hi))
		}
	case relOptReal:
		f, perr := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if perr != nil || math.IsNaN(f) {
			return "", "", true, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for floating point option \"%s\": %s", de.Defname, raw)
		}
		if f < d.lo || f > d.hi {
			return "", "", true, pgerr.Errorf(pgerr.InvalidParameterValue, "value %s out of bounds for option \"%s\"", raw, de.Defname).
				WithDetail("Valid values are between \"%f\" and \"%f\".", d.lo, d.hi)
		}
	}
	return key, raw, true, nil
}

// relOptionText is a storage parameter's value as written.
func relOptionText(de *pg.DefElem) string {
	if de.Arg == nil {
		return ""
	}
	if f := de.Arg.GetFloat(); f != nil {
		return f.Fval
	}
	if b := de.Arg.GetBoolean(); b != nil {
		return strconv.FormatBool(b.Boolval)
	}
	if tn := de.Arg.GetTypeName(); tn != nil && len(tn.Names) == 1 {
		return tn.Names[0].GetString_().Sval // a keyword such as off
	}
	return defString(de)
}
