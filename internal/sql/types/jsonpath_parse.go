package types

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// jsonpath: the SQL/JSON path language (PostgreSQL's jsonpath type and
// the jsonb_path_* functions). A path is parsed into a tree of jpNode;
// accessors chain through next ($.a[*] is root → key a → any element).
// The datum holds the canonical text (jsonpath_out of the tree), parsed
// again where the path is evaluated.

type jpKind uint8

const (
	jpRoot jpKind = iota
	jpCurrent
	jpLast
	jpVar
	jpNull
	jpBool
	jpNumeric
	jpString
	jpKey
	jpAnyKey
	jpAnyArray
	jpIndexArray
	jpAny
	jpFilter
	jpMethod
	jpDatetime
	jpAnd
	jpOr
	jpNot
	jpIsUnknown
	jpExists
	jpCmp
	jpStartsWith
	jpLikeRegex
	jpArith
	jpUnary
)

type jpNode struct {
	kind        jpKind
	op          string // comparison or arithmetic operator, method name
	str         string // key, variable, string literal, numeric text, regex pattern
	flags       string // like_regex flags
	b           bool
	left, right *jpNode // operands; the argument of filter, not, exists, is unknown, unary, datetime
	subs        [][2]*jpNode
	lo, hi      int64 // .** levels; jpAnyLast is last
	next        *jpNode
}

// jpAnyLast is .**{last}: PostgreSQL's PG_UINT32_MAX, the same value as
// an unbounded level.
const jpAnyLast = jpAnyMax

type jsonPath struct {
	strict bool
	root   *jpNode
}

func (n *jpNode) isPredicate() bool {
	if n.next != nil {
		return false // (predicate).accessor is an expression
	}
	switch n.kind {
	case jpAnd, jpOr, jpNot, jpIsUnknown, jpExists, jpCmp, jpStartsWith, jpLikeRegex:
		return true
	}
	return false
}

type jpToken struct {
	kind string // "id", "str", "num", "var", "op", "eof"
	text string // identifier/operator text, string value, numeric text
	raw  string // as written (for messages)
}

type jpParser struct {
	s    string
	p    int
	tok  jpToken
	err  error
	peek *jpToken
}

func jpSyntaxError(tok jpToken) error {
	if tok.kind == "eof" {
		return pgerr.Errorf(pgerr.SyntaxError, "syntax error at end of jsonpath input")
	}
	return pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near \"%s\" of jsonpath input", tok.raw)
}

func isJPIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func (jp *jpParser) lex() jpToken {
	s := jp.s
	for jp.p < len(s) && strings.IndexByte(" \t\n\r\f\v", s[jp.p]) >= 0 {
		jp.p++
	}
	if jp.p >= len(s) {
		return jpToken{kind: "eof"}
	}
	start := jp.p
	c := s[jp.p]
	switch {
	case c == '"':
		jp.p++
		v, ok := jp.lexChars(true)
		if !ok {
			return jpToken{kind: "bad"}
		}
		return jpToken{kind: "str", text: v, raw: s[start:jp.p]}
	case c == '$':
		jp.p++
		if jp.p < len(s) && s[jp.p] == '"' {
			jp.p++
			v, ok := jp.lexChars(true)
			if !ok {
				return jpToken{kind: "bad"}
			}
			return jpToken{kind: "var", text: v, raw: s[start:jp.p]}
		}
		v, ok := jp.lexChars(false)
		if !ok {
			return jpToken{kind: "bad"}
		}
		if jp.p == start+1 {
			return jpToken{kind: "op", text: "$", raw: "$"}
		}
		return jpToken{kind: "var", text: v, raw: s[start:jp.p]}
	case c >= '0' && c <= '9' || c == '.' && jp.p+1 < len(s) && s[jp.p+1] >= '0' && s[jp.p+1] <= '9' && !jp.afterAccessorBase():
		return jp.lexNumber()
	case isJPIdentChar(c) || c == '\\':
		v, ok := jp.lexChars(false)
		if !ok {
			return jpToken{kind: "bad"}
		}
		return jpToken{kind: "id", text: v, raw: s[start:jp.p]}
	}
	for _, op := range []string{"**", "==", "!=", "<>", "<=", ">=", "&&", "||"} {
		if strings.HasPrefix(s[jp.p:], op) {
			jp.p += 2
			return jpToken{kind: "op", text: op, raw: op}
		}
	}
	jp.p++
	return jpToken{kind: "op", text: s[start:jp.p], raw: s[start:jp.p]}
}

// afterAccessorBase reports whether a '.' here follows a value (so
// ".5" is an accessor, not a number): the previous non-space character
// ends an operand.
func (jp *jpParser) afterAccessorBase() bool {
	i := jp.p - 1
	for i >= 0 && strings.IndexByte(" \t\n\r\f\v", jp.s[i]) >= 0 {
		i--
	}
	if i < 0 {
		return false
	}
	c := jp.s[i]
	return isJPIdentChar(c) || c == '$' || c == '@' || c == ']' || c == ')' || c == '"' || c == '*'
}

func (jp *jpParser) lexError(format string, args ...any) {
	if jp.err == nil {
		jp.err = pgerr.Errorf(pgerr.SyntaxError, format, args...)
	}
}

// lexNumber reads an integer, decimal (1., .5, 1.5) or real (1e3,
// 1.e3); a letter, digit or _ right after it is PostgreSQL's "trailing
// junk".
func (jp *jpParser) lexNumber() jpToken {
	s, start := jp.s, jp.p
	digits := func() int {
		n := 0
		for jp.p < len(s) && s[jp.p] >= '0' && s[jp.p] <= '9' {
			jp.p++
			n++
		}
		return n
	}
	intDigits := digits()
	decimal := false
	if jp.p < len(s) && s[jp.p] == '.' {
		jp.p++
		decimal = true
		digits()
	}
	junk := func() jpToken {
		end := jp.p
		if end < len(s) {
			_, n := utf8.DecodeRuneInString(s[end:])
			end += n
		}
		jp.lexError("trailing junk after numeric literal at or near \"%s\" of jsonpath input", s[start:end])
		return jpToken{kind: "bad"}
	}
	if !decimal && intDigits > 1 && s[start] == '0' {
		jp.p = start + 1
		return junk()
	}
	if jp.p < len(s) && (s[jp.p] == 'e' || s[jp.p] == 'E') {
		q := jp.p + 1
		if q < len(s) && (s[q] == '+' || s[q] == '-') {
			q++
		}
		if q >= len(s) || s[q] < '0' || s[q] > '9' {
			return junk()
		}
		jp.p = q
		digits()
	}
	if jp.p < len(s) && isJPIdentChar(s[jp.p]) {
		return junk()
	}
	return jpToken{kind: "num", text: s[start:jp.p], raw: s[start:jp.p]}
}

// lexChars reads the characters of a quoted string (after its opening
// quote; quoted) or of an identifier, with their escapes: \b \f \n \r
// \t \v, \xNN, \uNNNN (surrogate pairs) and \u{N…}, any other
// character escaped as itself.
func (jp *jpParser) lexChars(quoted bool) (string, bool) {
	s := jp.s
	var b strings.Builder
	hi := rune(0) // a pending high surrogate
	for {
		if jp.p >= len(s) {
			if quoted {
				jp.lexError("unexpected end of quoted string at end of jsonpath input")
				return "", false
			}
			break
		}
		c := s[jp.p]
		if c != '\\' {
			if hi != 0 {
				jp.surrogateError("Unicode low surrogate must follow a high surrogate.")
				return "", false
			}
			if quoted && c == '"' {
				jp.p++
				return b.String(), true
			}
			if !quoted && !isJPIdentChar(c) {
				break
			}
			b.WriteByte(c)
			jp.p++
			continue
		}
		if jp.p+1 >= len(s) {
			jp.lexError("unexpected end after backslash at end of jsonpath input")
			return "", false
		}
		e := s[jp.p+1]
		if e != 'u' && hi != 0 {
			jp.surrogateError("Unicode low surrogate must follow a high surrogate.")
			return "", false
		}
		switch e {
		case 'u':
			r, ok := jp.lexUnicode()
			if !ok {
				return "", false
			}
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if hi != 0 {
					jp.surrogateError("Unicode high surrogate must not follow a high surrogate.")
					return "", false
				}
				hi = r
				continue
			case r >= 0xDC00 && r < 0xE000:
				if hi == 0 {
					jp.surrogateError("Unicode low surrogate must follow a high surrogate.")
					return "", false
				}
				r = (hi-0xD800)<<10 + r - 0xDC00 + 0x10000
				hi = 0
			case hi != 0:
				jp.surrogateError("Unicode low surrogate must follow a high surrogate.")
				return "", false
			case r == 0:
				if jp.err == nil {
					jp.err = pgerr.Errorf("22P05", "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
				}
				return "", false
			}
			b.WriteRune(r)
			continue
		case 'x':
			if jp.p+4 > len(s) || unhex(s[jp.p+2]) < 0 || unhex(s[jp.p+3]) < 0 {
				jp.lexError("invalid hexadecimal character sequence at or near \"%s\" of jsonpath input", s[jp.p:min(jp.p+3, len(s))])
				return "", false
			}
			v := unhex(s[jp.p+2])<<4 | unhex(s[jp.p+3])
			if v == 0 {
				if jp.err == nil {
					jp.err = pgerr.Errorf("22P05", "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
				}
				return "", false
			}
			b.WriteRune(rune(v))
			jp.p += 4
			continue
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		default:
			r, n := utf8.DecodeRuneInString(s[jp.p+1:])
			b.WriteRune(r)
			jp.p += 1 + n
			continue
		}
		jp.p += 2
	}
	if hi != 0 {
		jp.surrogateError("Unicode low surrogate must follow a high surrogate.")
		return "", false
	}
	return b.String(), true
}

func (jp *jpParser) surrogateError(detail string) {
	if jp.err == nil {
		jp.err = pgerr.Errorf(pgerr.SyntaxError, "invalid input syntax for type jsonpath").WithDetail("%s", detail)
	}
}

// lexUnicode reads \uNNNN or \u{N…} at jp.p (the backslash).
func (jp *jpParser) lexUnicode() (rune, bool) {
	s := jp.s
	start := jp.p
	p := jp.p + 2
	bad := func(end int) (rune, bool) {
		jp.lexError("invalid unicode sequence at or near \"%s\" of jsonpath input", s[start:end])
		return 0, false
	}
	if p < len(s) && s[p] == '{' {
		q := p + 1
		for q < len(s) && q-p <= 6 && unhex(s[q]) >= 0 {
			q++
		}
		if q == p+1 || q >= len(s) || s[q] != '}' {
			return bad(q)
		}
		v, _ := strconv.ParseUint(s[p+1:q], 16, 32)
		jp.p = q + 1
		return rune(v), true
	}
	q := p
	for q < len(s) && q-p < 4 && unhex(s[q]) >= 0 {
		q++
	}
	if q-p < 4 {
		return bad(q)
	}
	v, _ := strconv.ParseUint(s[p:q], 16, 32)
	jp.p = q
	return rune(v), true
}

func (jp *jpParser) next() jpToken {
	if jp.peek != nil {
		t := *jp.peek
		jp.peek = nil
		jp.tok = t
		return t
	}
	jp.tok = jp.lex()
	return jp.tok
}

func (jp *jpParser) lookahead() jpToken {
	if jp.peek == nil {
		t := jp.lex()
		jp.peek = &t
	}
	return *jp.peek
}

func (jp *jpParser) fail(tok jpToken) *jpNode {
	if jp.err == nil {
		jp.err = jpSyntaxError(tok)
	}
	return nil
}

func (jp *jpParser) isOp(t jpToken, op string) bool { return t.kind == "op" && t.text == op }
func (jp *jpParser) isID(t jpToken, id string) bool { return t.kind == "id" && t.text == id }

// parseJSONPath is jsonpath_in.
func parseJSONPath(s string) (*jsonPath, error) {
	jp := &jpParser{s: s}
	path := &jsonPath{}
	t := jp.lookahead()
	if jp.isID(t, "strict") || jp.isID(t, "lax") {
		jp.next()
		path.strict = t.text == "strict"
	}
	if jp.lookahead().kind == "eof" {
		if strings.TrimSpace(s) == "" {
			return nil, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type jsonpath: \"%s\"", s)
		}
		return nil, pgerr.Errorf(pgerr.SyntaxError, "syntax error at end of jsonpath input")
	}
	root := jp.parseOr()
	if jp.err == nil && jp.lookahead().kind != "eof" {
		jp.fail(jp.next())
	}
	if jp.err != nil {
		return nil, jp.err
	}
	if err := checkJSONPath(root, false, false); err != nil {
		return nil, err
	}
	path.root = root
	return path, nil
}

// checkJSONPath refuses @ outside filters and last outside subscripts.
func checkJSONPath(n *jpNode, inFilter, inSubscript bool) error {
	for ; n != nil; n = n.next {
		switch n.kind {
		case jpCurrent:
			if !inFilter {
				return pgerr.Errorf(pgerr.SyntaxError, "@ is not allowed in root expressions")
			}
		case jpLast:
			if !inSubscript {
				return pgerr.Errorf(pgerr.SyntaxError, "LAST is allowed only in array subscripts")
			}
		}
		f := inFilter || n.kind == jpFilter
		for _, k := range []*jpNode{n.left, n.right} {
			if err := checkJSONPath(k, f, inSubscript); err != nil {
				return err
			}
		}
		for _, sub := range n.subs {
			for _, k := range sub {
				if err := checkJSONPath(k, f, true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (jp *jpParser) parseOr() *jpNode {
	l := jp.parseAnd()
	for l != nil && jp.isOp(jp.lookahead(), "||") {
		t := jp.next()
		r := jp.parseAnd()
		if r == nil {
			return nil
		}
		if !l.isPredicate() || !r.isPredicate() {
			return jp.fail(t)
		}
		l = &jpNode{kind: jpOr, left: l, right: r}
	}
	return l
}

func (jp *jpParser) parseAnd() *jpNode {
	l := jp.parseNot()
	for l != nil && jp.isOp(jp.lookahead(), "&&") {
		t := jp.next()
		r := jp.parseNot()
		if r == nil {
			return nil
		}
		if !l.isPredicate() || !r.isPredicate() {
			return jp.fail(t)
		}
		l = &jpNode{kind: jpAnd, left: l, right: r}
	}
	return l
}

func (jp *jpParser) parseNot() *jpNode {
	if jp.isOp(jp.lookahead(), "!") {
		jp.next()
		t := jp.lookahead()
		if !jp.isOp(t, "(") && !jp.isID(t, "exists") {
			return jp.fail(jp.next())
		}
		a := jp.parseNot()
		if a == nil {
			return nil
		}
		if !a.isPredicate() {
			return jp.fail(t)
		}
		return &jpNode{kind: jpNot, left: a}
	}
	return jp.parseCmp()
}

var jpCmpOps = map[string]string{"==": "==", "!=": "!=", "<>": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}

func (jp *jpParser) parseCmp() *jpNode {
	l := jp.parseAdd()
	if l == nil {
		return nil
	}
	t := jp.lookahead()
	if op, ok := jpCmpOps[t.text]; ok && t.kind == "op" {
		jp.next()
		r := jp.parseAdd()
		if r == nil {
			return nil
		}
		if l.isPredicate() || r.isPredicate() {
			return jp.fail(t)
		}
		return &jpNode{kind: jpCmp, op: op, left: l, right: r}
	}
	switch {
	case jp.isID(t, "starts"):
		jp.next()
		if !jp.isID(jp.next(), "with") {
			return jp.fail(jp.tok)
		}
		init := jp.next()
		var r *jpNode
		switch init.kind {
		case "str":
			r = &jpNode{kind: jpString, str: init.text}
		case "var":
			r = &jpNode{kind: jpVar, str: init.text}
		default:
			return jp.fail(init)
		}
		return &jpNode{kind: jpStartsWith, left: l, right: r}
	case jp.isID(t, "like_regex"):
		jp.next()
		pat := jp.next()
		if pat.kind != "str" {
			return jp.fail(pat)
		}
		n := &jpNode{kind: jpLikeRegex, left: l, str: pat.text}
		if jp.isID(jp.lookahead(), "flag") {
			jp.next()
			f := jp.next()
			if f.kind != "str" {
				return jp.fail(f)
			}
			flags, err := jpRegexFlags(f.text)
			if err != nil {
				jp.err = err
				return nil
			}
			n.flags = flags
		}
		if _, _, err := jpRegex(n.str, n.flags); err != nil {
			jp.err = err
			return nil
		}
		return n
	}
	return l
}

func (jp *jpParser) parseAdd() *jpNode {
	l := jp.parseMul()
	for l != nil {
		t := jp.lookahead()
		if !jp.isOp(t, "+") && !jp.isOp(t, "-") {
			return l
		}
		jp.next()
		r := jp.parseMul()
		if r == nil {
			return nil
		}
		if l.isPredicate() || r.isPredicate() {
			return jp.fail(t)
		}
		l = &jpNode{kind: jpArith, op: t.text, left: l, right: r}
	}
	return l
}

func (jp *jpParser) parseMul() *jpNode {
	l := jp.parseUnary()
	for l != nil {
		t := jp.lookahead()
		if !jp.isOp(t, "*") && !jp.isOp(t, "/") && !jp.isOp(t, "%") {
			return l
		}
		jp.next()
		r := jp.parseUnary()
		if r == nil {
			return nil
		}
		if l.isPredicate() || r.isPredicate() {
			return jp.fail(t)
		}
		l = &jpNode{kind: jpArith, op: t.text, left: l, right: r}
	}
	return l
}

func (jp *jpParser) parseUnary() *jpNode {
	t := jp.lookahead()
	if jp.isOp(t, "+") || jp.isOp(t, "-") {
		jp.next()
		a := jp.parseUnary()
		if a == nil {
			return nil
		}
		if a.isPredicate() {
			return jp.fail(t)
		}
		if a.kind == jpNumeric && a.next == nil {
			if t.text == "-" {
				a.str = negateNumericText(a.str)
			}
			return a
		}
		return &jpNode{kind: jpUnary, op: t.text, left: a}
	}
	return jp.parseAccessorExpr()
}

func negateNumericText(s string) string {
	d, err := ParseNumeric(s)
	if err != nil {
		return s
	}
	r, err := numNeg(numOf(d)).datum()
	if err != nil {
		return s
	}
	return numericToString(r)
}

func (jp *jpParser) parseAccessorExpr() *jpNode {
	t := jp.next()
	var n *jpNode
	switch {
	case jp.isOp(t, "("):
		n = jp.parseOr()
		if n == nil {
			return nil
		}
		if !jp.isOp(jp.next(), ")") {
			return jp.fail(jp.tok)
		}
		if n.isPredicate() {
			if jp.isID(jp.lookahead(), "is") {
				jp.next()
				if !jp.isID(jp.next(), "unknown") {
					return jp.fail(jp.tok)
				}
				return &jpNode{kind: jpIsUnknown, left: n}
			}
			if !jp.startsAccessor(jp.lookahead()) {
				return n
			}
		}
	case jp.isID(t, "exists"):
		if !jp.isOp(jp.next(), "(") {
			return jp.fail(jp.tok)
		}
		a := jp.parseOr()
		if a == nil {
			return nil
		}
		if !jp.isOp(jp.next(), ")") {
			return jp.fail(jp.tok)
		}
		if a.isPredicate() {
			return jp.fail(jp.tok)
		}
		return &jpNode{kind: jpExists, left: a}
	case jp.isOp(t, "$"):
		n = &jpNode{kind: jpRoot}
	case jp.isOp(t, "@"):
		n = &jpNode{kind: jpCurrent}
	case t.kind == "var":
		n = &jpNode{kind: jpVar, str: t.text}
	case t.kind == "str":
		n = &jpNode{kind: jpString, str: t.text}
	case t.kind == "num":
		d, err := ParseNumeric(t.text)
		if err != nil {
			return jp.fail(t)
		}
		n = &jpNode{kind: jpNumeric, str: numericToString(d)}
	case jp.isID(t, "null"):
		n = &jpNode{kind: jpNull}
	case jp.isID(t, "true"), jp.isID(t, "false"):
		n = &jpNode{kind: jpBool, b: t.text == "true"}
	case jp.isID(t, "last"):
		n = &jpNode{kind: jpLast}
	default:
		return jp.fail(t)
	}
	return jp.parseAccessors(n)
}

func (jp *jpParser) startsAccessor(t jpToken) bool {
	return jp.isOp(t, ".") || jp.isOp(t, "[") || jp.isOp(t, "?")
}

// parseAccessors reads the accessor chain after a primary.
func (jp *jpParser) parseAccessors(first *jpNode) *jpNode {
	tail := first
	for tail.next != nil {
		tail = tail.next
	}
	for {
		t := jp.lookahead()
		var a *jpNode
		switch {
		case jp.isOp(t, "."):
			jp.next()
			a = jp.parseDotAccessor()
		case jp.isOp(t, "["):
			jp.next()
			a = jp.parseSubscripts()
		case jp.isOp(t, "?"):
			jp.next()
			if !jp.isOp(jp.next(), "(") {
				return jp.fail(jp.tok)
			}
			p := jp.parseOr()
			if p == nil {
				return nil
			}
			if !jp.isOp(jp.next(), ")") {
				return jp.fail(jp.tok)
			}
			if !p.isPredicate() {
				return jp.fail(jp.tok)
			}
			a = &jpNode{kind: jpFilter, left: p}
		default:
			return first
		}
		if a == nil {
			return nil
		}
		tail.next = a
		tail = a
	}
}

var jpMethods = map[string]bool{"abs": true, "size": true, "type": true, "floor": true, "double": true, "ceiling": true, "keyvalue": true}

func (jp *jpParser) parseDotAccessor() *jpNode {
	t := jp.next()
	switch {
	case jp.isOp(t, "*"):
		return &jpNode{kind: jpAnyKey}
	case jp.isOp(t, "**"):
		n := &jpNode{kind: jpAny, lo: 0, hi: jpAnyMax}
		if jp.isOp(jp.lookahead(), "{") {
			jp.next()
			lo, ok := jp.parseAnyLevel()
			if !ok {
				return nil
			}
			n.lo, n.hi = lo, lo
			if jp.isID(jp.lookahead(), "to") {
				jp.next()
				if n.hi, ok = jp.parseAnyLevel(); !ok {
					return nil
				}
			}
			if !jp.isOp(jp.next(), "}") {
				return jp.fail(jp.tok)
			}
		}
		return n
	case t.kind == "str":
		return &jpNode{kind: jpKey, str: t.text}
	case t.kind == "id":
		if jp.isOp(jp.lookahead(), "(") {
			if jpMethods[t.text] {
				jp.next()
				if !jp.isOp(jp.next(), ")") {
					return jp.fail(jp.tok)
				}
				return &jpNode{kind: jpMethod, op: t.text}
			}
			if t.text == "datetime" {
				jp.next()
				n := &jpNode{kind: jpDatetime}
				if a := jp.next(); a.kind == "str" {
					n.left = &jpNode{kind: jpString, str: a.text}
					jp.next()
				}
				if !jp.isOp(jp.tok, ")") {
					return jp.fail(jp.tok)
				}
				return n
			}
		}
		return &jpNode{kind: jpKey, str: t.text}
	}
	return jp.fail(t)
}

const jpAnyMax = 1<<32 - 1

func (jp *jpParser) parseAnyLevel() (int64, bool) {
	t := jp.next()
	if jp.isID(t, "last") {
		return jpAnyLast, true
	}
	if t.kind == "num" {
		if v, err := strconv.ParseInt(t.text, 10, 32); err == nil {
			return v, true
		}
	}
	jp.fail(t)
	return 0, false
}

func (jp *jpParser) parseSubscripts() *jpNode {
	if jp.isOp(jp.lookahead(), "*") {
		jp.next()
		if !jp.isOp(jp.next(), "]") {
			return jp.fail(jp.tok)
		}
		return &jpNode{kind: jpAnyArray}
	}
	n := &jpNode{kind: jpIndexArray}
	for {
		from := jp.parseOr()
		if from == nil {
			return nil
		}
		if from.isPredicate() {
			return jp.fail(jp.tok)
		}
		var to *jpNode
		if jp.isID(jp.lookahead(), "to") {
			jp.next()
			if to = jp.parseOr(); to == nil {
				return nil
			}
		}
		n.subs = append(n.subs, [2]*jpNode{from, to})
		t := jp.next()
		if jp.isOp(t, "]") {
			return n
		}
		if !jp.isOp(t, ",") {
			return jp.fail(t)
		}
	}
}
