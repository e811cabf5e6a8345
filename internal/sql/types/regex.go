package types

import (
	"regexp"
	"sync"

	"github.com/tidal-db/tidal/internal/pgerr"
)

var regexCache sync.Map // pattern (with flags) -> *regexp.Regexp

// compileRegex compiles a POSIX regular expression (PostgreSQL's ARE
// syntax is close to Go's RE2 for the patterns clients send).
func compileRegex(p string, icase bool) (*regexp.Regexp, error) {
	key := p
	if icase {
		key = "(?i)" + p
	}
	if r, ok := regexCache.Load(key); ok {
		return r.(*regexp.Regexp), nil
	}
	r, err := regexp.Compile(key)
	if err != nil {
		return nil, pgerr.Errorf("2201B", "invalid regular expression: %v", err)
	}
	regexCache.Store(key, r)
	return r, nil
}

func init() {
	for _, t := range []Type{Text, Name, BpcharAny} {
		for _, op := range []struct {
			name          string
			icase, negate bool
		}{{"~", false, false}, {"!~", false, true}, {"~*", true, false}, {"!~*", true, true}} {
			op := op
			addOp(op.name, &Func{Args: []Type{t, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
				r, err := compileRegex(a[1].Str(), op.icase)
				if err != nil {
					return Datum{}, err
				}
				return Bool(r.MatchString(a[0].Str()) != op.negate), nil
			}})
		}
	}
	fn("regexp_replace", []Type{Text, Text, Text}, Text, func(a []Datum) (Datum, error) {
		r, err := compileRegex(a[1].Str(), false)
		if err != nil {
			return Datum{}, err
		}
		loc := r.FindStringSubmatchIndex(a[0].Str())
		if loc == nil {
			return a[0], nil
		}
		out := r.ExpandString(nil, pgReplacement(a[2].Str()), a[0].Str(), loc)
		return Str(a[0].Str()[:loc[0]] + string(out) + a[0].Str()[loc[1]:]), nil
	})
	fn("pg_relation_is_publishable", []Type{Oid}, Boolean, func([]Datum) (Datum, error) { return Bool(false), nil })
	fn("pg_get_statisticsobjdef_columns", []Type{Oid}, Text, func([]Datum) (Datum, error) { return Datum{}, nil })
}

// pgReplacement turns PostgreSQL's \1 back-references into Go's ${1}.
func pgReplacement(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b = append(b, '$', '{', s[i+1], '}')
			i++
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '&':
			b = append(b, '$', '{', '0', '}')
			i++
		case s[i] == '$':
			b = append(b, '$', '$')
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}
