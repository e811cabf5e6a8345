package types

import (
	"math"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// Arrays are one-dimensional with lower bound 1 (what catalog queries
// need). The array datum's representation (Array, Datum.Elems) and the
// array types (IsArray, ArrayOf, ElemType) are package datum's; their SQL
// behaviour (text and binary I/O, casts, functions) is here.

// array type OIDs (pg_type.typarray of the element types).
const (
	BoolArrayOID        = datum.BoolArrayOID
	ByteaArrayOID       = datum.ByteaArrayOID
	CharArrayOID        = datum.CharArrayOID
	NameArrayOID        = datum.NameArrayOID
	Int2ArrayOID        = datum.Int2ArrayOID
	Int2VectorArrayOID  = datum.Int2VectorArrayOID
	Int4ArrayOID        = datum.Int4ArrayOID
	TextArrayOID        = datum.TextArrayOID
	BpcharArrayOID      = datum.BpcharArrayOID
	VarcharArrayOID     = datum.VarcharArrayOID
	Int8ArrayOID        = datum.Int8ArrayOID
	Float4ArrayOID      = datum.Float4ArrayOID
	Float8ArrayOID      = datum.Float8ArrayOID
	OidArrayOID         = datum.OidArrayOID
	TimestampArrayOID   = datum.TimestampArrayOID
	TimestamptzArrayOID = datum.TimestamptzArrayOID
	NumericArrayOID     = datum.NumericArrayOID
)

// arrayFuncElems are the element types whose arrays have the array
// functions (array_position, array_length, cardinality, ...; init below).
var arrayFuncElems = []OID{
	BoolOID, ByteaOID, CharOID, NameOID, Int2OID, Int2VectorOID, Int4OID, TextOID, BpcharOID, VarcharOID,
	Int8OID, Float4OID, Float8OID, OidOID, TimestampOID, TimestamptzOID, NumericOID,
}

var arrayInfos map[OID]*typeInfo

func init() {
	m := map[OID]*typeInfo{}
	datum.EachArrayType(func(e, a OID) {
		ei := info(e)
		m[a] = &typeInfo{typname: "_" + ei.typname, fmtName: ei.fmtName + "[]", category: 'A'}
	})
	arrayInfos = m
}

func arrayInfo(oid OID) *typeInfo {
	if arrayInfos == nil {
		return nil
	}
	return arrayInfos[oid]
}

// ArrayOf returns the array type whose elements are t.
func ArrayOf(t Type) (Type, bool) { return datum.ArrayOf(t) }

// ElemType returns the element type of an array type.
func ElemType(t Type) (Type, bool) { return datum.ElemType(t) }

// IsArray reports whether t is an array type.
func IsArray(t Type) bool { return datum.IsArray(t) }

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

func appendArray(st *Settings, dst []byte, t Type, d Datum) []byte {
	et, _ := ElemType(t)
	dst = append(dst, '{')
	for i, e := range d.Elems() {
		if i > 0 {
			dst = append(dst, ',')
		}
		if e.IsNull() {
			dst = append(dst, "NULL"...)
			continue
		}
		s := string(AppendTextWith(st, nil, et, e))
		if arrayNeedsQuote(s) {
			dst = append(dst, '"')
			for j := 0; j < len(s); j++ {
				if s[j] == '"' || s[j] == '\\' {
					dst = append(dst, '\\')
				}
				dst = append(dst, s[j])
			}
			dst = append(dst, '"')
		} else {
			dst = append(dst, s...)
		}
	}
	return append(dst, '}')
}

func malformedArray(s, detail string) error {
	return pgerr.Errorf(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s).WithDetail("%s", detail)
}

// parseArray is array_in for one-dimensional arrays.
func parseArray(st *Settings, t Type, s string) (Datum, error) {
	et := elemTypeOf(t)
	in := strings.TrimSpace(s)
	if len(in) == 0 || in[0] != '{' {
		return Datum{}, malformedArray(s, "Array value must start with \"{\" or dimension information.")
	}
	if in[len(in)-1] != '}' {
		return Datum{}, malformedArray(s, "Junk after closing right brace.")
	}
	body := in[1 : len(in)-1]
	var elems []Datum
	if strings.TrimSpace(body) == "" {
		return Array(nil), nil
	}
	i := 0
	for {
		for i < len(body) && isSpace(body[i]) {
			i++
		}
		var sb strings.Builder
		quoted := false
		if i < len(body) && body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				sb.WriteByte(body[i])
				i++
			}
			if i >= len(body) {
				return Datum{}, malformedArray(s, "Unexpected end of input.")
			}
			i++
			for i < len(body) && isSpace(body[i]) {
				i++
			}
		} else {
			for i < len(body) && body[i] != ',' {
				if body[i] == '{' || body[i] == '}' || body[i] == '"' {
					return Datum{}, malformedArray(s, "Unexpected array element.")
				}
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				sb.WriteByte(body[i])
				i++
			}
		}
		v := sb.String()
		if !quoted {
			v = strings.TrimRight(v, " \t\n\r\v\f")
			if v == "" {
				return Datum{}, malformedArray(s, "Unexpected \",\" character.")
			}
		}
		if !quoted && strings.EqualFold(v, "NULL") {
			elems = append(elems, Datum{})
		} else {
			d, err := ParseWith(st, et, v)
			if err != nil {
				return Datum{}, err
			}
			elems = append(elems, d)
		}
		if i >= len(body) {
			break
		}
		if body[i] != ',' {
			return Datum{}, malformedArray(s, "Unexpected array element.")
		}
		i++
	}
	return Array(elems), nil
}

func compareArrays(t Type, a, b Datum) int {
	et, _ := ElemType(t)
	x, y := a.Elems(), b.Elems()
	for i := 0; i < len(x) && i < len(y); i++ {
		switch {
		case x[i].IsNull() && y[i].IsNull():
			continue
		case x[i].IsNull():
			return 1
		case y[i].IsNull():
			return -1
		}
		if c := Compare(et, x[i], y[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(x)), int64(len(y)))
}

// castArray converts each element of an array.
func castArray(st *Settings, d Datum, from, to Type, ctx CastContext) (Datum, error) {
	if from.OID == Int2VectorOID {
		var elems []Datum
		for _, v := range d.Int2Vector() {
			elems = append(elems, Int(int64(v)))
		}
		d, from = Array(elems), Type{OID: Int2ArrayOID, Typmod: -1}
		if to.OID == Int2ArrayOID {
			return d, nil
		}
	}
	fe, _ := ElemType(from)
	te := elemTypeOf(to)
	elems := d.Elems()
	for i, e := range elems {
		v, err := CastWith(st, e, fe, te, ctx)
		if err != nil {
			return Datum{}, err
		}
		elems[i] = v
	}
	return Array(elems), nil
}

func arrayCastContext(from, to OID) (CastContext, bool) {
	if from == Int2VectorOID && to == Int2ArrayOID {
		return CastImplicit, true
	}
	fe, ok1 := ElemType(Type{OID: from, Typmod: -1})
	te, ok2 := ElemType(Type{OID: to, Typmod: -1})
	if !ok1 || !ok2 {
		return 0, false
	}
	return castContext(fe.OID, te.OID)
}

// ArrayPosition is array_position(arr, v): the 1-based index of the first
// element equal to v, or NULL.
func ArrayPosition(t Type, arr, v Datum) Datum {
	et, _ := ElemType(t)
	for i, e := range arr.Elems() {
		if e.IsNull() && v.IsNull() {
			return Int(int64(i + 1))
		}
		if !e.IsNull() && !v.IsNull() && Equal(et, e, v) {
			return Int(int64(i + 1))
		}
	}
	return Datum{}
}

func init() {
	for _, e := range arrayFuncElems {
		et := Type{OID: e, Typmod: -1}
		at, _ := ArrayOf(et)
		addFunc("array_position", &Func{Args: []Type{at, et}, Ret: Int4, Fn: func(x []Datum) (Datum, error) {
			if x[0].IsNull() {
				return Datum{}, nil
			}
			return ArrayPosition(at, x[0], x[1]), nil
		}})
		length := func(x []Datum) (Datum, error) {
			n := len(x[0].Elems())
			if n == 0 || (len(x) > 1 && x[1].Int() != 1) {
				return Datum{}, nil
			}
			return Int(int64(n)), nil
		}
		fn("array_length", []Type{at, Int4}, Int4, length)
		fn("array_upper", []Type{at, Int4}, Int4, length)
		fn("array_lower", []Type{at, Int4}, Int4, func(x []Datum) (Datum, error) {
			if len(x[0].Elems()) == 0 || x[1].Int() != 1 {
				return Datum{}, nil
			}
			return Int(1), nil
		})
		fn("cardinality", []Type{at}, Int4, func(x []Datum) (Datum, error) { return Int(int64(len(x[0].Elems()))), nil })
		fn("array_ndims", []Type{at}, Int4, func(x []Datum) (Datum, error) {
			if len(x[0].Elems()) == 0 {
				return Datum{}, nil
			}
			return Int(1), nil
		})
		fn("array_to_string", []Type{at, Text}, Text, func(x []Datum) (Datum, error) {
			var parts []string
			for _, el := range x[0].Elems() {
				if !el.IsNull() {
					parts = append(parts, FormatText(et, el))
				}
			}
			return Str(strings.Join(parts, x[1].Str())), nil
		})
		fn("array_append", []Type{at, et}, at, func(x []Datum) (Datum, error) {
			return Array(append(x[0].Elems(), x[1])), nil
		})
		// array_cat and anyarray || anyarray: a NULL side is an empty array.
		cat := &Func{Args: []Type{at, at}, Ret: at, Fn: func(x []Datum) (Datum, error) {
			if x[0].IsNull() && x[1].IsNull() {
				return Datum{}, nil
			}
			return Array(append(x[0].Elems(), x[1].Elems()...)), nil
		}}
		addFunc("array_cat", cat)
		addOp("||", cat)
		for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
			op := op
			addOp(op, &Func{Args: []Type{at, at}, Ret: Boolean, Fn: func(x []Datum) (Datum, error) {
				c := compareArrays(at, x[0], x[1])
				var r bool
				switch op {
				case "=":
					r = c == 0
				case "<>":
					r = c != 0
				case "<":
					r = c < 0
				case "<=":
					r = c <= 0
				case ">":
					r = c > 0
				default:
					r = c >= 0
				}
				return Bool(r), nil
			}})
		}
		srfs["unnest"] = append(srfs["unnest"], &SRF{Name: "unnest", Args: []Type{at}, Ret: et, Fn: func(x []Datum) (func() (Datum, bool, error), error) {
			elems := x[0].Elems()
			i := 0
			return func() (Datum, bool, error) {
				if i >= len(elems) {
					return Datum{}, false, nil
				}
				i++
				return elems[i-1], true, nil
			}, nil
		}})
		srfs["generate_subscripts"] = append(srfs["generate_subscripts"], &SRF{Name: "generate_subscripts", Args: []Type{at, Int4}, Ret: Int4, Fn: func(x []Datum) (func() (Datum, bool, error), error) {
			n := len(x[0].Elems())
			if x[1].Int() != 1 {
				n = 0
			}
			i := 0
			return func() (Datum, bool, error) {
				if i >= n {
					return Datum{}, false, nil
				}
				i++
				return Int(int64(i)), true, nil
			}, nil
		}})
	}
}

var _ = math.MaxInt
