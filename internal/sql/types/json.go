package types

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// json and jsonb.
//
// json keeps the input text verbatim (after validating it); its operators
// parse it again and return verbatim slices of it, as PostgreSQL does.
//
// jsonb is held — in the Datum and on disk — in PostgreSQL's binary
// JsonbContainer format (jsonb_binary.go), byte for byte: object keys
// sorted by length then bytes, duplicate keys resolved last-wins, numbers
// as numeric varlenas. Its output is PostgreSQL's ({"a": 1, "b": [1, 2]}),
// numbers in numeric's output form (exact: 1.50 stays 1.50, 1e2 becomes
// 100). Operators decode the container into a jsonVal tree; numbers there
// are their canonical decimal text, compared exactly as decimals.

type jsonKind uint8

const (
	jNull jsonKind = iota
	jString
	jNumber
	jBool
	jArray
	jObject
)

type jsonVal struct {
	kind jsonKind
	str  string // string value, canonical number text, or "true"/"false"
	raw  string // the source text of this value (json)
	arr  []*jsonVal
	keys []string
	vals []*jsonVal
	// offset: a container decoded from jsonb, its byte offset in the
	// document (jsonpath's .keyvalue() ids are PostgreSQL's offsets)
	offset int
}

type jsonParser struct {
	s     string
	p     int
	jsonb bool
	err   error
}

func (jp *jsonParser) fail(detail string) {
	if jp.err == nil {
		jp.err = pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s", jp.typName()).
			WithDetail("%s", detail)
	}
}

func (jp *jsonParser) typName() string {
	if jp.jsonb {
		return "json" // PostgreSQL reports json for both
	}
	return "json"
}

func (jp *jsonParser) ws() {
	for jp.p < len(jp.s) {
		switch jp.s[jp.p] {
		case ' ', '\t', '\n', '\r':
			jp.p++
		default:
			return
		}
	}
}

func (jp *jsonParser) tokenDetail() string {
	end := jp.p
	if end < len(jp.s) {
		c := jp.s[end]
		if isAlnum(c) || c >= 0x80 {
			for end < len(jp.s) && (isAlnum(jp.s[end]) || jp.s[end] >= 0x80) {
				end++
			}
		} else {
			end++
		}
	}
	return "Token \"" + jp.s[jp.p:end] + "\" is invalid."
}

func (jp *jsonParser) value(depth int) *jsonVal {
	if depth > 6400 {
		jp.err = pgerr.Errorf("54001", "stack depth limit exceeded")
		return nil
	}
	jp.ws()
	if jp.p >= len(jp.s) {
		jp.fail("The input string ended unexpectedly.")
		return nil
	}
	start := jp.p
	var v *jsonVal
	switch c := jp.s[jp.p]; {
	case c == '{':
		jp.p++
		v = &jsonVal{kind: jObject}
		jp.ws()
		if jp.p < len(jp.s) && jp.s[jp.p] == '}' {
			jp.p++
			break
		}
		for {
			jp.ws()
			if jp.p >= len(jp.s) {
				jp.fail("The input string ended unexpectedly.")
				return nil
			}
			if jp.s[jp.p] != '"' {
				jp.fail("Expected string, but found \"" + jp.s[jp.p:jp.p+1] + "\".")
				return nil
			}
			k, ok := jp.str()
			if !ok {
				return nil
			}
			jp.ws()
			if jp.p >= len(jp.s) || jp.s[jp.p] != ':' {
				if jp.p >= len(jp.s) {
					jp.fail("The input string ended unexpectedly.")
				} else {
					jp.fail("Expected \":\", but found \"" + jp.s[jp.p:jp.p+1] + "\".")
				}
				return nil
			}
			jp.p++
			e := jp.value(depth + 1)
			if e == nil {
				return nil
			}
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, e)
			jp.ws()
			if jp.p >= len(jp.s) {
				jp.fail("The input string ended unexpectedly.")
				return nil
			}
			if jp.s[jp.p] == ',' {
				jp.p++
				continue
			}
			if jp.s[jp.p] == '}' {
				jp.p++
				break
			}
			jp.fail("Expected \",\" or \"}\", but found \"" + jp.s[jp.p:jp.p+1] + "\".")
			return nil
		}
	case c == '[':
		jp.p++
		v = &jsonVal{kind: jArray}
		jp.ws()
		if jp.p < len(jp.s) && jp.s[jp.p] == ']' {
			jp.p++
			break
		}
		for {
			e := jp.value(depth + 1)
			if e == nil {
				return nil
			}
			v.arr = append(v.arr, e)
			jp.ws()
			if jp.p >= len(jp.s) {
				jp.fail("The input string ended unexpectedly.")
				return nil
			}
			if jp.s[jp.p] == ',' {
				jp.p++
				continue
			}
			if jp.s[jp.p] == ']' {
				jp.p++
				break
			}
			jp.fail("Expected \",\" or \"]\", but found \"" + jp.s[jp.p:jp.p+1] + "\".")
			return nil
		}
	case c == '"':
		s, ok := jp.str()
		if !ok {
			return nil
		}
		v = &jsonVal{kind: jString, str: s}
	case c == '-' || c >= '0' && c <= '9':
		n, ok := jp.number()
		if !ok {
			return nil
		}
		v = &jsonVal{kind: jNumber, str: n}
	default:
		for _, w := range []string{"true", "false", "null"} {
			if strings.HasPrefix(jp.s[jp.p:], w) && (jp.p+len(w) == len(jp.s) || !isAlnum(jp.s[jp.p+len(w)])) {
				jp.p += len(w)
				if w == "null" {
					v = &jsonVal{kind: jNull}
				} else {
					v = &jsonVal{kind: jBool, str: w}
				}
				break
			}
		}
		if v == nil {
			jp.fail(jp.tokenDetail())
			return nil
		}
	}
	v.raw = jp.s[start:jp.p]
	return v
}

func (jp *jsonParser) str() (string, bool) {
	jp.p++ // opening quote
	var b []byte
	start := jp.p
	for {
		if jp.p >= len(jp.s) {
			jp.fail("The input string ended unexpectedly.")
			return "", false
		}
		c := jp.s[jp.p]
		switch {
		case c == '"':
			if b == nil {
				s := jp.s[start:jp.p]
				jp.p++
				return s, true
			}
			jp.p++
			return string(b), true
		case c < 0x20:
			jp.fail("Character with value 0x" + strconv.FormatInt(int64(c)|0x100, 16)[1:] + " must be escaped.")
			return "", false
		case c == '\\':
			if b == nil {
				b = append([]byte{}, jp.s[start:jp.p]...)
			}
			if jp.p+1 >= len(jp.s) {
				jp.fail("The input string ended unexpectedly.")
				return "", false
			}
			e := jp.s[jp.p+1]
			jp.p += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := jp.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					if r >= 0xDC00 {
						jp.fail("Unicode low surrogate must follow a high surrogate.")
						return "", false
					}
					if jp.p+1 < len(jp.s) && jp.s[jp.p] == '\\' && jp.s[jp.p+1] == 'u' {
						jp.p += 2
						r2, ok := jp.hex4()
						if !ok {
							return "", false
						}
						r = utf16.DecodeRune(r, r2)
						if r == utf8.RuneError {
							jp.fail("Unicode low surrogate must follow a high surrogate.")
							return "", false
						}
					} else {
						jp.fail("Unicode low surrogate must follow a high surrogate.")
						return "", false
					}
				}
				if r == 0 {
					if jp.jsonb {
						jp.err = pgerr.Errorf("22P05", "unsupported Unicode escape sequence").
							WithDetail("\\u0000 cannot be converted to text.")
						return "", false
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				jp.p -= 2
				jp.fail("Escape sequence \"\\" + string(e) + "\" is invalid.")
				return "", false
			}
		default:
			if b != nil {
				b = append(b, c)
			}
			jp.p++
		}
	}
}

func (jp *jsonParser) hex4() (rune, bool) {
	if jp.p+4 > len(jp.s) {
		jp.fail("\"\\u\" must be followed by four hexadecimal digits.")
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		h := unhex(jp.s[jp.p+i])
		if h < 0 {
			jp.fail("\"\\u\" must be followed by four hexadecimal digits.")
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	jp.p += 4
	return r, true
}

// number reads a JSON number and returns its canonical (numeric output)
// text.
func (jp *jsonParser) number() (string, bool) {
	start := jp.p
	p := jp.p
	if p < len(jp.s) && jp.s[p] == '-' {
		p++
	}
	digits := func() int {
		n := 0
		for p < len(jp.s) && jp.s[p] >= '0' && jp.s[p] <= '9' {
			p++
			n++
		}
		return n
	}
	intStart := p
	if digits() == 0 || (p-intStart > 1 && jp.s[intStart] == '0') {
		jp.p = start
		jp.fail(jp.tokenDetail())
		return "", false
	}
	if p < len(jp.s) && jp.s[p] == '.' {
		p++
		if digits() == 0 {
			jp.p = start
			jp.fail(jp.tokenDetail())
			return "", false
		}
	}
	if p < len(jp.s) && (jp.s[p] == 'e' || jp.s[p] == 'E') {
		p++
		if p < len(jp.s) && (jp.s[p] == '+' || jp.s[p] == '-') {
			p++
		}
		if digits() == 0 {
			jp.p = start
			jp.fail(jp.tokenDetail())
			return "", false
		}
	}
	if p < len(jp.s) && (isAlnum(jp.s[p]) || jp.s[p] == '.') {
		jp.p = start
		jp.fail(jp.tokenDetail())
		return "", false
	}
	jp.p = p
	if !jp.jsonb {
		return jp.s[start:p], true // json keeps numbers as written
	}
	n, err := jsonbNumber(jp.s[start:p])
	if err != nil {
		jp.err = err
		return "", false
	}
	return n, true
}

// jsonbNumber is a JSON number as jsonb keeps it: numeric's canonical
// text (1.50 stays 1.50, 1e2 becomes 100, -0 becomes 0), or numeric's
// error for a number beyond its range.
func jsonbNumber(s string) (string, error) {
	d, err := ParseNumeric(s)
	if err != nil {
		return "", err
	}
	return string(appendNumericText(nil, d.Str())), nil
}

func parseJSONValue(s string, jsonb bool) (*jsonVal, error) {
	jp := &jsonParser{s: s, jsonb: jsonb}
	v := jp.value(0)
	if jp.err != nil {
		return nil, jp.err
	}
	jp.ws()
	if jp.p < len(s) {
		jp.fail("Expected end of input, but found \"" + s[jp.p:jp.p+1] + "\".")
		return nil, jp.err
	}
	return v, nil
}

// parseJSONText is json_in: validate, keep the text.
func parseJSONText(s string) (Datum, error) {
	if _, err := parseJSONValue(s, false); err != nil {
		return Datum{}, err
	}
	return Str(s), nil
}

// parseJSONB is jsonb_in: parse and store the canonical text.
func parseJSONB(s string) (Datum, error) {
	v, err := parseJSONValue(s, true)
	if err != nil {
		return Datum{}, err
	}
	normalizeJSONB(v)
	return jsonbResult(v)
}

// jsonbKeyLess is jsonb's key order: shorter first, then bytewise.
func jsonbKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// normalizeJSONB sorts object keys and drops duplicates (the last wins).
func normalizeJSONB(v *jsonVal) {
	switch v.kind {
	case jArray:
		for _, e := range v.arr {
			normalizeJSONB(e)
		}
	case jObject:
		idx := make([]int, len(v.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return jsonbKeyLess(v.keys[idx[a]], v.keys[idx[b]]) })
		var keys []string
		var vals []*jsonVal
		for i, j := range idx {
			if i+1 < len(idx) && v.keys[idx[i+1]] == v.keys[j] {
				continue // a later duplicate follows (stable sort keeps input order)
			}
			normalizeJSONB(v.vals[j])
			keys = append(keys, v.keys[j])
			vals = append(vals, v.vals[j])
		}
		v.keys, v.vals = keys, vals
	}
}

// appendJSONString is escape_json.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				const hx = "0123456789abcdef"
				dst = append(dst, '\\', 'u', '0', '0', hx[c>>4], hx[c&15])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// appendJSONB writes jsonb's output form.
func appendJSONB(dst []byte, v *jsonVal) []byte {
	switch v.kind {
	case jNull:
		return append(dst, "null"...)
	case jString:
		return appendJSONString(dst, v.str)
	case jNumber, jBool:
		return append(dst, v.str...)
	case jArray:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONB(dst, e)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, k := range v.keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ": "...)
		dst = appendJSONB(dst, v.vals[i])
	}
	return append(dst, '}')
}

// jsonbOf decodes a jsonb datum (a JsonbContainer, see jsonb_binary.go).
func jsonbOf(s string) *jsonVal { return decodeJSONB([]byte(s)) }

// jsonbDatum encodes a normalized value (keys sorted, no duplicates) as a
// jsonb datum.
func jsonbDatum(v *jsonVal) Datum { b, _ := encodeJSONB(v); return Str(string(b)) }

// jsonbResult is jsonbDatum for a value built from input or by an
// operator, which may exceed jsonb's 256 MB limits (54000).
func jsonbResult(v *jsonVal) (Datum, error) {
	b, err := encodeJSONB(v)
	if err != nil {
		return Datum{}, err
	}
	return Str(string(b)), nil
}

// jsonbText is jsonb_out of a jsonb datum.
func jsonbText(dst []byte, s string) []byte { return appendJSONB(dst, jsonbOf(s)) }

// cmpDecimal compares two canonical decimal numbers exactly (as numeric).
func cmpDecimal(a, b string) int {
	x, err1 := ParseNumeric(a)
	y, err2 := ParseNumeric(b)
	if err1 != nil || err2 != nil {
		return strings.Compare(a, b)
	}
	return CompareNumeric(x.Str(), y.Str())
}

func jsonKindRank(k jsonKind) int {
	// PostgreSQL: Object > Array > Boolean > Number > String > Null
	switch k {
	case jNull:
		return 0
	case jString:
		return 1
	case jNumber:
		return 2
	case jBool:
		return 3
	case jArray:
		return 4
	}
	return 5
}

func compareJSONVals(a, b *jsonVal) int {
	if a.kind != b.kind {
		return cmpInt(int64(jsonKindRank(a.kind)), int64(jsonKindRank(b.kind)))
	}
	switch a.kind {
	case jNull:
		return 0
	case jString:
		return strings.Compare(a.str, b.str)
	case jNumber:
		return cmpDecimal(a.str, b.str)
	case jBool:
		return strings.Compare(a.str, b.str) // "false" < "true"
	case jArray:
		if len(a.arr) != len(b.arr) {
			return cmpInt(int64(len(a.arr)), int64(len(b.arr)))
		}
		for i := range a.arr {
			if c := compareJSONVals(a.arr[i], b.arr[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	if len(a.keys) != len(b.keys) {
		return cmpInt(int64(len(a.keys)), int64(len(b.keys)))
	}
	for i := range a.keys {
		// pairs are visited in storage order, but keys compare as
		// strings (the C collation), not by length first
		if c := strings.Compare(a.keys[i], b.keys[i]); c != 0 {
			return c
		}
		if c := compareJSONVals(a.vals[i], b.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

func compareJSONB(a, b string) int {
	if a == b {
		return 0
	}
	return compareJSONVals(jsonbOf(a), jsonbOf(b))
}

// jsonbHashKey is the canonical text with numbers stripped of trailing
// fraction zeros, so that values equal under compareJSONB hash alike.
func jsonbHashKey(s string) string {
	v := jsonbOf(s)
	var strip func(v *jsonVal)
	strip = func(v *jsonVal) {
		switch v.kind {
		case jNumber:
			if strings.ContainsRune(v.str, '.') {
				v.str = strings.TrimSuffix(strings.TrimRight(v.str, "0"), ".")
				if v.str == "-0" {
					v.str = "0"
				}
			}
		case jArray:
			for _, e := range v.arr {
				strip(e)
			}
		case jObject:
			for _, e := range v.vals {
				strip(e)
			}
		}
	}
	strip(v)
	return string(appendJSONB(nil, v))
}

// castJSONBScalar is jsonb::bool / jsonb::int / jsonb::float8.
func castJSONBScalar(s string, to Type) (Datum, error) {
	v := jsonbOf(s)
	if (to.OID == BoolOID && v.kind != jBool) || (to.OID != BoolOID && v.kind != jNumber) {
		return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", jsonTypeName(v.kind), to.String())
	}
	if to.OID == BoolOID {
		return Bool(v.str == "true"), nil
	}
	if IsFloat(to) || to.OID == NumericOID {
		return Parse(to, v.str)
	}
	// integers: numeric -> int rounds half away from zero
	f, err := strconv.ParseFloat(v.str, 64)
	if err != nil {
		return Datum{}, err
	}
	r := math.Round(f) // numeric rounds half away from zero
	if r < math.MinInt64 || r >= -math.MinInt64 {
		return Datum{}, intRangeErr(to.OID)
	}
	return checkIntRange(int64(r), to.OID)
}
