package types

import (
	"encoding/binary"
	"github.com/tidal-db/tidal/internal/datum"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// The binary format of arrays (array_send / array_recv):
//
//	int32 ndim, int32 flags (1 = has NULLs), uint32 element type OID,
//	per dimension int32 length and int32 lower bound,
//	per element int32 byte length (-1 for NULL) and the element's binary
//	format.
//
// An empty array has ndim 0 and no dimensions.

// maxArrayDims is PostgreSQL's MAXDIM.
const maxArrayDims = datum.MaxArrayDims

// MaxArrayDims is PostgreSQL's MAXDIM.
const MaxArrayDims = maxArrayDims

// maxArrayElems is PostgreSQL's MaxArraySize (MaxAllocSize / sizeof(Datum)).
const maxArrayElems = (1<<30 - 1) / 8

// CheckArraySize is the check of a new array's number of elements.
func CheckArraySize(n int64) error {
	if n < 0 || n > maxArrayElems {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayElems)
	}
	return nil
}

// elemTypeOf is the element type of array type t, with t's typmod (an
// array column's typmod applies to its elements, as for varchar(3)[]).
func elemTypeOf(t Type) Type {
	et, _ := ElemType(t)
	et.Typmod = t.Typmod
	return et
}

func appendArrayBinary(dst []byte, t Type, d Datum) []byte {
	et := elemTypeOf(t)
	a := ArrayParts(d)
	var flags uint32
	for _, e := range a.Elems {
		if e.IsNull() {
			flags = 1
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(a.Dims)))
	dst = binary.BigEndian.AppendUint32(dst, flags)
	dst = binary.BigEndian.AppendUint32(dst, et.OID)
	for i := range a.Dims {
		dst = binary.BigEndian.AppendUint32(dst, uint32(a.Dims[i]))
		dst = binary.BigEndian.AppendUint32(dst, uint32(int32(a.Lbounds[i])))
	}
	for _, e := range a.Elems {
		if e.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
			continue
		}
		lenAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = AppendBinary(dst, et, e)
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
	}
	return dst
}

func recvArray(t Type, b []byte) (Datum, error) {
	et := elemTypeOf(t)
	word := func() (uint32, error) {
		if len(b) < 4 {
			return 0, errInsufficient()
		}
		v := binary.BigEndian.Uint32(b)
		b = b[4:]
		return v, nil
	}
	ndim, err := word()
	if err != nil {
		return Datum{}, err
	}
	flags, err := word()
	if err != nil {
		return Datum{}, err
	}
	elemOID, err := word()
	if err != nil {
		return Datum{}, err
	}
	switch {
	case int32(ndim) < 0:
		return Datum{}, pgerr.Errorf(ErrBinaryFormat, "invalid number of dimensions: %d", int32(ndim))
	case ndim > maxArrayDims:
		return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim, maxArrayDims)
	case flags != 0 && flags != 1:
		return Datum{}, pgerr.Errorf(ErrBinaryFormat, "invalid array flags")
	case elemOID != et.OID:
		return Datum{}, pgerr.Errorf(pgerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)",
			elemOID, typeNameOrOID(elemOID), et.OID, et.String())
	}
	dims, lbs := make([]int, ndim), make([]int, ndim)
	total := 1
	for i := range dims {
		n, err := word()
		if err != nil {
			return Datum{}, err
		}
		lb, err := word()
		if err != nil {
			return Datum{}, err
		}
		if int32(n) < 0 || int64(int32(lb))+int64(n) > 1<<31 {
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed")
		}
		dims[i], lbs[i] = int(n), int(int32(lb))
		total *= int(n)
		if total > maxArrayElems {
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayElems)
		}
	}
	if ndim == 0 {
		total = 0
	}
	elems := make([]Datum, 0, min(total, len(b)/4))
	for i := 0; i < total; i++ {
		l, err := word()
		if err != nil {
			return Datum{}, err
		}
		if int32(l) == -1 {
			elems = append(elems, Datum{})
			continue
		}
		if int32(l) < 0 {
			return Datum{}, pgerr.Errorf(ErrBinaryFormat, "insufficient data left in message")
		}
		if int(l) > len(b) {
			return Datum{}, errInsufficient()
		}
		e, err := ParseBinary(et, b[:l])
		if err != nil {
			return Datum{}, err
		}
		elems = append(elems, e)
		b = b[l:]
	}
	if len(b) != 0 {
		return Datum{}, errBinaryFormat()
	}
	return ArrayShaped(dims, lbs, elems), nil
}

func typeNameOrOID(oid OID) string {
	if t, ok := TypeByOID(oid); ok {
		return t.String()
	}
	return "???"
}

// applyArrayTypmod is the length coercion of an array type: each element
// gets the element type's (array_length_coerce).
func applyArrayTypmod(d Datum, t Type, explicit bool) (Datum, error) {
	et := elemTypeOf(t)
	a := ArrayParts(d)
	for i, e := range a.Elems {
		v, err := ApplyTypmod(e, et, explicit)
		if err != nil {
			return Datum{}, err
		}
		a.Elems[i] = v
	}
	return a.Datum(), nil
}
