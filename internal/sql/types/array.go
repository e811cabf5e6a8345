package types

import (
	"github.com/tidal-db/tidal/internal/datum"
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

// compareArrays is array_cmp: elements in storage order, then the number
// of elements, dimensions, lengths and lower bounds.
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
	if c := cmpInt(int64(len(x)), int64(len(y))); c != 0 {
		return c
	}
	dx, lx := a.ArrayDims()
	dy, ly := b.ArrayDims()
	if c := cmpInt(int64(len(dx)), int64(len(dy))); c != 0 {
		return c
	}
	for i := range dx {
		if c := cmpInt(int64(dx[i]), int64(dy[i])); c != 0 {
			return c
		}
	}
	for i := range lx {
		if c := cmpInt(int64(lx[i]), int64(ly[i])); c != 0 {
			return c
		}
	}
	return 0
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
	a := ArrayParts(d)
	for i, e := range a.Elems {
		if e.IsNull() {
			continue
		}
		v, err := CastWith(st, e, fe, te, ctx)
		if err != nil {
			return Datum{}, err
		}
		a.Elems[i] = v
	}
	return a.Datum(), nil
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
