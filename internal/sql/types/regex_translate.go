package types

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// PostgreSQL's regular expressions are Henry Spencer's ARE dialect; tidal
// runs them on Go's RE2 engine after translating the syntax. Where the two
// differ in meaning:
//
//   - ARE's "." and bracket expressions match a newline unless a
//     newline-sensitive flag (n, p, w) is given: RE2 needs (?s).
//   - ARE escapes \y \Y \Z \b \B \e \m \M mean word boundary, not word
//     boundary, end of string, backspace, backslash, escape, start and end
//     of word; RE2 spells (or lacks) them differently.
//   - An ARE's match is the longest or the shortest one starting at the
//     leftmost position, by the greediness of its first quantifier
//     (PostgreSQL docs 9.7.3.5); RE2 picks leftmost-first unless told
//     Longest, so a greedy ARE compiles with Longest.
//
// What RE2 cannot do — back-references, lookahead and lookbehind
// constraints, BRE syntax — is refused with 0A000 rather than matched
// differently.

// SQLSTATEs of pattern errors.
const (
	errInvalidRegex          = "2201B" // invalid_regular_expression
	errInvalidEscapeSequence = "22025" // invalid_escape_sequence
	errInvalidUseOfEscape    = "2200C" // invalid_use_of_escape_character
)

// reFlags are the options of a regular-expression function's flags
// argument (PostgreSQL's parse_re_flags).
type reFlags struct {
	icase    bool
	newline  int // 0: not newline-sensitive (s), 'n' (n/m), 'p', 'w'
	expanded bool
	literal  bool
	global   bool
}

// parseREFlags reads a flags string; allowGlobal is false for the
// functions that refuse 'g' (fn names the function for that error).
func parseREFlags(flags string, fn string, allowGlobal bool) (reFlags, error) {
	var f reFlags
	for _, c := range flags {
		switch c {
		case 'g':
			if !allowGlobal {
				e := pgerr.Errorf(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
				if fn == "regexp_match" {
					e = e.WithHint("Use the regexp_matches function instead.")
				}
				return f, e
			}
			f.global = true
		case 'i':
			f.icase = true
		case 'c':
			f.icase = false
		case 'n', 'm':
			f.newline = 'n'
		case 'p':
			f.newline = 'p'
		case 'w':
			f.newline = 'w'
		case 's':
			f.newline = 0
		case 'x':
			f.expanded = true
		case 't':
			f.expanded = false
		case 'q':
			f.literal = true
		case 'e':
			// ERE: tidal reads it as ARE, a superset for the patterns
			// ERE accepts.
		case 'b':
			return f, pgerr.Errorf(pgerr.FeatureNotSupported, "basic regular expressions (flag \"b\") are not supported")
		default:
			return f, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid regular expression option: \"%s\"", string(c))
		}
	}
	return f, nil
}

// pgRegex is a compiled ARE.
type pgRegex struct {
	re *regexp.Regexp
	// leftContext: the pattern looks left of where a match starts (^, \A,
	// word boundaries), so a search from an offset must see the whole
	// string (searchFrom).
	leftContext bool
	// pattern is the RE2 text; prog its program, built when a search
	// needs to know whether it matches the empty string somewhere.
	pattern  string
	progOnce sync.Once
	prog     *syntax.Prog
}

// regexCache holds compiled patterns. A pure function of its key, so one
// cache serves every engine in the process; it is emptied when full
// rather than grown without bound.
var regexCache struct {
	sync.Mutex
	m map[string]*pgRegex
}

const regexCacheSize = 256

// compilePGRegex compiles an ARE with the given flags.
func compilePGRegex(pattern string, f reFlags) (*pgRegex, error) {
	key := pattern + "\x00" + strconv.Itoa(f.newline) + strconv.FormatBool(f.icase) + strconv.FormatBool(f.expanded) + strconv.FormatBool(f.literal)
	regexCache.Lock()
	if r, ok := regexCache.m[key]; ok {
		regexCache.Unlock()
		return r, nil
	}
	regexCache.Unlock()
	src, greedy, left, err := translateARE(pattern, f)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, pgerr.Errorf(errInvalidRegex, "invalid regular expression: %s", reErrText(err))
	}
	if greedy {
		re.Longest()
	}
	r := &pgRegex{re: re, leftContext: left, pattern: src}
	regexCache.Lock()
	if regexCache.m == nil || len(regexCache.m) >= regexCacheSize {
		regexCache.m = make(map[string]*pgRegex, regexCacheSize)
	}
	regexCache.m[key] = r
	regexCache.Unlock()
	return r, nil
}

// reErrText words an RE2 compile error as PostgreSQL's regex library
// words the same mistake.
func reErrText(err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	switch se.Code {
	case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
		return "parentheses () not balanced"
	case syntax.ErrMissingBracket:
		return "brackets [] not balanced"
	case syntax.ErrInvalidRepeatSize:
		return "invalid repetition count(s)"
	case syntax.ErrMissingRepeatArgument, syntax.ErrInvalidRepeatOp:
		return "quantifier operand invalid"
	case syntax.ErrInvalidEscape, syntax.ErrTrailingBackslash:
		return "invalid escape \\ sequence"
	case syntax.ErrInvalidCharRange:
		return "invalid character range"
	case syntax.ErrInvalidCharClass:
		return "invalid character class"
	case syntax.ErrNestingDepth, syntax.ErrLarge:
		return "regular expression is too complex"
	}
	return string(se.Code)
}

// translateARE rewrites an ARE as RE2 syntax. greedy says whether the
// whole RE prefers the longest match; leftContext whether a match can
// depend on text before its start.
func translateARE(p string, f reFlags) (src string, greedy, leftContext bool, err error) {
	switch {
	case strings.HasPrefix(p, "***="):
		f.literal = true
		p = p[4:]
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	if !f.literal && strings.HasPrefix(p, "(?") {
		// Embedded options, only at the start of an ARE.
		if end := strings.IndexByte(p, ')'); end > 0 && isFlagLetters(p[2:end]) {
			ef, ferr := parseREFlags(p[2:end], "", true)
			if ferr != nil {
				return "", false, false, pgerr.Errorf(errInvalidRegex, "invalid regular expression: invalid embedded option")
			}
			if strings.ContainsAny(p[2:end], "i") {
				f.icase = true
			}
			if strings.ContainsAny(p[2:end], "c") {
				f.icase = ef.icase
			}
			if strings.ContainsAny(p[2:end], "nmpws") {
				f.newline = ef.newline
			}
			if strings.ContainsAny(p[2:end], "x") {
				f.expanded = true
			}
			if strings.ContainsAny(p[2:end], "q") {
				f.literal = true
			}
			p = p[end+1:]
		}
	}
	var b strings.Builder
	switch {
	case f.icase && (f.newline == 0 || f.newline == 'w'):
		b.WriteString("(?is")
	case f.icase:
		b.WriteString("(?i")
	case f.newline == 0 || f.newline == 'w':
		b.WriteString("(?s")
	default:
		b.WriteString("(?")
	}
	if f.newline == 'n' || f.newline == 'w' {
		b.WriteString("m")
	}
	b.WriteString(")")
	if b.Len() == 3 { // "(?)" is not valid RE2
		b.Reset()
	}
	if f.literal {
		b.WriteString(regexp.QuoteMeta(p))
		return b.String(), true, false, nil
	}
	if f.expanded {
		p = stripExpanded(p)
	}
	body, greedy, left, err := translateAREBody(p)
	if err != nil {
		return "", false, false, err
	}
	b.WriteString(body)
	return b.String(), greedy, left, nil
}

func isFlagLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("bcegimnpqstwx", rune(s[i])) {
			return false
		}
	}
	return true
}

// stripExpanded drops the white space and #-comments of an expanded ARE
// (flag x), outside bracket expressions and escapes.
func stripExpanded(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func notSupported(what string) error {
	return pgerr.Errorf(pgerr.FeatureNotSupported, "regular expressions with %s are not supported", what)
}

func badRegex(msg string) error {
	return pgerr.Errorf(errInvalidRegex, "invalid regular expression: %s", msg)
}

// translateAREBody translates the pattern proper (after prefixes and
// options).
//
// A group with a non-greedy quantifier, (…){1,1}? or (…)*?, matches as
// little as it can in an ARE, whatever its contents' own quantifiers say;
// RE2 lets each quantifier decide, so the contents' quantifiers are made
// non-greedy too (lazify).
func translateAREBody(p string) (string, bool, bool, error) {
	var b []byte
	left := false
	// The RE's greediness is its first quantified atom's (PostgreSQL docs
	// 9.7.3.5): the quantifier whose atom starts earliest decides; a
	// top-level alternation is always greedy.
	greedy, decidedAt, topAlternation := true, len(p), false
	var groups []int      // output offsets of the open groups
	var groupStarts []int // pattern offsets of the open groups
	lastGroup := -1       // output offset of the group that just closed
	atomStart := 0        // pattern offset of the atom a quantifier would apply to
	quantifier := func(i int) {
		lazy := i+1 < len(p) && p[i+1] == '?'
		if atomStart < decidedAt {
			decidedAt, greedy = atomStart, !lazy
		}
		if lazy && lastGroup >= 0 {
			b = append(b[:lastGroup], lazify(string(b[lastGroup:]))...)
		}
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		closed := -1
		if c != '*' && c != '+' && c != '?' && c != '{' {
			atomStart = i
		}
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return "", false, false, badRegex("invalid escape \\ sequence")
			}
			i++
			e := p[i]
			switch {
			case e == 'y':
				b = append(b, `\b`...)
				left = true
			case e == 'Y':
				b = append(b, `\B`...)
				left = true
			case e == 'm' || e == 'M':
				// RE2 has no start/end-of-word assertion; \b is the same
				// when the neighbouring atom matches only word characters
				// (a word character literal, \d or \w).
				if e == 'm' && wordAtomAt(p, i+1) || e == 'M' && wordAtomBefore(p, i-1) {
					b = append(b, `\b`...)
					left = true
				} else {
					return "", false, false, notSupported(`\m or \M not next to a word character`)
				}
			case e == 'A':
				b = append(b, `\A`...)
				left = true
			case e == 'Z':
				b = append(b, `\z`...)
			case e == 'b':
				b = append(b, `\x08`...)
			case e == 'B':
				b = append(b, `\\`...)
			case e == 'e':
				b = append(b, `\x1b`...)
			case e == '0':
				b = append(b, `\x00`...)
			case e >= '1' && e <= '9':
				return "", false, false, notSupported("back-references")
			case e == 'u' || e == 'U' || e == 'x':
				n := map[byte]int{'u': 4, 'U': 8, 'x': 8}[e]
				j := i + 1
				for j < len(p) && j-i-1 < n && isHexByte(p[j]) {
					j++
				}
				if j == i+1 {
					return "", false, false, badRegex("invalid escape \\ sequence")
				}
				b = append(b, `\x{`+p[i+1:j]+`}`...)
				i = j - 1
			case e == 'c' && i+1 < len(p):
				i++
				b = append(b, `\x{`+strconv.FormatInt(int64(p[i]&0x1f), 16)+`}`...)
			case strings.IndexByte("dDsSwWafnrtv", e) >= 0:
				b = append(b, '\\', e)
			case isWordByte(e):
				return "", false, false, badRegex("invalid escape \\ sequence")
			default:
				_, sz := utf8.DecodeRuneInString(p[i:])
				b = append(b, regexp.QuoteMeta(p[i:i+sz])...)
				i += sz - 1
			}
		case '[':
			end, class, err := translateBracket(p, i)
			if err != nil {
				return "", false, false, err
			}
			if class == `\m` || class == `\M` {
				return "", false, false, notSupported("[[:<:]] or [[:>:]]")
			}
			b = append(b, class...)
			i = end
		case '(':
			if strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") || strings.HasPrefix(p[i:], "(?<") {
				return "", false, false, notSupported("lookahead or lookbehind constraints")
			}
			groups = append(groups, len(b))
			groupStarts = append(groupStarts, i)
			b = append(b, c)
		case ')':
			if len(groups) > 0 {
				closed = groups[len(groups)-1]
				atomStart = groupStarts[len(groupStarts)-1]
				groups, groupStarts = groups[:len(groups)-1], groupStarts[:len(groupStarts)-1]
			}
			b = append(b, c)
		case '|':
			if len(groups) == 0 {
				topAlternation = true
			}
			b = append(b, c)
		case '^', '$':
			if c == '^' {
				left = true
			}
			b = append(b, c)
		case '*', '+', '?':
			quantifier(i)
			b = append(b, c)
		case '{':
			end := strings.IndexByte(p[i:], '}')
			if end > 0 && isBound(p[i+1:i+end]) {
				quantifier(i + end)
				b = append(b, p[i:i+end+1]...)
				i += end
			} else {
				b = append(b, `\{`...)
			}
		default:
			b = append(b, c)
		}
		lastGroup = closed
	}
	return string(b), greedy || topAlternation, left, nil
}

// lazify makes every greedy quantifier of an RE2 fragment non-greedy.
func lazify(re string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		b.WriteByte(c)
		switch {
		case c == '\\' && i+1 < len(re):
			i++
			b.WriteByte(re[i])
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(re) && re[i+1] == '^' {
				i++
				b.WriteByte('^')
			}
			if i+1 < len(re) && re[i+1] == ']' {
				i++
				b.WriteByte(']')
			}
		case c == '(' && i+1 < len(re) && re[i+1] == '?':
			// (?: or (?flags: — not a quantifier
			i++
			b.WriteByte('?')
		case c == '*' || c == '+' || c == '?' || c == '}':
			if i+1 >= len(re) || re[i+1] != '?' {
				b.WriteByte('?')
			} else {
				i++
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}

// translateBracket copies the bracket expression starting at p[i] ('[')
// and returns the index of its closing ']'.
func translateBracket(p string, i int) (int, string, error) {
	if strings.HasPrefix(p[i:], "[[:<:]]") {
		return i + 6, `\m`, nil
	}
	if strings.HasPrefix(p[i:], "[[:>:]]") {
		return i + 6, `\M`, nil
	}
	var b strings.Builder
	b.WriteByte('[')
	j := i + 1
	if j < len(p) && p[j] == '^' {
		b.WriteByte('^')
		j++
	}
	if j < len(p) && p[j] == ']' {
		b.WriteString(`\]`)
		j++
	}
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c == ']':
			b.WriteByte(']')
			return j, b.String(), nil
		case c == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '.' || p[j+1] == '='):
			close := strings.Index(p[j+2:], string(p[j+1])+"]")
			if close < 0 {
				return 0, "", badRegex("brackets [] not balanced")
			}
			inner := p[j+2 : j+2+close]
			switch p[j+1] {
			case ':':
				b.WriteString("[:" + inner + ":]")
			default:
				// A collating element or equivalence class of one
				// character is that character.
				if utf8.RuneCountInString(inner) != 1 {
					return 0, "", notSupported("multi-character collating elements")
				}
				b.WriteString(regexp.QuoteMeta(inner))
			}
			j += 2 + close + 1
		case c == '[':
			b.WriteString(`\[`)
		case c == '\\' && j+1 < len(p):
			j++
			switch e := p[j]; {
			case strings.IndexByte("dDsSwW", e) >= 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case e == 'b':
				b.WriteString(`\x08`)
			case e == 'e':
				b.WriteString(`\x1b`)
			case strings.IndexByte("afnrtv", e) >= 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				_, sz := utf8.DecodeRuneInString(p[j:])
				b.WriteString(regexp.QuoteMeta(p[j : j+sz]))
				j += sz - 1
			}
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", badRegex("brackets [] not balanced")
}

func isBound(s string) bool {
	lo, hi, comma := strings.Cut(s, ",")
	if lo == "" || !allDigits(lo) {
		return false
	}
	return !comma || hi == "" || allDigits(hi)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// wordAtomAt: the atom at p[i:] matches one word character at least (a
// word character literal, or \d or \w not made optional).
func wordAtomAt(p string, i int) bool {
	if i >= len(p) {
		return false
	}
	n := 1
	switch {
	case p[i] == '\\' && i+1 < len(p) && (p[i+1] == 'd' || p[i+1] == 'w'):
		n = 2
	case !isWordByte(p[i]):
		return false
	}
	return i+n >= len(p) || (p[i+n] != '*' && p[i+n] != '?' && p[i+n] != '{')
}

// wordAtomBefore: the atom ending just before p[end] ends with a word
// character (a word character literal, \d or \w, once or with +).
func wordAtomBefore(p string, end int) bool {
	j := end - 1
	if j >= 0 && p[j] == '+' {
		j--
	}
	switch {
	case j >= 1 && p[j-1] == '\\' && (j < 2 || p[j-2] != '\\'):
		return p[j] == 'd' || p[j] == 'w'
	case j >= 0:
		return isWordByte(p[j])
	}
	return false
}
