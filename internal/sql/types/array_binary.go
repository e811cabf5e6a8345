package types

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// The binary format of arrays (array_send / array_recv):
//
//	int32 ndim, int32 flags (1 = has NULLs), uint32 element type OID,
//	per dimension int32 length and int32 lower bound,
//	per element int32 byte length (-1 for NULL) and the element's binary
//	format.
//
// An empty array has ndim 0 and no dimensions. tidal's arrays are
// one-dimensional with lower bound 1, so that is all array_recv accepts.

// maxArrayDims is PostgreSQL's MAXDIM.
const maxArrayDims = 6

// elemTypeOf is the element type of array type t, with t's typmod (an
// array column's typmod applies to its elements, as for varchar(3)[]).
func elemTypeOf(t Type) Type {
	et, _ := ElemType(t)
	et.Typmod = t.Typmod
	return et
}

func appendArrayBinary(dst []byte, t Type, d Datum) []byte {
	et := elemTypeOf(t)
	elems := d.Elems()
	if len(elems) == 0 {
		dst = binary.BigEndian.AppendUint32(dst, 0)
		dst = binary.BigEndian.AppendUint32(dst, 0)
		return binary.BigEndian.AppendUint32(dst, et.OID)
	}
	var flags uint32
	for _, e := range elems {
		if e.IsNull() {
			flags = 1
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, flags)
	dst = binary.BigEndian.AppendUint32(dst, et.OID)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(elems)))
	dst = binary.BigEndian.AppendUint32(dst, 1)
	for _, e := range elems {
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
	case ndim > 1:
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	case ndim == 0:
		if len(b) != 0 {
			return Datum{}, errBinaryFormat()
		}
		return Array(nil), nil
	}
	n, err := word()
	if err != nil {
		return Datum{}, err
	}
	lbound, err := word()
	if err != nil {
		return Datum{}, err
	}
	if int32(n) < 0 {
		return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed")
	}
	if lbound != 1 && n > 0 {
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
	}
	elems := make([]Datum, 0, min(int(n), len(b)/4))
	for i := uint32(0); i < n; i++ {
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
	return Array(elems), nil
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
	elems := d.Elems()
	for i, e := range elems {
		v, err := ApplyTypmod(e, et, explicit)
		if err != nil {
			return Datum{}, err
		}
		elems[i] = v
	}
	return Array(elems), nil
}
