package types

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// The array functions and operators of PostgreSQL 15, registered for
// every array type (PostgreSQL declares them over anyarray/anyelement).

func init() {
	datum.EachArrayType(func(e, a OID) {
		et, at := Type{OID: e, Typmod: -1}, Type{OID: a, Typmod: -1}
		addArrayInfoFuncs(et, at)
		addArraySearchFuncs(et, at)
		addArrayBuildFuncs(et, at)
		addArrayOps(et, at)
		addArraySRFs(et, at)
	})
	addStringToArray()
}

func polyFn(elem Type, slots, name string, args []Type, ret Type, f func([]Datum) (Datum, error)) {
	addFunc(name, &Func{polySlots: slots, polyElem: elem.OID, Args: args, Ret: ret, Strict: true, Fn: f})
}

func addOpNonStrict(op string, f *Func) {
	addOp(op, f)
	f.Strict = false
}

// dimArg is a dimension number argument: its 0-based index in a, or -1.
func dimArg(a ArrayValue, d Datum) int {
	n := int(d.Int())
	if n < 1 || n > len(a.Dims) || d.Int() > int64(len(a.Dims)) {
		return -1
	}
	return n - 1
}

func addArrayInfoFuncs(et, at Type) {
	polyFn(et, "a_", "array_length", []Type{at, Int4}, Int4, func(x []Datum) (Datum, error) {
		a := ArrayParts(x[0])
		if i := dimArg(a, x[1]); i >= 0 {
			return Int(int64(a.Dims[i])), nil
		}
		return Datum{}, nil
	})
	polyFn(et, "a_", "array_lower", []Type{at, Int4}, Int4, func(x []Datum) (Datum, error) {
		a := ArrayParts(x[0])
		if i := dimArg(a, x[1]); i >= 0 {
			return Int(int64(a.Lbounds[i])), nil
		}
		return Datum{}, nil
	})
	polyFn(et, "a_", "array_upper", []Type{at, Int4}, Int4, func(x []Datum) (Datum, error) {
		a := ArrayParts(x[0])
		if i := dimArg(a, x[1]); i >= 0 {
			return Int(int64(a.Lbounds[i] + a.Dims[i] - 1)), nil
		}
		return Datum{}, nil
	})
	polyFn(et, "a", "cardinality", []Type{at}, Int4, func(x []Datum) (Datum, error) { return Int(int64(len(x[0].Elems()))), nil })
	polyFn(et, "a", "array_ndims", []Type{at}, Int4, func(x []Datum) (Datum, error) {
		dims, _ := x[0].ArrayDims()
		if len(dims) == 0 {
			return Datum{}, nil
		}
		return Int(int64(len(dims))), nil
	})
	polyFn(et, "a", "array_dims", []Type{at}, Text, func(x []Datum) (Datum, error) {
		dims, lbs := x[0].ArrayDims()
		if len(dims) == 0 {
			return Datum{}, nil
		}
		var b []byte
		for i := range dims {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(lbs[i]), 10)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(lbs[i]+dims[i]-1), 10)
			b = append(b, ']')
		}
		return Str(string(b)), nil
	})
	toString := func(st *Settings, x []Datum) (Datum, error) {
		if x[0].IsNull() || x[1].IsNull() {
			return Datum{}, nil
		}
		nullStr, withNull := "", len(x) > 2 && !x[2].IsNull()
		if withNull {
			nullStr = x[2].Str()
		}
		var b strings.Builder
		first := true
		for _, el := range x[0].Elems() {
			if el.IsNull() && !withNull {
				continue
			}
			if !first {
				b.WriteString(x[1].Str())
			}
			first = false
			if el.IsNull() {
				b.WriteString(nullStr)
			} else {
				b.Write(AppendTextWith(st, nil, et, el))
			}
		}
		return Str(b.String()), nil
	}
	for _, args := range [][]Type{{at, Text}, {at, Text, Text}} {
		addFunc("array_to_string", &Func{polySlots: "a__"[:len(args)], polyElem: et.OID, Args: args, Ret: Text, Stable: true, FnWith: toString,
			Fn: func(x []Datum) (Datum, error) { return toString(nil, x) }})
	}
}

func multidimSearch() error {
	return pgerr.Errorf(pgerr.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
}

// notDistinct is IS NOT DISTINCT FROM on two elements.
func notDistinct(et Type, a, b Datum) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return Equal(et, a, b)
}

func addArraySearchFuncs(et, at Type) {
	position := func(x []Datum) (Datum, error) {
		if x[0].IsNull() {
			return Datum{}, nil
		}
		a := ArrayParts(x[0])
		if len(a.Dims) > 1 {
			return Datum{}, multidimSearch()
		}
		if len(a.Dims) == 0 {
			return Datum{}, nil
		}
		from := 0
		if len(x) > 2 {
			if x[2].IsNull() {
				return Datum{}, pgerr.Errorf(pgerr.NullValueNotAllowed, "initial position must not be null")
			}
			from = int(max(x[2].Int()-int64(a.Lbounds[0]), 0))
		}
		for i := from; i < len(a.Elems); i++ {
			if notDistinct(et, a.Elems[i], x[1]) {
				return Int(int64(a.Lbounds[0] + i)), nil
			}
		}
		return Datum{}, nil
	}
	addFunc("array_position", &Func{polySlots: "ae", polyElem: et.OID, Args: []Type{at, et}, Ret: Int4, Fn: position})
	addFunc("array_position", &Func{polySlots: "ae_", polyElem: et.OID, Args: []Type{at, et, Int4}, Ret: Int4, Fn: position})
	int4Array, _ := ArrayOf(Int4)
	addFunc("array_positions", &Func{polySlots: "ae", polyElem: et.OID, Args: []Type{at, et}, Ret: int4Array, Fn: func(x []Datum) (Datum, error) {
		if x[0].IsNull() {
			return Datum{}, nil
		}
		a := ArrayParts(x[0])
		if len(a.Dims) > 1 {
			return Datum{}, multidimSearch()
		}
		var out []Datum
		for i, e := range a.Elems {
			if notDistinct(et, e, x[1]) {
				out = append(out, Int(int64(a.Lbounds[0]+i)))
			}
		}
		return Array(out), nil
	}})
	addFunc("array_remove", &Func{polySlots: "ae", polyElem: et.OID, Args: []Type{at, et}, Ret: at, Fn: func(x []Datum) (Datum, error) {
		if x[0].IsNull() {
			return Datum{}, nil
		}
		a := ArrayParts(x[0])
		if len(a.Dims) > 1 {
			return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "removing elements from multidimensional arrays is not supported")
		}
		var out []Datum
		for _, e := range a.Elems {
			if !notDistinct(et, e, x[1]) {
				out = append(out, e)
			}
		}
		if len(out) == len(a.Elems) {
			return x[0], nil
		}
		if len(out) == 0 {
			return Array(nil), nil
		}
		return ArrayShaped([]int{len(out)}, a.Lbounds, out), nil
	}})
	addFunc("array_replace", &Func{polySlots: "aee", polyElem: et.OID, Args: []Type{at, et, et}, Ret: at, Fn: func(x []Datum) (Datum, error) {
		if x[0].IsNull() {
			return Datum{}, nil
		}
		a := ArrayParts(x[0])
		for i, e := range a.Elems {
			if notDistinct(et, e, x[1]) {
				a.Elems[i] = x[2]
			}
		}
		return a.Datum(), nil
	}})
	polyFn(et, "ea", "width_bucket", []Type{et, at}, Int4, func(x []Datum) (Datum, error) {
		a := ArrayParts(x[1])
		if len(a.Dims) > 1 {
			return Datum{}, pgerr.Errorf(pgerr.ArraySubscriptError, "thresholds must be one-dimensional array")
		}
		for _, e := range a.Elems {
			if e.IsNull() {
				return Datum{}, pgerr.Errorf(pgerr.NullValueNotAllowed, "thresholds array must not contain NULLs")
			}
		}
		n := sort.Search(len(a.Elems), func(i int) bool { return Compare(et, x[0], a.Elems[i]) < 0 })
		return Int(int64(n)), nil
	})
}

func concatError(detail string, args ...any) error {
	return pgerr.Errorf(pgerr.ArraySubscriptError, "cannot concatenate incompatible arrays").WithDetail(detail, args...)
}

// ArrayCat is array_cat (anyarray || anyarray): arrays of the same number
// of dimensions are joined along the first; an array of one dimension
// fewer is added as one more item of the first dimension.
func ArrayCat(x, y Datum) (Datum, error) {
	if x.IsNull() {
		return y, nil
	}
	if y.IsNull() {
		return x, nil
	}
	a, b := ArrayParts(x), ArrayParts(y)
	switch {
	case len(a.Dims) == 0:
		return y, nil
	case len(b.Dims) == 0:
		return x, nil
	case len(a.Dims) == len(b.Dims):
		for i := 1; i < len(a.Dims); i++ {
			if a.Dims[i] != b.Dims[i] || a.Lbounds[i] != b.Lbounds[i] {
				return Datum{}, concatError("Arrays with differing element dimensions are not compatible for concatenation.")
			}
		}
		dims := append([]int(nil), a.Dims...)
		dims[0] += b.Dims[0]
		return ArrayShaped(dims, a.Lbounds, append(a.Elems, b.Elems...)), nil
	case len(a.Dims) == len(b.Dims)+1:
		if !sameInts(a.Dims[1:], b.Dims) {
			return Datum{}, concatError("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims := append([]int(nil), a.Dims...)
		dims[0]++
		return ArrayShaped(dims, a.Lbounds, append(a.Elems, b.Elems...)), nil
	case len(a.Dims)+1 == len(b.Dims):
		if !sameInts(b.Dims[1:], a.Dims) {
			return Datum{}, concatError("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims := append([]int(nil), b.Dims...)
		dims[0]++
		return ArrayShaped(dims, b.Lbounds, append(a.Elems, b.Elems...)), nil
	}
	return Datum{}, concatError("Arrays of %d and %d dimensions are not compatible for concatenation.", len(a.Dims), len(b.Dims))
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func oneDimOnly() error {
	return pgerr.Errorf(pgerr.DataException, "argument must be empty or one-dimensional array")
}

func arrayPush(arr, el Datum, front bool) (Datum, error) {
	a := ArrayParts(arr)
	switch len(a.Dims) {
	case 0:
		return Array([]Datum{el}), nil
	case 1:
	default:
		return Datum{}, oneDimOnly()
	}
	if front {
		if a.Lbounds[0] == -1<<31 {
			return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
		}
		a.Elems = append([]Datum{el}, a.Elems...)
	} else {
		if int64(a.Lbounds[0])+int64(a.Dims[0]) > 1<<31-1 {
			return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
		}
		a.Elems = append(a.Elems, el)
	}
	a.Dims[0]++
	return a.Datum(), nil
}

func addArrayBuildFuncs(et, at Type) {
	appendFn := &Func{polySlots: "ae", polyElem: et.OID, Args: []Type{at, et}, Ret: at, Fn: func(x []Datum) (Datum, error) { return arrayPush(x[0], x[1], false) }}
	prependFn := &Func{polySlots: "ea", polyElem: et.OID, Args: []Type{et, at}, Ret: at, Fn: func(x []Datum) (Datum, error) { return arrayPush(x[1], x[0], true) }}
	catFn := func(x []Datum) (Datum, error) { return ArrayCat(x[0], x[1]) }
	addFunc("array_append", appendFn)
	addFunc("array_prepend", prependFn)
	addFunc("array_cat", &Func{polySlots: "aa", polyElem: et.OID, Args: []Type{at, at}, Ret: at, Fn: catFn})
	addOpNonStrict("||", &Func{polySlots: "aa", polyElem: et.OID, Args: []Type{at, at}, Ret: at, Fn: catFn})
	addOpNonStrict("||", &Func{polySlots: "ae", polyElem: et.OID, Args: []Type{at, et}, Ret: at, Fn: appendFn.Fn})
	addOpNonStrict("||", &Func{polySlots: "ea", polyElem: et.OID, Args: []Type{et, at}, Ret: at, Fn: prependFn.Fn})
	int4Array, _ := ArrayOf(Int4)
	fill := func(x []Datum) (Datum, error) { return arrayFill(x) }
	addFunc("array_fill", &Func{polySlots: "e_", polyElem: et.OID, Args: []Type{et, int4Array}, Ret: at, Fn: fill})
	addFunc("array_fill", &Func{polySlots: "e__", polyElem: et.OID, Args: []Type{et, int4Array, int4Array}, Ret: at, Fn: fill})
	polyFn(et, "a_", "trim_array", []Type{at, Int4}, at, func(x []Datum) (Datum, error) {
		a := ArrayParts(x[0])
		n := 0
		if len(a.Dims) > 0 {
			n = a.Dims[0]
		}
		if x[1].Int() < 0 || x[1].Int() > int64(n) {
			return Datum{}, pgerr.Errorf(pgerr.ArraySubscriptError, "number of elements to trim must be between 0 and %d", n)
		}
		if x[1].Int() == 0 {
			return x[0], nil
		}
		keep := n - int(x[1].Int())
		inner := len(a.Elems) / n
		a.Dims[0] = keep
		for i := range a.Lbounds {
			a.Lbounds[i] = 1 // a slice: lower bounds 1
		}
		return ArrayShaped(a.Dims, a.Lbounds, a.Elems[:keep*inner]), nil
	})
}

// arrayFill is array_fill(value, dims [, lbounds]).
func arrayFill(x []Datum) (Datum, error) {
	if x[1].IsNull() || (len(x) > 2 && x[2].IsNull()) {
		return Datum{}, pgerr.Errorf(pgerr.NullValueNotAllowed, "dimension array or low bound array cannot be null")
	}
	d := ArrayParts(x[1])
	if len(d.Dims) > 1 {
		return Datum{}, pgerr.Errorf(pgerr.ArraySubscriptError, "wrong number of array subscripts").WithDetail("Dimension array must be one dimensional.")
	}
	var lb ArrayValue
	if len(x) > 2 {
		lb = ArrayParts(x[2])
		if len(lb.Dims) > 1 {
			return Datum{}, pgerr.Errorf(pgerr.ArraySubscriptError, "wrong number of array subscripts").WithDetail("Dimension array must be one dimensional.")
		}
		if len(lb.Elems) != len(d.Elems) {
			return Datum{}, pgerr.Errorf(pgerr.ArraySubscriptError, "wrong number of array subscripts").WithDetail("Low bound array has different size than dimensions array.")
		}
	}
	if len(d.Elems) > maxArrayDims {
		return Datum{}, tooManyArrayDims(len(d.Elems))
	}
	dims, lbs := make([]int, len(d.Elems)), make([]int, len(d.Elems))
	total := 1
	for i, e := range d.Elems {
		if e.IsNull() || (lb.Elems != nil && lb.Elems[i].IsNull()) {
			return Datum{}, pgerr.Errorf(pgerr.NullValueNotAllowed, "dimension values cannot be null")
		}
		dims[i], lbs[i] = int(e.Int()), 1
		if lb.Elems != nil {
			lbs[i] = int(lb.Elems[i].Int())
		}
		if dims[i] < 0 {
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayElems)
		}
		total *= dims[i]
		if total > maxArrayElems {
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayElems)
		}
	}
	if total == 0 {
		return Array(nil), nil
	}
	elems := make([]Datum, total)
	for i := range elems {
		elems[i] = x[0]
	}
	return ArrayShaped(dims, lbs, elems), nil
}

func addArrayOps(et, at Type) {
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		op := op
		addOp(op, &Func{polySlots: "aa", polyElem: et.OID, Args: []Type{at, at}, Ret: Boolean, Fn: func(x []Datum) (Datum, error) {
			return Bool(cmpResult(op, compareArrays(at, x[0], x[1]))), nil
		}})
	}
	addOp("@>", &Func{polySlots: "aa", polyElem: et.OID, Args: []Type{at, at}, Ret: Boolean, Fn: func(x []Datum) (Datum, error) {
		return Bool(arrayContains(et, x[0], x[1])), nil
	}})
	addOp("<@", &Func{polySlots: "aa", polyElem: et.OID, Args: []Type{at, at}, Ret: Boolean, Fn: func(x []Datum) (Datum, error) {
		return Bool(arrayContains(et, x[1], x[0])), nil
	}})
	addOp("&&", &Func{polySlots: "aa", polyElem: et.OID, Args: []Type{at, at}, Ret: Boolean, Fn: func(x []Datum) (Datum, error) {
		return Bool(arrayOverlaps(et, x[0], x[1])), nil
	}})
	polyFn(et, "aa", "array_larger", []Type{at, at}, at, func(x []Datum) (Datum, error) {
		if compareArrays(at, x[0], x[1]) > 0 {
			return x[0], nil
		}
		return x[1], nil
	})
	polyFn(et, "aa", "array_smaller", []Type{at, at}, at, func(x []Datum) (Datum, error) {
		if compareArrays(at, x[0], x[1]) < 0 {
			return x[0], nil
		}
		return x[1], nil
	})
}

func cmpResult(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// arrayContains is a @> b: every non-NULL element of b equals some element
// of a; a NULL element of b is never contained.
func arrayContains(et Type, a, b Datum) bool {
	x := a.Elems()
	for _, e := range b.Elems() {
		if e.IsNull() || !containsElem(et, x, e) {
			return false
		}
	}
	return true
}

func arrayOverlaps(et Type, a, b Datum) bool {
	x := a.Elems()
	for _, e := range b.Elems() {
		if !e.IsNull() && containsElem(et, x, e) {
			return true
		}
	}
	return false
}

func containsElem(et Type, elems []Datum, v Datum) bool {
	for _, e := range elems {
		if !e.IsNull() && Equal(et, e, v) {
			return true
		}
	}
	return false
}

func rowsOf(vals []Datum) func() (Datum, bool, error) {
	i := 0
	return func() (Datum, bool, error) {
		if i >= len(vals) {
			return Datum{}, false, nil
		}
		i++
		return vals[i-1], true, nil
	}
}

func addArraySRFs(et, at Type) {
	srfs["unnest"] = append(srfs["unnest"], &SRF{polySlots: "a", polyElem: et.OID, Name: "unnest", Args: []Type{at}, Ret: et, Fn: func(x []Datum) (func() (Datum, bool, error), error) {
		return rowsOf(x[0].Elems()), nil
	}})
	subscripts := func(x []Datum) (func() (Datum, bool, error), error) {
		a := ArrayParts(x[0])
		i := dimArg(a, x[1])
		if i < 0 {
			return rowsOf(nil), nil
		}
		vals := make([]Datum, a.Dims[i])
		reverse := len(x) > 2 && x[2].Bool()
		for k := range vals {
			v := a.Lbounds[i] + k
			if reverse {
				v = a.Lbounds[i] + a.Dims[i] - 1 - k
			}
			vals[k] = Int(int64(v))
		}
		return rowsOf(vals), nil
	}
	srfs["generate_subscripts"] = append(srfs["generate_subscripts"],
		&SRF{polySlots: "a_", polyElem: et.OID, Name: "generate_subscripts", Args: []Type{at, Int4}, Ret: Int4, Fn: subscripts},
		&SRF{polySlots: "a__", polyElem: et.OID, Name: "generate_subscripts", Args: []Type{at, Int4, Boolean}, Ret: Int4, Fn: subscripts})
}

// splitForArray is string_to_array's splitting: a NULL delimiter splits
// into characters, an empty one keeps the string whole; elements equal to
// nullStr (when given) are NULL. An empty string has no elements.
func splitForArray(x []Datum) []Datum {
	s := x[0].Str()
	if s == "" {
		return nil
	}
	var parts []string
	switch {
	case x[1].IsNull():
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case x[1].Str() == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, x[1].Str())
	}
	out := make([]Datum, len(parts))
	for i, p := range parts {
		if len(x) > 2 && !x[2].IsNull() && p == x[2].Str() {
			continue
		}
		out[i] = Str(p)
	}
	return out
}

func addStringToArray() {
	textArray, _ := ArrayOf(Text)
	toArray := func(x []Datum) (Datum, error) {
		if x[0].IsNull() {
			return Datum{}, nil
		}
		return Array(splitForArray(x)), nil
	}
	toTable := func(x []Datum) (func() (Datum, bool, error), error) {
		if x[0].IsNull() {
			return rowsOf(nil), nil
		}
		return rowsOf(splitForArray(x)), nil
	}
	for _, args := range [][]Type{{Text, Text}, {Text, Text, Text}} {
		addFunc("string_to_array", &Func{Args: args, Ret: textArray, Fn: toArray})
		srfs["string_to_table"] = append(srfs["string_to_table"], &SRF{Name: "string_to_table", Args: args, Ret: Text, Fn: toTable, NonStrict: true})
	}
}

// StackArrays builds ARRAY[sub, sub, …] of arrays: one more dimension, of
// length len(subs), over sub-arrays that must all have the same shape
// (NULL and empty sub-arrays count as empty; all empty gives an empty
// array). array_agg of arrays builds the same.
func StackArrays(subs []Datum) (Datum, error) {
	var first ArrayValue
	var elems []Datum
	haveEmpty, haveFull := false, false
	for i, d := range subs {
		a := ArrayParts(d)
		if len(a.Dims) == 0 {
			haveEmpty = true
			continue
		}
		if !haveFull {
			first, haveFull = a, true
		} else if !sameInts(a.Dims, first.Dims) || !sameInts(a.Lbounds, first.Lbounds) {
			return Datum{}, mismatchedSubArrays()
		}
		if len(first.Dims) >= maxArrayDims {
			return Datum{}, tooManyArrayDims(len(first.Dims) + 1)
		}
		elems = append(elems, a.Elems...)
		_ = i
	}
	if !haveFull {
		return Array(nil), nil
	}
	if haveEmpty {
		return Datum{}, mismatchedSubArrays()
	}
	dims := append([]int{len(subs)}, first.Dims...)
	lbs := append([]int{1}, first.Lbounds...)
	return ArrayShaped(dims, lbs, elems), nil
}

func mismatchedSubArrays() error {
	return pgerr.Errorf(pgerr.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
}

// CheckAccumArray is array_agg(anyarray)'s check of one more input d
// against those accumulated: no NULL or empty arrays, all of one shape.
func CheckAccumArray(acc []Datum, d Datum) error {
	if d.IsNull() {
		return pgerr.Errorf(pgerr.NullValueNotAllowed, "cannot accumulate null arrays")
	}
	dims, lbs := d.ArrayDims()
	if len(dims) == 0 {
		return pgerr.Errorf(pgerr.ArraySubscriptError, "cannot accumulate empty arrays")
	}
	if len(acc) > 0 {
		d0, l0 := acc[0].ArrayDims()
		if !sameInts(dims, d0) || !sameInts(lbs, l0) {
			return pgerr.Errorf(pgerr.ArraySubscriptError, "cannot accumulate arrays of different dimensionality")
		}
	} else if len(dims) >= maxArrayDims {
		return tooManyArrayDims(len(dims) + 1)
	}
	return nil
}

// multiUnnest is unnest(a, b, …) in FROM (ROWS FROM (unnest(a), unnest(b),
// …)): one column per array, as many rows as the longest, NULL-padded.
func multiUnnest(args []Type) *SRF {
	cols := make([]SRFColumn, len(args))
	for i, t := range args {
		et, ok := ElemType(t)
		if !ok {
			return nil
		}
		et.Typmod = t.Typmod
		cols[i] = SRFColumn{Name: "unnest", Type: et}
	}
	return &SRF{Name: "unnest", Args: args, Cols: cols, NonStrict: true, FnRows: func(x []Datum) (func() ([]Datum, bool, error), error) {
		elems := make([][]Datum, len(x))
		n := 0
		for i, a := range x {
			elems[i] = a.Elems()
			n = max(n, len(elems[i]))
		}
		r := 0
		return func() ([]Datum, bool, error) {
			if r >= n {
				return nil, false, nil
			}
			row := make([]Datum, len(elems))
			for i, e := range elems {
				if r < len(e) {
					row[i] = e[r]
				}
			}
			r++
			return row, true, nil
		}, nil
	}}
}
