package session

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// explainFormat is EXPLAIN's FORMAT option.
func explainFormat(de *pg.DefElem) (exec.ExplainFormat, error) {
	if de.Arg == nil {
		return 0, pgerr.Errorf(pgerr.SyntaxError, "format requires a parameter")
	}
	v := de.Arg.GetString_().GetSval()
	switch v {
	case "text":
		return exec.ExplainText, nil
	case "xml":
		return exec.ExplainXML, nil
	case "json":
		return exec.ExplainJSON, nil
	case "yaml":
		return exec.ExplainYAML, nil
	}
	return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized value for EXPLAIN option \"format\": \"%s\"", v)
}

// explainResultType is the type of EXPLAIN's "QUERY PLAN" column: text,
// as PostgreSQL's for every format but XML (whose xml type tidal does
// not have, so XML plans are text too).
func explainResultType(exec.ExplainFormat) uint32 { return types.TextOID }

// explainContext fills in what EXPLAIN reads of the session: the changed
// planner settings (SETTINGS), track_io_timing and schema names.
func (s *Session) explainContext(text string, opt *exec.ExplainOptions) {
	opt.IOTiming = strings.EqualFold(s.Get("track_io_timing"), "on")
	opt.SchemaName = func(oid uint32) string {
		// The session's temporary schema is pg_temp, as
		// get_namespace_name_or_temp names it.
		if n := s.eng.Catalog.NamespaceName(oid); !strings.HasPrefix(n, "pg_temp_") {
			return n
		}
		return "pg_temp"
	}
	if opt.Verbose && s.Setting("compute_query_id") == "on" {
		opt.QueryID = explainedQueryID(text)
	}
	if !opt.Settings {
		return
	}
	for _, name := range guc.ExplainNames {
		d, err := guc.Lookup(name)
		if err != nil {
			continue // a setting tidal does not have is at its default
		}
		if v := d.Display(s.raw(d)); v != d.Display(d.Default) {
			opt.ChangedSettings = append(opt.ChangedSettings, exec.ExplainSetting{Name: name, Value: v})
		}
	}
}

// explainedQueryID is the query id pg_stat_statements gives the explained
// statement (the text after EXPLAIN and its options), shown by VERBOSE
// when compute_query_id is on. (With compute_query_id = auto tidal
// computes query ids too, but EXPLAIN keeps PostgreSQL's output without
// pg_stat_statements loaded.)
func explainedQueryID(text string) int64 {
	res, err := pg.Scan(text)
	if err != nil || len(res.Tokens) < 2 {
		return 0
	}
	toks := res.Tokens
	i := 1 // after EXPLAIN
	if text[toks[i].Start:toks[i].End] == "(" {
		for depth := 0; i < len(toks); i++ {
			switch text[toks[i].Start:toks[i].End] {
			case "(":
				depth++
			case ")":
				depth--
			}
			if depth == 0 {
				i++
				break
			}
		}
	} else {
		for i < len(toks) && isExplainKeyword(text[toks[i].Start:toks[i].End]) {
			i++
		}
	}
	if i >= len(toks) {
		return 0
	}
	return computeIdentity(strings.TrimRight(strings.TrimSpace(text[toks[i].Start:]), ";"), false).id
}

func isExplainKeyword(w string) bool {
	switch strings.ToLower(w) {
	case "analyze", "analyse", "verbose":
		return true
	}
	return false
}
