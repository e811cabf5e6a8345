package types

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// array_send / array_recv for tidal's one-dimensional arrays:
//
//	int32 ndim (0 for an empty array, else 1), int32 flags (1 when some
//	element is NULL), uint32 element type OID, then per dimension int32
//	length and int32 lower bound (1), then per element int32 byte length
//	(-1 for NULL) and the element's own binary format.

func appendArrayBinary(dst []byte, t Type, d Datum) []byte {
	et, _ := ElemType(t)
	elems := d.Elems()
	hasNull := uint32(0)
	for _, e := range elems {
		if e.IsNull() {
			hasNull = 1
		}
	}
	ndim := uint32(1)
	if len(elems) == 0 {
		ndim = 0
	}
	dst = binary.BigEndian.AppendUint32(dst, ndim)
	dst = binary.BigEndian.AppendUint32(dst, hasNull)
	dst = binary.BigEndian.AppendUint32(dst, et.OID)
	if ndim == 0 {
		return dst
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(elems)))
	dst = binary.BigEndian.AppendUint32(dst, 1)
	for _, e := range elems {
		if e.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
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
	et, _ := ElemType(t)
	rd := func(off int) (uint32, error) {
		if off+4 > len(b) {
			return 0, errInsufficient()
		}
		return binary.BigEndian.Uint32(b[off:]), nil
	}
	ndim, err := rd(0)
	if err != nil {
		return Datum{}, err
	}
	flags, err := rd(4)
	if err != nil {
		return Datum{}, err
	}
	elemOID, err := rd(8)
	if err != nil {
		return Datum{}, err
	}
	if flags != 0 && flags != 1 {
		return Datum{}, pgerr.Errorf(ErrBinaryFormat, "invalid array flags")
	}
	if elemOID != et.OID {
		got := "???"
		if gt, ok := TypeByOID(elemOID); ok {
			got = gt.String()
		}
		return Datum{}, pgerr.Errorf(pgerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)", elemOID, got, et.OID, et.String())
	}
	switch {
	case ndim == 0:
		if len(b) != 12 {
			return Datum{}, errBinaryFormat()
		}
		return Array(nil), nil
	case ndim > 1:
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	}
	n, err := rd(12)
	if err != nil {
		return Datum{}, err
	}
	if _, err := rd(16); err != nil { // lower bound: tidal's arrays start at 1
		return Datum{}, err
	}
	if int(n) > (len(b)-20)/4 {
		return Datum{}, errInsufficient()
	}
	elems := make([]Datum, 0, n)
	off := 20
	for i := uint32(0); i < n; i++ {
		l, err := rd(off)
		if err != nil {
			return Datum{}, err
		}
		off += 4
		if int32(l) == -1 {
			elems = append(elems, Datum{})
			continue
		}
		if int32(l) < 0 || off+int(l) > len(b) {
			return Datum{}, errInsufficient()
		}
		e, err := ParseBinary(et, b[off:off+int(l)])
		if err != nil {
			return Datum{}, err
		}
		elems = append(elems, e)
		off += int(l)
	}
	if off != len(b) {
		return Datum{}, errBinaryFormat()
	}
	return Array(elems), nil
}
