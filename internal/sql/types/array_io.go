package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// ArrayValue is an array datum taken apart: its dimensions, lower bounds
// and elements in row-major order. An empty array has no dimensions.
type ArrayValue struct {
	Dims, Lbounds []int
	Elems         []Datum
}

// ArrayParts takes an array datum apart.
func ArrayParts(d Datum) ArrayValue {
	dims, lbs := d.ArrayDims()
	return ArrayValue{Dims: dims, Lbounds: lbs, Elems: d.Elems()}
}

// Datum puts the array back together.
func (a ArrayValue) Datum() Datum { return datum.ArrayShaped(a.Dims, a.Lbounds, a.Elems) }

// Ndims is the number of dimensions (0 for an empty array).
func (a ArrayValue) Ndims() int { return len(a.Dims) }

// ArrayShaped returns an array datum of the given shape.
func ArrayShaped(dims, lbounds []int, elems []Datum) Datum {
	return datum.ArrayShaped(dims, lbounds, elems)
}

func arrayNeedsQuote(s string) bool {
	if s == "" || strings.EqualFold(s, "NULL") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '}', ',', '"', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
	}
	return false
}

// appendArray is array_out: "[lb:ub]...=" when any lower bound is not 1,
// then the elements nested in braces by dimension.
func appendArray(st *Settings, dst []byte, t Type, d Datum) []byte {
	et, _ := ElemType(t)
	a := ArrayParts(d)
	if len(a.Dims) == 0 {
		return append(dst, "{}"...)
	}
	for _, lb := range a.Lbounds {
		if lb != 1 {
			for i := range a.Dims {
				dst = append(dst, '[')
				dst = strconv.AppendInt(dst, int64(a.Lbounds[i]), 10)
				dst = append(dst, ':')
				dst = strconv.AppendInt(dst, int64(a.Lbounds[i]+a.Dims[i]-1), 10)
				dst = append(dst, ']')
			}
			dst = append(dst, '=')
			break
		}
	}
	next := 0
	var level func(dim int)
	level = func(dim int) {
		dst = append(dst, '{')
		for i := 0; i < a.Dims[dim]; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dim+1 < len(a.Dims) {
				level(dim + 1)
				continue
			}
			dst = appendArrayElem(st, dst, et, a.Elems[next])
			next++
		}
		dst = append(dst, '}')
	}
	level(0)
	return dst
}

func appendArrayElem(st *Settings, dst []byte, et Type, e Datum) []byte {
	if e.IsNull() {
		return append(dst, "NULL"...)
	}
	s := string(AppendTextWith(st, nil, et, e))
	if !arrayNeedsQuote(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for j := 0; j < len(s); j++ {
		if s[j] == '"' || s[j] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[j])
	}
	return append(dst, '"')
}

func malformedArray(s, detail string) error {
	return pgerr.Errorf(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s).WithDetail("%s", detail)
}

func tooManyArrayDims(n int) error {
	return pgerr.Errorf(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, maxArrayDims)
}

// arrayText is array_in's reading of one literal.
type arrayText struct {
	src   string // the whole literal, for messages
	s     string
	p     int
	dims  []int  // per depth, the length every sub-array there must have
	leaf  []int8 // per depth: 0 unknown, 1 holds sub-arrays, 2 holds elements
	elems []string
	nulls []bool
}

func (r *arrayText) fail(detail string) error { return malformedArray(r.src, detail) }

func (r *arrayText) skipSpace() {
	for r.p < len(r.s) && isSpace(r.s[r.p]) {
		r.p++
	}
}

func (r *arrayText) unexpected(c byte) error {
	return r.fail("Unexpected \"" + string(c) + "\" character.")
}

// parseArray is array_in.
func parseArray(st *Settings, t Type, s string) (Datum, error) {
	r := &arrayText{src: s, s: s}
	dims, lbs, err := r.readDimensions()
	if err != nil {
		return Datum{}, err
	}
	r.skipSpace()
	if r.p >= len(r.s) || r.s[r.p] != '{' {
		if dims != nil {
			return Datum{}, r.fail("Array contents must start with \"{\".")
		}
		return Datum{}, r.fail("Array value must start with \"{\" or dimension information.")
	}
	empty, err := r.readLevel(0)
	if err != nil {
		return Datum{}, err
	}
	r.skipSpace()
	if r.p < len(r.s) {
		return Datum{}, r.fail("Junk after closing right brace.")
	}
	if empty {
		if dims != nil {
			return Datum{}, r.fail("Specified array dimensions do not match array contents.")
		}
		return Array(nil), nil
	}
	if dims == nil {
		dims, lbs = r.dims, make([]int, len(r.dims))
		for i := range lbs {
			lbs[i] = 1
		}
	} else if len(dims) != len(r.dims) {
		return Datum{}, r.fail("Specified array dimensions do not match array contents.")
	} else {
		for i := range dims {
			if dims[i] != r.dims[i] {
				return Datum{}, r.fail("Specified array dimensions do not match array contents.")
			}
		}
	}
	et := elemTypeOf(t)
	elems := make([]Datum, len(r.elems))
	for i, v := range r.elems {
		if r.nulls[i] {
			continue
		}
		d, err := ParseWith(st, et, v)
		if err != nil {
			return Datum{}, err
		}
		elems[i] = d
	}
	return ArrayShaped(dims, lbs, elems), nil
}

// readDimensions reads an optional "[lb:ub][lb:ub]=" prefix, returning
// lengths and lower bounds (nil when there is none).
func (r *arrayText) readDimensions() (dims, lbs []int, err error) {
	for {
		r.skipSpace()
		if r.p >= len(r.s) || r.s[r.p] != '[' {
			break
		}
		r.p++
		if len(dims) >= maxArrayDims {
			return nil, nil, tooManyArrayDims(len(dims) + 1)
		}
		lo, ok := r.readBound()
		if !ok {
			return nil, nil, r.fail("\"[\" must introduce explicitly-specified array dimensions.")
		}
		hi := lo
		lb := 1
		if r.p < len(r.s) && r.s[r.p] == ':' {
			r.p++
			lb = lo
			if hi, ok = r.readBound(); !ok {
				return nil, nil, r.fail("Missing array dimension value.")
			}
		}
		if r.p >= len(r.s) || r.s[r.p] != ']' {
			return nil, nil, r.fail("Missing \"]\" after array dimensions.")
		}
		r.p++
		if hi < lb {
			return nil, nil, pgerr.Errorf(pgerr.ArraySubscriptError, "upper bound cannot be less than lower bound")
		}
		dims, lbs = append(dims, hi-lb+1), append(lbs, lb)
	}
	if dims == nil {
		return nil, nil, nil
	}
	if r.p >= len(r.s) || r.s[r.p] != '=' {
		return nil, nil, r.fail("Missing \"=\" after array dimensions.")
	}
	r.p++
	return dims, lbs, nil
}

func (r *arrayText) readBound() (int, bool) {
	start := r.p
	if r.p < len(r.s) && (r.s[r.p] == '-' || r.s[r.p] == '+') {
		r.p++
	}
	for r.p < len(r.s) && r.s[r.p] >= '0' && r.s[r.p] <= '9' {
		r.p++
	}
	v, err := strconv.Atoi(r.s[start:r.p])
	if err != nil {
		return 0, false
	}
	return v, true
}

// readLevel reads one brace-enclosed level at depth (r.p at its "{") and
// reports whether it was "{}" (allowed only as the whole array).
func (r *arrayText) readLevel(depth int) (bool, error) {
	if depth >= maxArrayDims {
		return false, tooManyArrayDims(depth + 1)
	}
	if len(r.leaf) <= depth {
		r.leaf = append(r.leaf, 0)
		r.dims = append(r.dims, -1)
	}
	r.p++
	r.skipSpace()
	if r.p < len(r.s) && r.s[r.p] == '}' {
		if depth > 0 {
			return false, r.unexpected('}')
		}
		r.p++
		return true, nil
	}
	n := 0
	for {
		r.skipSpace()
		if r.p >= len(r.s) {
			return false, r.fail("Unexpected end of input.")
		}
		c := r.s[r.p]
		if c == '{' {
			if r.leaf[depth] == 2 {
				return false, r.unexpected(c)
			}
			r.leaf[depth] = 1
			if _, err := r.readLevel(depth + 1); err != nil {
				return false, err
			}
		} else {
			if r.leaf[depth] == 1 || c == '}' || c == ',' {
				return false, r.unexpected(c)
			}
			r.leaf[depth] = 2
			if len(r.leaf) > depth+1 {
				return false, r.fail("Multidimensional arrays must have sub-arrays with matching dimensions.")
			}
			if err := r.readElem(); err != nil {
				return false, err
			}
		}
		n++
		r.skipSpace()
		if r.p >= len(r.s) {
			return false, r.fail("Unexpected end of input.")
		}
		switch r.s[r.p] {
		case ',':
			r.p++
			continue
		case '}':
			r.p++
		default:
			return false, r.fail("Unexpected array element.")
		}
		break
	}
	if r.dims[depth] >= 0 && r.dims[depth] != n {
		return false, r.fail("Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	r.dims[depth] = n
	return false, nil
}

// readElem reads one element, quoted or not; an unquoted NULL is NULL.
func (r *arrayText) readElem() error {
	var sb strings.Builder
	if r.s[r.p] == '"' {
		r.p++
		for {
			if r.p >= len(r.s) {
				return r.fail("Unexpected end of input.")
			}
			c := r.s[r.p]
			if c == '"' {
				r.p++
				break
			}
			if c == '\\' {
				r.p++
				if r.p >= len(r.s) {
					return r.fail("Unexpected end of input.")
				}
				c = r.s[r.p]
			}
			sb.WriteByte(c)
			r.p++
		}
		r.elems, r.nulls = append(r.elems, sb.String()), append(r.nulls, false)
		return nil
	}
	keep := 0 // length without trailing unescaped whitespace
	escaped := false
	for r.p < len(r.s) {
		c := r.s[r.p]
		if c == ',' || c == '}' {
			break
		}
		switch c {
		case '{', '"':
			return r.unexpected(c)
		case '\\':
			r.p++
			if r.p >= len(r.s) {
				return r.fail("Unexpected end of input.")
			}
			sb.WriteByte(r.s[r.p])
			escaped = true
			keep = sb.Len()
			r.p++
			continue
		}
		sb.WriteByte(c)
		if !isSpace(c) {
			keep = sb.Len()
		}
		r.p++
	}
	v := sb.String()[:keep]
	isNull := !escaped && strings.EqualFold(v, "NULL")
	r.elems, r.nulls = append(r.elems, v), append(r.nulls, isNull)
	return nil
}
