package types

import (
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// SQL's SIMILAR TO and LIKE … ESCAPE patterns. The parser turns
// `x SIMILAR TO p ESCAPE e` into `x ~ similar_to_escape(p, e)` and
// `x LIKE p ESCAPE e` into `x ~~ like_escape(p, e)`, as PostgreSQL's does;
// these functions convert the patterns.

func init() {
	fn("similar_to_escape", []Type{Text}, Text, func(a []Datum) (Datum, error) {
		p, err := similarToRegex(a[0].Str(), `\`)
		return Str(p), err
	})
	fn("similar_to_escape", []Type{Text, Text}, Text, func(a []Datum) (Datum, error) {
		p, err := similarToRegex(a[0].Str(), a[1].Str())
		return Str(p), err
	})
	// similar_escape is the pre-13 spelling, not strict: a NULL escape
	// means the default.
	addFunc("similar_escape", &Func{Args: []Type{Text, Text}, Ret: Text, Fn: func(a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Datum{}, nil
		}
		esc := `\`
		if !a[1].IsNull() {
			esc = a[1].Str()
		}
		p, err := similarToRegex(a[0].Str(), esc)
		return Str(p), err
	}})
	fn("like_escape", []Type{Text, Text}, Text, func(a []Datum) (Datum, error) {
		p, err := likeEscape(a[0].Str(), a[1].Str())
		return Str(p), err
	})
	fn("like_escape", []Type{Bytea, Bytea}, Bytea, func(a []Datum) (Datum, error) {
		p, err := likeEscape(a[0].Str(), a[1].Str())
		return Str(p), err
	})
}

func invalidEscapeString() error {
	return pgerr.Errorf(errInvalidEscapeSequence, "invalid escape string").
		WithHint("Escape string must be empty or one character.")
}

// likeEscape rewrites a LIKE pattern whose escape character is esc ("" for
// none) into one that escapes with a backslash, the form Like reads.
func likeEscape(p, esc string) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", invalidEscapeString()
	}
	if esc == `\` {
		return p, nil
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		_, sz := utf8.DecodeRuneInString(p[i:])
		c := p[i : i+sz]
		switch {
		case esc != "" && c == esc && i+sz < len(p):
			_, nsz := utf8.DecodeRuneInString(p[i+sz:])
			b.WriteByte('\\')
			b.WriteString(p[i+sz : i+sz+nsz])
			i += sz + nsz
			continue
		case esc != "" && c == esc:
			b.WriteByte('\\') // a trailing escape: Like reports it
		case c == `\`:
			b.WriteString(`\\`)
		default:
			b.WriteString(c)
		}
		i += sz
	}
	return b.String(), nil
}

// similarToRegex converts a SIMILAR TO pattern to a POSIX regular
// expression anchored at both ends, as PostgreSQL's similar_to_escape
// does (so EXPLAIN shows the same text): % and _ become .* and .,
// ( becomes (?:, the characters that are special to regular expressions
// but not to SIMILAR TO (. $ ^ outside brackets) are escaped, and the
// escape-double-quote separators mark the part substring() returns:
// before the first, (…){1,1}? matches as little as it can; between them
// a capturing group.
func similarToRegex(p, esc string) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", invalidEscapeString()
	}
	var b strings.Builder
	b.WriteString("^(?:")
	inClass, classPos, negated := false, 0, false
	quotes := 0
	afterEscape := false
	for i := 0; i < len(p); {
		_, sz := utf8.DecodeRuneInString(p[i:])
		c := p[i : i+sz]
		i += sz
		if afterEscape {
			afterEscape = false
			if c == `"` && !inClass {
				switch quotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", pgerr.Errorf(errInvalidUseOfEscape, "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				quotes++
				continue
			}
			b.WriteByte('\\')
			b.WriteString(c)
			classPos++
			continue
		}
		if esc != "" && c == esc {
			afterEscape = true
			continue
		}
		if inClass {
			switch {
			case c == "]" && classPos > 0:
				inClass = false
			case c == "^" && classPos == 0 && !negated:
				// negation: the next character is still the first
				negated = true
				b.WriteString(c)
				continue
			case c == "[" && i < len(p) && (p[i] == ':' || p[i] == '.' || p[i] == '='):
				// a character class name: copy through its closing :]
				end := strings.Index(p[i+1:], string(p[i])+"]")
				if end >= 0 {
					b.WriteString(c + p[i:i+1+end+2])
					i += 1 + end + 2
					classPos++
					continue
				}
			case c == `\`:
				b.WriteString(`\\`)
				classPos++
				continue
			}
			b.WriteString(c)
			classPos++
			continue
		}
		switch c {
		case "[":
			inClass, classPos, negated = true, 0, false
			b.WriteString(c)
		case "%":
			b.WriteString(".*")
		case "_":
			b.WriteString(".")
		case "(":
			b.WriteString("(?:")
		case `\`, ".", "^", "$":
			b.WriteByte('\\')
			b.WriteString(c)
		default:
			b.WriteString(c)
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}
