package types

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Binary I/O: PostgreSQL's send/recv functions, used for binary-format
// parameters and results of the extended query protocol and for COPY
// (FORMAT binary).
//
//	bool          1 byte, 0 or 1 (recv: any non-zero byte is true)
//	bytea         the raw bytes
//	"char"        1 byte
//	name          the raw bytes (recv: at most 63)
//	int2/4/8, oid big-endian two's complement (oid unsigned 32-bit)
//	float4/8      IEEE 754 big-endian
//	text, varchar, bpchar, unknown
//	              the raw bytes (recv applies the typmod like the text input)
//	timestamp, timestamptz
//	              int64 big-endian microseconds since 2000-01-01 00:00:00
//	              (math.MinInt64 / MaxInt64 are -infinity / infinity)
//	int2vector    array_send of a 1-D int2 array with lower bound 0
//	arrays        array_send of a 1-D array with lower bound 1 (array_binary.go)
//	numeric       int16 ndigits, int16 weight, uint16 sign, int16 dscale,
//	              ndigits base-10000 int16 digits (see numeric.go)

// AppendBinary appends the binary send format of d (not NULL) to dst.
func AppendBinary(dst []byte, t Type, d Datum) []byte {
	if out, ok := sendNewType(dst, t, d); ok {
		return out
	}
	if IsArray(t) {
		return appendArrayBinary(dst, t, d)
	}
	switch t.OID {
	case RecordOID:
		return appendRecordBinary(dst, d)
	case BoolOID:
		if d.Int() != 0 {
			return append(dst, 1)
		}
		return append(dst, 0)
	case CharOID:
		return append(dst, byte(d.Int()))
	case Int2OID:
		return binary.BigEndian.AppendUint16(dst, uint16(int16(d.Int())))
	case Int4OID, OidOID, RegtypeOID:
		return binary.BigEndian.AppendUint32(dst, uint32(d.Int()))
	case Int8OID, TimestampOID, TimestamptzOID:
		return binary.BigEndian.AppendUint64(dst, uint64(d.Int()))
	case Float4OID:
		if math.IsNaN(d.Float()) {
			return binary.BigEndian.AppendUint32(dst, 0x7fc00000) // PostgreSQL's NaN
		}
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.Float())))
	case Float8OID:
		if math.IsNaN(d.Float()) {
			return binary.BigEndian.AppendUint64(dst, 0x7ff8000000000000)
		}
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(d.Float()))
	case Int2VectorOID:
		v := d.Int2Vector()
		if len(v) == 0 {
			dst = binary.BigEndian.AppendUint32(dst, 0) // ndim
			dst = binary.BigEndian.AppendUint32(dst, 0) // flags
			return binary.BigEndian.AppendUint32(dst, Int2OID)
		}
		dst = binary.BigEndian.AppendUint32(dst, 1)
		dst = binary.BigEndian.AppendUint32(dst, 0)
		dst = binary.BigEndian.AppendUint32(dst, Int2OID)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		dst = binary.BigEndian.AppendUint32(dst, 0) // lower bound
		for _, x := range v {
			dst = binary.BigEndian.AppendUint32(dst, 2)
			dst = binary.BigEndian.AppendUint16(dst, uint16(x))
		}
		return dst
	case VoidOID:
		return dst
	case NumericOID:
		return appendNumericBinary(dst, d.Str())
	}
	if d.Kind() == kArr {
		return appendArrayBinary(dst, t, d)
	}
	switch d.Kind() {
	case kInt:
		return binary.BigEndian.AppendUint64(dst, uint64(d.Int()))
	case kFloat:
		return binary.BigEndian.AppendUint64(dst, uint64(d.Int()))
	case kBool:
		return AppendBinary(dst, Boolean, d)
	case kTime:
		return binary.BigEndian.AppendUint64(dst, uint64(d.Int()))
	}
	// text, varchar, bpchar, name, unknown, bytea
	return append(dst, d.Str()...)
}

// errInsufficient is what PostgreSQL's pq_getmsg* report for a value
// shorter than its type's binary format.
func errInsufficient() error {
	return pgerr.Errorf(pgerr.ProtocolViolation, "insufficient data left in message")
}

// ErrBinaryFormat is the SQLSTATE of a binary value longer than its type's
// format (the caller adds "in bind parameter N" / COPY context).
const ErrBinaryFormat = "22P03"

func errBinaryFormat() error {
	return pgerr.Errorf(ErrBinaryFormat, "incorrect binary data format")
}

func fixedLen(b []byte, n int) error {
	if len(b) < n {
		return errInsufficient()
	}
	if len(b) > n {
		return errBinaryFormat()
	}
	return nil
}

// ParseBinary is the type's receive function: it decodes the binary format
// b (not NULL) into a datum of type t, applying t's typmod as the text
// input does (varchar(n)/char(n) lengths, timestamp(p) precision). b is not
// retained.
func ParseBinary(t Type, b []byte) (Datum, error) {
	if d, err, ok := recvNewType(t, b); ok {
		return d, err
	}
	if IsArray(t) {
		return recvArray(t, b)
	}
	switch t.OID {
	case BoolOID:
		if err := fixedLen(b, 1); err != nil {
			return Datum{}, err
		}
		return Bool(b[0] != 0), nil
	case CharOID:
		if err := fixedLen(b, 1); err != nil {
			return Datum{}, err
		}
		return Int(int64(b[0])), nil
	case Int2OID:
		if err := fixedLen(b, 2); err != nil {
			return Datum{}, err
		}
		return Int(int64(int16(binary.BigEndian.Uint16(b)))), nil
	case Int4OID:
		if err := fixedLen(b, 4); err != nil {
			return Datum{}, err
		}
		return Int(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case OidOID, RegtypeOID:
		if err := fixedLen(b, 4); err != nil {
			return Datum{}, err
		}
		return Int(int64(binary.BigEndian.Uint32(b))), nil
	case Int8OID:
		if err := fixedLen(b, 8); err != nil {
			return Datum{}, err
		}
		return Int(int64(binary.BigEndian.Uint64(b))), nil
	case Float4OID:
		if err := fixedLen(b, 4); err != nil {
			return Datum{}, err
		}
		return Float(float64(math.Float32frombits(binary.BigEndian.Uint32(b)))), nil
	case Float8OID:
		if err := fixedLen(b, 8); err != nil {
			return Datum{}, err
		}
		return Float(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case TimestampOID, TimestamptzOID:
		if err := fixedLen(b, 8); err != nil {
			return Datum{}, err
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v != TimestampInfinity && v != TimestampNegInfinity {
			if v < minTimestamp || v >= endTimestamp {
				return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range")
			}
			if t.Typmod >= 0 {
				v = adjustTimestampTypmod(v, t.Typmod)
			}
		}
		return TimestampMicros(v), nil
	case ByteaOID:
		return Str(string(b)), nil
	case TextOID, UnknownOID:
		if !utf8.Valid(b) {
			return Datum{}, invalidUTF8(b)
		}
		return Str(string(b)), nil
	case VarcharOID, BpcharOID:
		if !utf8.Valid(b) {
			return Datum{}, invalidUTF8(b)
		}
		return Parse(t, string(b))
	case NameOID:
		if !utf8.Valid(b) {
			return Datum{}, invalidUTF8(b)
		}
		if len(b) >= NameDataLen {
			return Datum{}, pgerr.Errorf("42622", "identifier too long").
				WithDetail("Identifier must be less than %d characters.", NameDataLen)
		}
		return Str(string(b)), nil
	case Int2VectorOID:
		return recvInt2Vector(b)
	case VoidOID:
		return Datum{}, nil
	case NumericOID:
		return recvNumeric(b, t.Typmod)
	}
	if IsArray(t) {
		return recvArray(t, b)
	}
	return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "binary input of type %s is not supported", t.String())
}

func invalidUTF8(b []byte) error {
	i := 0
	for i < len(b) {
		r, sz := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && sz <= 1 {
			break
		}
		i += sz
	}
	return pgerr.Errorf(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", b[i])
}

func recvInt2Vector(b []byte) (Datum, error) {
	rd := func(off int) (uint32, bool) {
		if off+4 > len(b) {
			return 0, false
		}
		return binary.BigEndian.Uint32(b[off:]), true
	}
	ndim, ok1 := rd(0)
	flags, ok2 := rd(4)
	elem, ok3 := rd(8)
	if !ok1 || !ok2 || !ok3 {
		return Datum{}, errInsufficient()
	}
	bad := pgerr.Errorf("22P03", "invalid int2vector data")
	if flags != 0 || elem != Int2OID {
		return Datum{}, bad
	}
	if ndim == 0 {
		if len(b) != 12 {
			return Datum{}, errBinaryFormat()
		}
		return Int2Vector(nil), nil
	}
	if ndim != 1 {
		return Datum{}, bad
	}
	n, ok1 := rd(12)
	lb, ok2 := rd(16)
	if !ok1 || !ok2 {
		return Datum{}, errInsufficient()
	}
	if lb != 0 || n > 100000 {
		return Datum{}, bad
	}
	v := make([]int16, 0, n)
	off := 20
	for i := uint32(0); i < n; i++ {
		l, ok := rd(off)
		if !ok {
			return Datum{}, errInsufficient()
		}
		if int32(l) == -1 {
			return Datum{}, bad
		}
		if l != 2 {
			return Datum{}, errBinaryFormat()
		}
		if off+6 > len(b) {
			return Datum{}, errInsufficient()
		}
		v = append(v, int16(binary.BigEndian.Uint16(b[off+4:])))
		off += 6
	}
	if off != len(b) {
		return Datum{}, errBinaryFormat()
	}
	return Int2Vector(v), nil
}
