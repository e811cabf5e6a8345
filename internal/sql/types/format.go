package types

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// format(formatstr, VARIADIC "any"), quote_literal and quote_nullable as
// PostgreSQL 15's (varlena.c's text_format and quote.c).

func init() {
	fn("quote_literal", []Type{Text}, Text, func(a []Datum) (Datum, error) { return Str(QuoteLiteral(a[0].Str())), nil })
	addFunc("quote_nullable", &Func{Args: []Type{Text}, Ret: Text, Fn: func(a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Str("NULL"), nil
		}
		return Str(QuoteLiteral(a[0].Str())), nil
	}})
	// quote_literal(anyelement) and quote_nullable(anyelement) quote the
	// value's text form.
	for _, name := range []string{"quote_literal", "quote_nullable"} {
		name := name
		addFunc(name, &Func{Args: []Type{Any}, Ret: Text, poly: func(actual []Type) *Func {
			at := actual[0]
			f := func(st *Settings, a []Datum) (Datum, error) {
				if a[0].IsNull() {
					if name == "quote_nullable" {
						return Str("NULL"), nil
					}
					return Datum{}, nil
				}
				return Str(QuoteLiteral(FormatTextWith(st, at, a[0]))), nil
			}
			return &Func{Name: name, Args: actual, Ret: Text, Strict: name == "quote_literal", Stable: true, FnWith: f,
				Fn: func(a []Datum) (Datum, error) { return f(nil, a) }}
		}})
	}
}

// QuoteLiteral quotes s as a string literal (quote_literal): quotes
// doubled, and with backslashes doubled in an E” literal when there are
// any.
func QuoteLiteral(s string) string {
	var b strings.Builder
	if strings.Contains(s, `\`) {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(s[i])
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// isQuotedKeyword reports whether the word s is a keyword that
// quote_ident must quote (every kind but unreserved), asking PostgreSQL's
// own scanner.
func isQuotedKeyword(s string) bool {
	res, err := pg_query.Scan(s)
	if err != nil || len(res.Tokens) != 1 {
		return false
	}
	k := res.Tokens[0].KeywordKind
	return k != pg_query.KeywordKind_NO_KEYWORD && k != pg_query.KeywordKind_UNRESERVED_KEYWORD
}

// variadicFormat is format() for the given argument types: the format
// string, then any values.
func variadicFormat(in []Type) *Func {
	if len(in) == 0 {
		return nil
	}
	ts := append([]Type(nil), in...)
	for i, t := range ts {
		if t.OID == UnknownOID || i == 0 {
			ts[i] = Text
		}
		if t.OID == VoidOID {
			return nil
		}
	}
	f := func(st *Settings, a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Datum{}, nil
		}
		s, err := textFormat(st, a[0].Str(), ts[1:], a[1:])
		return Str(s), err
	}
	return &Func{Name: "format", Args: ts, Ret: Text, Stable: true, FnWith: f,
		Fn: func(a []Datum) (Datum, error) { return f(nil, a) }}
}

func formatErr(msg string) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidParameterValue, "%s", msg)
}

func unterminatedFormat() error {
	return formatErr("unterminated format() type specifier").WithHint(`For a single "%%" use "%%%%".`)
}

// textFormat expands the specifiers %[n$][-][width]{s|I|L} (width a
// number, * or *n$) and %%.
func textFormat(st *Settings, f string, ts []Type, args []Datum) (string, error) {
	var b strings.Builder
	next := 0 // the next argument an unnumbered specifier takes
	arg := func(n int) (Datum, Type, error) {
		if n >= len(args) {
			return Datum{}, Type{}, formatErr("too few arguments for format()")
		}
		return args[n], ts[n], nil
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return "", unterminatedFormat()
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// [n$]
		pos, j, err := formatNumber(f, i)
		if err != nil {
			return "", err
		}
		if pos > 0 && j < len(f) && f[j] == '$' {
			i = j + 1
		} else {
			pos = 0
		}
		if i >= len(f) {
			return "", unterminatedFormat()
		}
		left := false
		for i < len(f) && f[i] == '-' {
			left = true
			i++
		}
		width := 0
		if i < len(f) && f[i] == '*' {
			i++
			wpos, j, err := formatNumber(f, i)
			if err != nil {
				return "", err
			}
			wn := next
			if wpos > 0 && j < len(f) && f[j] == '$' {
				wn, i = wpos-1, j+1
			}
			next = wn + 1
			d, t, err := arg(wn)
			if err != nil {
				return "", err
			}
			if !d.IsNull() {
				w, err := strconv.Atoi(FormatTextWith(st, t, d))
				if err != nil {
					return "", formatErr("format() width argument must be an integer") // not reachable for int arguments
				}
				if w < 0 {
					left, w = true, -w
				}
				width = w
			}
		} else {
			w, j, err := formatNumber(f, i)
			if err != nil {
				return "", err
			}
			width, i = w, j
		}
		if i >= len(f) {
			return "", unterminatedFormat()
		}
		kind := f[i]
		if kind != 's' && kind != 'I' && kind != 'L' {
			return "", formatErr("unrecognized format() type specifier \"" + string(kind) + "\"").WithHint(`For a single "%%" use "%%%%".`)
		}
		n := next
		if pos > 0 {
			n = pos - 1
		}
		next = n + 1
		d, t, err := arg(n)
		if err != nil {
			return "", err
		}
		var v string
		switch {
		case d.IsNull() && kind == 'I':
			return "", pgerr.Errorf(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
		case d.IsNull() && kind == 'L':
			v = "NULL"
		case d.IsNull():
		case kind == 'I':
			v = QuoteIdent(FormatTextWith(st, t, d))
		case kind == 'L':
			v = QuoteLiteral(FormatTextWith(st, t, d))
		default:
			v = FormatTextWith(st, t, d)
		}
		padding := width - charLen(v)
		if padding > 0 && !left {
			b.WriteString(strings.Repeat(" ", padding))
		}
		b.WriteString(v)
		if padding > 0 && left {
			b.WriteString(strings.Repeat(" ", padding))
		}
	}
	return b.String(), nil
}

// formatNumber reads the digits at f[i:]: their value (0 if none) and the
// index after them.
func formatNumber(f string, i int) (int, int, error) {
	j := i
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		j++
	}
	if j == i {
		return 0, i, nil
	}
	n, err := strconv.Atoi(f[i:j])
	if err != nil || n > 1<<30 {
		return 0, 0, formatErr("number is out of range")
	}
	if n == 0 && j < len(f) && f[j] == '$' {
		return 0, 0, formatErr("format specifies argument 0, but arguments are numbered from 1")
	}
	return n, j, nil
}
