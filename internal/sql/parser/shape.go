package parser

import (
	"strconv"
	"strings"
)

// A query's shape is its text with every literal (integer, numeric and
// plain string constant) replaced by a marker of the literal's kind. Two
// texts with the same shape produce the same parse tree except for the
// values in the A_Const nodes their literals become (Template checks that
// they do become A_Const nodes), so a session can parse a shape once and
// reuse the tree for the next text of that shape — pgbench and most
// applications send the same statements with different constants.
//
// The scanner follows PostgreSQL's lexer (scan.l) for what it accepts and
// gives up (ok = false) on everything it does not model exactly: E'',
// B'', X'', N'' and U&'' strings, dollar quoting, string continuation
// across lines, numeric literals with underscores, hex/octal/binary
// prefixes or trailing junk, unterminated quotes or comments, NUL bytes.
// Those texts are simply parsed in full every time.

// Literal kinds in a shape.
const (
	LitInt     = 'i' // an integer literal that fits int4 (the grammar's ICONST)
	LitNumeric = 'n' // any other numeric literal (FCONST; kept as written)
	LitString  = 's' // a standard-conforming '…' string (SCONST)
)

// Literal is one literal of a scanned query.
type Literal struct {
	Start, End int    // byte range of the token in the text
	Kind       byte   // LitInt, LitNumeric or LitString
	Int        int32  // LitInt: the value
	Text       string // LitNumeric: the token as written; LitString: the decoded value
	// MinusAt is the offset of a '-' right before the literal (only
	// whitespace or comments between), or -1. The grammar folds a unary
	// minus into the constant and moves its location there.
	MinusAt int
}

// Shape is the result of scanning a query.
type Shape struct {
	Key  string
	Lits []Literal
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// skipComment returns the end of a comment starting at i, i itself if
// none starts there, or -1 for an unterminated block comment.
func skipComment(sql string, i int) int {
	if strings.HasPrefix(sql[i:], "--") {
		j := i + 2
		for j < len(sql) && sql[j] != '\n' && sql[j] != '\r' {
			j++
		}
		return j
	}
	if strings.HasPrefix(sql[i:], "/*") {
		depth, j := 1, i+2
		for j < len(sql) {
			switch {
			case strings.HasPrefix(sql[j:], "/*"):
				depth++
				j += 2
			case strings.HasPrefix(sql[j:], "*/"):
				depth--
				j += 2
				if depth == 0 {
					return j
				}
			default:
				j++
			}
		}
		return -1
	}
	return i
}

// ScanShape scans sql into its shape. ok is false when the text uses a
// lexical feature the scanner does not model.
func ScanShape(sql string) (shape Shape, ok bool) {
	var key strings.Builder
	key.Grow(len(sql))
	lastSig := -1 // offset of the last character outside whitespace and comments
	copied := 0   // sql[copied:i] still has to go to the key
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == 0:
			return Shape{}, false
		case isSpace(c):
			i++
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := skipComment(sql, i)
			if j < 0 {
				return Shape{}, false
			}
			i = j
			continue
		case c == '\'':
			if i > 0 && (isIdentCont(sql[i-1]) || sql[i-1] == '&') {
				return Shape{}, false // E'', B'', X'', N'', U&'', or a prefix we do not model
			}
			var b strings.Builder
			j, start, escaped := i+1, i+1, false
			for {
				k := strings.IndexByte(sql[j:], '\'')
				if k < 0 {
					return Shape{}, false
				}
				j += k
				if j+1 < len(sql) && sql[j+1] == '\'' {
					if !escaped {
						b.Grow(j - start + 16)
					}
					escaped = true
					b.WriteString(sql[start : j+1])
					j += 2
					start = j
					continue
				}
				break
			}
			val := sql[start:j]
			if escaped {
				b.WriteString(val)
				val = b.String()
			}
			end := j + 1
			// A following string literal would be a continuation (after a
			// newline) or an error: leave both to the real lexer.
			n := end
			for n < len(sql) {
				if isSpace(sql[n]) {
					n++
					continue
				}
				m := skipComment(sql, n)
				if m < 0 {
					return Shape{}, false
				}
				if m == n {
					break
				}
				n = m
			}
			if n < len(sql) && sql[n] == '\'' {
				return Shape{}, false
			}
			shape.Lits = append(shape.Lits, Literal{Start: i, End: end, Kind: LitString, Text: val, MinusAt: minusAt(sql, lastSig)})
			key.WriteString(sql[copied:i])
			key.WriteString("\x00s")
			copied = end
			lastSig = end - 1
			i = end
			continue
		case c == '"':
			if i > 0 && sql[i-1] == '&' {
				return Shape{}, false // U&"…"
			}
			j := i + 1
			for {
				k := strings.IndexByte(sql[j:], '"')
				if k < 0 {
					return Shape{}, false
				}
				j += k
				if j+1 < len(sql) && sql[j+1] == '"' {
					j += 2
					continue
				}
				break
			}
			lastSig = j
			i = j + 1
			continue
		case c == '$':
			j := i + 1
			for j < len(sql) && isDigit(sql[j]) {
				j++
			}
			if j == i+1 || j < len(sql) && isIdentCont(sql[j]) {
				return Shape{}, false // dollar quoting, or junk after a parameter
			}
			lastSig = j - 1
			i = j
			continue
		case isDigit(c) || c == '.' && i+1 < len(sql) && isDigit(sql[i+1]):
			lit, end, good := scanNumber(sql, i)
			if !good {
				return Shape{}, false
			}
			lit.MinusAt = minusAt(sql, lastSig)
			shape.Lits = append(shape.Lits, lit)
			key.WriteString(sql[copied:i])
			key.WriteByte(0)
			key.WriteByte(lit.Kind)
			copied = end
			lastSig = end - 1
			i = end
			continue
		case isIdentStart(c):
			j := i + 1
			for j < len(sql) && isIdentCont(sql[j]) {
				j++
			}
			lastSig = j - 1
			i = j
			continue
		}
		lastSig = i
		i++
	}
	if len(shape.Lits) == 0 {
		shape.Key = sql
	} else {
		key.WriteString(sql[copied:])
		shape.Key = key.String()
	}
	return shape, true
}

func minusAt(sql string, lastSig int) int {
	if lastSig >= 0 && sql[lastSig] == '-' {
		return lastSig
	}
	return -1
}

// scanNumber scans a numeric literal at i (a digit, or '.' then a digit).
func scanNumber(sql string, i int) (Literal, int, bool) {
	j := i
	for j < len(sql) && isDigit(sql[j]) {
		j++
	}
	integer := true
	if j < len(sql) && sql[j] == '.' {
		if j+1 < len(sql) && sql[j+1] == '.' {
			return Literal{}, 0, false // "1..": the lexer's special case
		}
		integer = false
		j++
		for j < len(sql) && isDigit(sql[j]) {
			j++
		}
	}
	if j < len(sql) && (sql[j] == 'e' || sql[j] == 'E') {
		k := j + 1
		if k < len(sql) && (sql[k] == '+' || sql[k] == '-') {
			k++
		}
		if k >= len(sql) || !isDigit(sql[k]) {
			return Literal{}, 0, false
		}
		for k < len(sql) && isDigit(sql[k]) {
			k++
		}
		integer = false
		j = k
	}
	if j < len(sql) && (isIdentCont(sql[j]) || sql[j] == '.') {
		return Literal{}, 0, false // trailing junk, underscores, 0x…, "1.2.3"
	}
	text := sql[i:j]
	if integer {
		if v, err := strconv.ParseInt(text, 10, 32); err == nil {
			return Literal{Start: i, End: j, Kind: LitInt, Int: int32(v)}, j, true
		}
	}
	return Literal{Start: i, End: j, Kind: LitNumeric, Text: text}, j, true
}
