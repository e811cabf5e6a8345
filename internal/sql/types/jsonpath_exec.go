package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Evaluation of a jsonpath against a jsonb document, as PostgreSQL's
// jsonpath_exec.c: lax mode (the default) unwraps arrays for accessors
// and wraps scalars for subscripts and ignores structural errors; strict
// mode reports them. Errors of the path's own evaluation are "soft"
// (jpSoftError): silent => true and predicates turn them into no result
// or unknown; others (a missing variable) always stop the statement.

const (
	errJSONMemberNotFound  = "2203A"
	errJSONArrayNotFound   = "22039"
	errJSONObjectNotFound  = "2203C"
	errJSONSubscript       = "22033"
	errJSONSingletonNeeded = "22038"
	errJSONNumberNotFound  = "2203B"
	errJSONNonNumeric      = "22036"
)

type jpSoftError struct{ err *pgerr.Error }

func (e jpSoftError) Error() string { return e.err.Error() }

func jpSoft(code, format string, args ...any) error {
	return jpSoftError{pgerr.Errorf(code, format, args...)}
}

type jpTruth uint8

const (
	jpFalse jpTruth = iota
	jpTrue
	jpUnknown
)

type jpExec struct {
	strict       bool
	ignoreStruct bool
	root         *jsonVal
	current      *jsonVal
	vars         *jsonVal
	arraySize    int // innermost array's size, for last; -1 outside subscripts
}

// runJSONPath evaluates path on doc with vars (an object or nil); a soft
// error is returned as such for the caller to suppress when silent.
func runJSONPath(path *jsonPath, doc, vars *jsonVal) ([]*jsonVal, error) {
	if vars != nil && vars.kind != jObject {
		return nil, errJSONB("\"vars\" argument is not an object").
			WithDetail("Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.")
	}
	e := &jpExec{strict: path.strict, ignoreStruct: !path.strict, root: doc, current: doc, vars: vars, arraySize: -1}
	return e.exec(path.root, doc, !e.strict)
}

func (e *jpExec) next(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	if n.next == nil {
		return []*jsonVal{v}, nil
	}
	return e.exec(n.next, v, !e.strict)
}

func (e *jpExec) unwrapArray(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	var out []*jsonVal
	for _, el := range v.arr {
		r, err := e.exec(n, el, false)
		if err != nil {
			return append(out, r...), err // what was found before the error counts when silent
		}
		out = append(out, r...)
	}
	return out, nil
}

// unwrapped evaluates n and, in lax mode, replaces arrays in the result
// by their elements (executeItemOptUnwrapResult).
func (e *jpExec) unwrapped(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	seq, err := e.exec(n, v, !e.strict)
	if err != nil || e.strict {
		return seq, err
	}
	var out []*jsonVal
	for _, x := range seq {
		if x.kind == jArray {
			out = append(out, x.arr...)
		} else {
			out = append(out, x)
		}
	}
	return out, nil
}

func (e *jpExec) exec(n *jpNode, v *jsonVal, unwrap bool) ([]*jsonVal, error) {
	switch n.kind {
	case jpAnd, jpOr, jpNot, jpIsUnknown, jpExists, jpCmp, jpStartsWith, jpLikeRegex:
		b, err := e.boolItem(n, v)
		if err != nil {
			return nil, err
		}
		r := &jsonVal{kind: jNull}
		if b != jpUnknown {
			r = &jsonVal{kind: jBool, str: strconv.FormatBool(b == jpTrue)}
		}
		return e.next(n, r)
	case jpArith:
		return e.arith(n, v)
	case jpUnary:
		return e.unary(n, v)
	case jpRoot:
		return e.next(n, e.root)
	case jpCurrent:
		return e.next(n, e.current)
	case jpNull, jpBool, jpNumeric, jpString, jpVar:
		lit, err := e.literal(n)
		if err != nil {
			return nil, err
		}
		return e.next(n, lit)
	case jpKey:
		return e.key(n, v, unwrap)
	case jpAnyArray:
		if v.kind == jArray {
			var out []*jsonVal
			for _, el := range v.arr {
				r, err := e.nextUnwrap(n, el)
				if err != nil {
					return append(out, r...), err // what was found before the error counts when silent
				}
				out = append(out, r...)
			}
			return out, nil
		}
		if !e.strict {
			return e.next(n, v)
		}
		if !e.ignoreStruct {
			return nil, jpSoft(errJSONArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array")
		}
		return nil, nil
	case jpIndexArray:
		return e.indexArray(n, v)
	case jpLast:
		if e.arraySize < 0 {
			return nil, pgerr.Errorf(pgerr.InternalError, "evaluating jsonpath LAST outside of array subscript")
		}
		return e.next(n, &jsonVal{kind: jNumber, str: strconv.Itoa(e.arraySize - 1)})
	case jpAnyKey:
		if v.kind == jObject {
			return e.anyItem(n.next, v, 1, 1, 1, false)
		}
		if unwrap && v.kind == jArray {
			return e.unwrapArray(n, v)
		}
		if !e.ignoreStruct {
			return nil, jpSoft(errJSONObjectNotFound, "jsonpath wildcard member accessor can only be applied to an object")
		}
		return nil, nil
	case jpAny:
		var out []*jsonVal
		if n.lo == 0 {
			saved := e.ignoreStruct
			e.ignoreStruct = true
			r, err := e.next(n, v)
			e.ignoreStruct = saved
			if err != nil {
				return nil, err
			}
			out = append(out, r...)
		}
		if v.kind == jArray || v.kind == jObject {
			r, err := e.anyItem(n.next, v, 1, n.lo, n.hi, true)
			if err != nil {
				return append(out, r...), err // what was found before the error counts when silent
			}
			out = append(out, r...)
		}
		return out, nil
	case jpFilter:
		if unwrap && v.kind == jArray {
			return e.unwrapArray(n, v)
		}
		saved := e.current
		e.current = v
		b, err := e.boolItem(n.left, v)
		e.current = saved
		if err != nil || b != jpTrue {
			return nil, err
		}
		return e.next(n, v)
	case jpMethod:
		return e.method(n, v, unwrap)
	case jpDatetime:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "jsonpath item method .datetime() is not supported yet")
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "unrecognized jsonpath item type: %d", n.kind)
}

// nextUnwrap is the next item on an array element (auto-unwrapped in
// lax mode), or the element itself at the end of the path.
func (e *jpExec) nextUnwrap(n *jpNode, el *jsonVal) ([]*jsonVal, error) {
	if n.next == nil {
		return []*jsonVal{el}, nil
	}
	return e.exec(n.next, el, !e.strict)
}

func (e *jpExec) literal(n *jpNode) (*jsonVal, error) {
	switch n.kind {
	case jpNull:
		return &jsonVal{kind: jNull}, nil
	case jpBool:
		return &jsonVal{kind: jBool, str: strconv.FormatBool(n.b)}, nil
	case jpNumeric:
		return &jsonVal{kind: jNumber, str: n.str}, nil
	case jpString:
		return &jsonVal{kind: jString, str: n.str}, nil
	}
	if e.vars != nil {
		if v := e.vars.field(n.str); v != nil {
			return v, nil
		}
	}
	return nil, pgerr.Errorf(pgerr.UndefinedObject, "could not find jsonpath variable \"%s\"", n.str)
}

func (e *jpExec) key(n *jpNode, v *jsonVal, unwrap bool) ([]*jsonVal, error) {
	switch {
	case v.kind == jObject:
		if m := v.field(n.str); m != nil {
			return e.next(n, m)
		}
		if !e.ignoreStruct {
			return nil, jpSoft(errJSONMemberNotFound, "JSON object does not contain key \"%s\"", n.str)
		}
		return nil, nil
	case unwrap && v.kind == jArray:
		return e.unwrapArray(n, v)
	case !e.ignoreStruct:
		return nil, jpSoft(errJSONMemberNotFound, "jsonpath member accessor can only be applied to an object")
	}
	return nil, nil
}

// anyItem is executeAnyItem: the members or elements of container v at
// levels lo..hi below it, each taken through path next.
func (e *jpExec) anyItem(next *jpNode, v *jsonVal, level, lo, hi int64, ignoreStruct bool) ([]*jsonVal, error) {
	if level > hi {
		return nil, nil
	}
	children := v.arr
	if v.kind == jObject {
		children = v.vals
	}
	var out []*jsonVal
	for _, c := range children {
		isContainer := c.kind == jArray || c.kind == jObject
		if level >= lo || (lo == jpAnyMax && hi == jpAnyMax && !isContainer) {
			if next != nil {
				saved := e.ignoreStruct
				if ignoreStruct {
					e.ignoreStruct = true
				}
				r, err := e.exec(next, c, !e.strict)
				e.ignoreStruct = saved
				if err != nil {
					return append(out, r...), err // what was found before the error counts when silent
				}
				out = append(out, r...)
			} else {
				out = append(out, c)
			}
		}
		if level < hi && isContainer {
			r, err := e.anyItem(next, c, level+1, lo, hi, ignoreStruct)
			if err != nil {
				return append(out, r...), err // what was found before the error counts when silent
			}
			out = append(out, r...)
		}
	}
	return out, nil
}

func (e *jpExec) indexArray(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	if v.kind != jArray && e.strict {
		if !e.ignoreStruct {
			return nil, jpSoft(errJSONArrayNotFound, "jsonpath array accessor can only be applied to an array")
		}
		return nil, nil
	}
	singleton := v.kind != jArray
	size := len(v.arr)
	if singleton {
		size = 1
	}
	saved := e.arraySize
	e.arraySize = size
	defer func() { e.arraySize = saved }()
	var out []*jsonVal
	for _, sub := range n.subs {
		from, err := e.arrayIndex(sub[0], v)
		if err != nil {
			return nil, err
		}
		to := from
		if sub[1] != nil {
			if to, err = e.arrayIndex(sub[1], v); err != nil {
				return nil, err
			}
		}
		if !e.ignoreStruct && (from < 0 || from > to || to >= int64(size)) {
			return out, jpSoft(errJSONSubscript, "jsonpath array subscript is out of bounds")
		}
		from = max(from, 0)
		to = min(to, int64(size)-1)
		for i := from; i <= to; i++ {
			el := v
			if !singleton {
				el = v.arr[i]
			}
			r, err := e.next(n, el)
			if err != nil {
				return append(out, r...), err // what was found before the error counts when silent
			}
			out = append(out, r...)
		}
	}
	return out, nil
}

func (e *jpExec) arrayIndex(n *jpNode, v *jsonVal) (int64, error) {
	seq, err := e.exec(n, v, !e.strict)
	if err != nil {
		return 0, err
	}
	if len(seq) != 1 || seq[0].kind != jNumber {
		return 0, jpSoft(errJSONSubscript, "jsonpath array subscript is not a single numeric value")
	}
	d, err := ParseNumeric(seq[0].str)
	if err != nil {
		return 0, err
	}
	t := numOf(d)
	t.trunc(0)
	f, _ := numToFloat(t)
	if f > math.MaxInt32 || f < math.MinInt32 {
		return 0, jpSoft(errJSONSubscript, "jsonpath array subscript is out of integer range")
	}
	return int64(f), nil
}

func jpNumVal(s string) numVal {
	d, _ := ParseNumeric(s)
	return numOf(d)
}

func jpNumber(n numVal) (*jsonVal, error) {
	d, err := n.datum()
	if err != nil {
		return nil, err
	}
	return &jsonVal{kind: jNumber, str: numericToString(d)}, nil
}

func (e *jpExec) arith(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	l, err := e.unwrapped(n.left, v)
	if err != nil {
		return nil, err
	}
	r, err := e.unwrapped(n.right, v)
	if err != nil {
		return nil, err
	}
	if len(l) != 1 || l[0].kind != jNumber {
		return nil, jpSoft(errJSONSingletonNeeded, "left operand of jsonpath operator %s is not a single numeric value", n.op)
	}
	if len(r) != 1 || r[0].kind != jNumber {
		return nil, jpSoft(errJSONSingletonNeeded, "right operand of jsonpath operator %s is not a single numeric value", n.op)
	}
	a, b := jpNumVal(l[0].str), jpNumVal(r[0].str)
	var res numVal
	switch n.op {
	case "+":
		res = numAdd(a, b)
	case "-":
		res = numSub(a, b)
	case "*":
		res = numMul(a, b)
	case "/":
		res, err = numDiv(a, b)
	case "%":
		res, err = numMod(a, b)
	}
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			return nil, jpSoftError{pe}
		}
		return nil, err
	}
	out, err := jpNumber(res)
	if err != nil {
		return nil, err
	}
	return e.next(n, out)
}

func (e *jpExec) unary(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	seq, err := e.unwrapped(n.left, v)
	if err != nil {
		return nil, err
	}
	var out []*jsonVal
	for _, x := range seq {
		if x.kind != jNumber {
			return out, jpSoft(errJSONNumberNotFound, "operand of unary jsonpath operator %s is not a numeric value", n.op)
		}
		if n.op == "-" {
			if x, err = jpNumber(numNeg(jpNumVal(x.str))); err != nil {
				return out, err
			}
		}
		r, err := e.next(n, x)
		if err != nil {
			return append(out, r...), err // what was found before the error counts when silent
		}
		out = append(out, r...)
	}
	return out, nil
}

func jpTypeName(v *jsonVal) string {
	return [...]string{"null", "string", "number", "boolean", "array", "object"}[v.kind]
}

func (e *jpExec) method(n *jpNode, v *jsonVal, unwrap bool) ([]*jsonVal, error) {
	switch n.op {
	case "type":
		return e.next(n, &jsonVal{kind: jString, str: jpTypeName(v)})
	case "size":
		size := len(v.arr)
		if v.kind != jArray {
			if e.strict {
				if !e.ignoreStruct {
					return nil, jpSoft(errJSONArrayNotFound, "jsonpath item method .size() can only be applied to an array")
				}
				return nil, nil
			}
			size = 1
		}
		return e.next(n, &jsonVal{kind: jNumber, str: strconv.Itoa(size)})
	}
	if unwrap && v.kind == jArray {
		return e.unwrapArray(n, v)
	}
	switch n.op {
	case "abs", "floor", "ceiling":
		if v.kind != jNumber {
			return nil, jpSoft(errJSONNonNumeric, "jsonpath item method .%s() can only be applied to a numeric value", n.op)
		}
		x := jpNumVal(v.str)
		switch n.op {
		case "abs":
			x = numAbs(x)
		case "floor":
			x = numCeilFloor(x, false)
		default:
			x = numCeilFloor(x, true)
		}
		r, err := jpNumber(x)
		if err != nil {
			return nil, err
		}
		return e.next(n, r)
	case "double":
		return e.double(n, v)
	case "keyvalue":
		return e.keyValue(n, v)
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "unrecognized jsonpath method %s", n.op)
}

func (e *jpExec) double(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	switch v.kind {
	case jNumber:
		f, err := strconv.ParseFloat(v.str, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, jpSoft(errJSONNonNumeric, "numeric argument of jsonpath item method .double() is out of range for type double precision")
		}
		return e.next(n, v)
	case jString:
		d, err := Parse(Float8, v.str)
		if err != nil || math.IsInf(d.Float(), 0) || math.IsNaN(d.Float()) {
			return nil, jpSoft(errJSONNonNumeric, "string argument of jsonpath item method .double() is not a valid representation of a double precision number")
		}
		num, err := floatToNumeric(d.Float(), 15)
		if err != nil {
			return nil, err
		}
		return e.next(n, &jsonVal{kind: jNumber, str: numericToString(num)})
	}
	return nil, jpSoft(errJSONNonNumeric, "jsonpath item method .double() can only be applied to a string or numeric value")
}

func (e *jpExec) keyValue(n *jpNode, v *jsonVal) ([]*jsonVal, error) {
	if v.kind != jObject {
		return nil, jpSoft(errJSONObjectNotFound, "jsonpath item method .keyvalue() can only be applied to an object")
	}
	var out []*jsonVal
	for i, k := range v.keys {
		obj := &jsonVal{kind: jObject,
			keys: []string{"id", "key", "value"},
			vals: []*jsonVal{{kind: jNumber, str: strconv.Itoa(v.offset)}, {kind: jString, str: k}, v.vals[i]}}
		r, err := e.next(n, obj)
		if err != nil {
			return append(out, r...), err // what was found before the error counts when silent
		}
		out = append(out, r...)
	}
	return out, nil
}

// boolItem evaluates a predicate; soft errors inside make it unknown.
func (e *jpExec) boolItem(n *jpNode, v *jsonVal) (jpTruth, error) {
	switch n.kind {
	case jpAnd:
		l, err := e.boolItem(n.left, v)
		if err != nil || l == jpFalse {
			return jpFalse, err
		}
		r, err := e.boolItem(n.right, v)
		if r == jpTrue {
			return l, err
		}
		return r, err
	case jpOr:
		l, err := e.boolItem(n.left, v)
		if err != nil || l == jpTrue {
			return jpTrue, err
		}
		r, err := e.boolItem(n.right, v)
		if r == jpFalse {
			return l, err
		}
		return r, err
	case jpNot:
		a, err := e.boolItem(n.left, v)
		switch a {
		case jpTrue:
			return jpFalse, err
		case jpFalse:
			return jpTrue, err
		}
		return jpUnknown, err
	case jpIsUnknown:
		a, err := e.boolItem(n.left, v)
		if a == jpUnknown {
			return jpTrue, err
		}
		return jpFalse, err
	case jpExists:
		seq, err := e.exec(n.left, v, false)
		if isSoft(err) {
			return jpUnknown, nil
		}
		if err != nil {
			return jpFalse, err
		}
		if len(seq) == 0 {
			return jpFalse, nil
		}
		return jpTrue, nil
	case jpCmp:
		return e.predicate(n.left, n.right, v, true, func(a, b *jsonVal) jpTruth { return jpCompare(n.op, a, b) })
	case jpStartsWith:
		return e.predicate(n.left, n.right, v, false, func(a, b *jsonVal) jpTruth {
			if a.kind != jString || b.kind != jString {
				return jpUnknown
			}
			return jpBoolOf(strings.HasPrefix(a.str, b.str))
		})
	case jpLikeRegex:
		re, _, err := jpRegex(n.str, n.flags)
		if err != nil {
			return jpFalse, err
		}
		return e.predicate(n.left, nil, v, false, func(a, _ *jsonVal) jpTruth {
			if a.kind != jString {
				return jpUnknown
			}
			m, err := re.findAt(a.str, 0)
			if err != nil {
				return jpUnknown
			}
			return jpBoolOf(m != nil)
		})
	}
	return jpFalse, pgerr.Errorf(pgerr.InternalError, "invalid boolean jsonpath item type: %d", n.kind)
}

func isSoft(err error) bool {
	_, ok := err.(jpSoftError)
	return ok
}

func jpBoolOf(b bool) jpTruth {
	if b {
		return jpTrue
	}
	return jpFalse
}

// predicate is executePredicate: true when some pair of items of the two
// sequences satisfies test (in lax mode, at the first such pair);
// unknown when some pair cannot be compared (in strict mode, at once).
func (e *jpExec) predicate(left, right *jpNode, v *jsonVal, unwrapRight bool, test func(a, b *jsonVal) jpTruth) (jpTruth, error) {
	lseq, err := e.unwrapped(left, v)
	if isSoft(err) {
		return jpUnknown, nil
	}
	if err != nil {
		return jpFalse, err
	}
	rseq := []*jsonVal{nil}
	if right != nil {
		if unwrapRight {
			rseq, err = e.unwrapped(right, v)
		} else {
			rseq, err = e.exec(right, v, !e.strict)
		}
		if isSoft(err) {
			return jpUnknown, nil
		}
		if err != nil {
			return jpFalse, err
		}
	}
	found, unknown := false, false
	for _, l := range lseq {
		for _, r := range rseq {
			switch test(l, r) {
			case jpUnknown:
				if e.strict {
					return jpUnknown, nil
				}
				unknown = true
			case jpTrue:
				if !e.strict {
					return jpTrue, nil
				}
				found = true
			}
		}
	}
	switch {
	case found:
		return jpTrue, nil
	case unknown:
		return jpUnknown, nil
	}
	return jpFalse, nil
}

func jpCompare(op string, a, b *jsonVal) jpTruth {
	if a.kind != b.kind {
		if a.kind == jNull || b.kind == jNull {
			return jpBoolOf(op == "!=")
		}
		return jpUnknown
	}
	var c int
	switch a.kind {
	case jNull:
	case jBool:
		c = strings.Compare(a.str, b.str)
	case jNumber:
		c = cmpDecimal(a.str, b.str)
	case jString:
		c = strings.Compare(a.str, b.str)
	default:
		return jpUnknown
	}
	switch op {
	case "==":
		return jpBoolOf(c == 0)
	case "!=":
		return jpBoolOf(c != 0)
	case "<":
		return jpBoolOf(c < 0)
	case ">":
		return jpBoolOf(c > 0)
	case "<=":
		return jpBoolOf(c <= 0)
	}
	return jpBoolOf(c >= 0)
}

// jpRegexFlags checks like_regex flags and returns them in PostgreSQL's
// printing order.
func jpRegexFlags(f string) (string, error) {
	for _, c := range f {
		if !strings.ContainsRune("ismxq", c) {
			return "", pgerr.Errorf(pgerr.SyntaxError, "invalid input syntax for type jsonpath").
				WithDetail("Unrecognized flag character \"%c\" in LIKE_REGEX predicate.", c)
		}
	}
	var out []byte
	for _, want := range "ismxq" {
		if strings.ContainsRune(f, want) {
			out = append(out, byte(want))
		}
	}
	if strings.ContainsRune(f, 'x') && !strings.ContainsRune(f, 'q') {
		return "", pgerr.Errorf(pgerr.FeatureNotSupported, "XQuery \"x\" flag (expanded regular expressions) is not implemented")
	}
	return string(out), nil
}

// jpRegex compiles a like_regex pattern with its XQuery flags as
// PostgreSQL's jspConvertRegexFlags: i ignores case, q takes the pattern
// literally, . and [^…] match a newline only with s, ^ and $ match at
// newlines with m.
func jpRegex(pattern, flags string) (*pgRegex, reFlags, error) {
	pgFlags := ""
	if strings.ContainsRune(flags, 'i') {
		pgFlags += "i"
	}
	if strings.ContainsRune(flags, 'q') {
		pattern = regexpQuoteMeta(pattern)
	} else {
		// PostgreSQL's p and w flags cancel each other; n is both
		switch dotall, mline := strings.ContainsRune(flags, 's'), strings.ContainsRune(flags, 'm'); {
		case !dotall && mline:
			pgFlags += "n"
		case !dotall:
			pgFlags += "p"
		case mline:
			pgFlags += "w"
		}
	}
	return regexFor(pattern, pgFlags, "like_regex", false)
}

func regexpQuoteMeta(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
