package types

import (
	"math"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// CastContext is the context a coercion happens in (pg_cast.castcontext).
type CastContext int

const (
	CastImplicit   CastContext = iota // in expressions ('i')
	CastAssignment                    // storing into a column ('a')
	CastExplicit                      // CAST(x AS t), x::t ('e')
)

// errCannotCoerce is SQLSTATE 42846 cannot_coerce.
const errCannotCoerce = "42846"

// castContext returns the least permissive context in which from can be
// cast to to, and whether a cast exists at all.
func castContext(from, to OID) (CastContext, bool) {
	if from == to {
		return CastImplicit, true
	}
	if from == UnknownOID {
		return CastImplicit, info(to) != nil && Category(Type{OID: to}) != 'P'
	}
	if c, ok := numericCastContext(from, to); ok {
		return c, true
	}
	if c, ok := regtypeCastContext(from, to); ok {
		return c, true
	}
	if c, ok, handled := castContextNewType(from, to); handled {
		return c, ok
	}
	switch from {
	case Int2OID:
		switch to {
		case Int4OID, Int8OID, Float4OID, Float8OID, OidOID:
			return CastImplicit, true
		}
	case Int4OID:
		switch to {
		case Int8OID, Float4OID, Float8OID, OidOID:
			return CastImplicit, true
		case Int2OID:
			return CastAssignment, true
		case BoolOID, CharOID:
			return CastExplicit, true
		}
	case Int8OID:
		switch to {
		case Float4OID, Float8OID, OidOID:
			return CastImplicit, true
		case Int2OID, Int4OID:
			return CastAssignment, true
		}
	case Float4OID:
		switch to {
		case Float8OID:
			return CastImplicit, true
		case Int2OID, Int4OID, Int8OID:
			return CastAssignment, true
		}
	case Float8OID:
		switch to {
		case Int2OID, Int4OID, Int8OID, Float4OID:
			return CastAssignment, true
		}
	case OidOID:
		switch to {
		case Int4OID, Int8OID:
			return CastAssignment, true
		}
	case BoolOID:
		if to == Int4OID {
			return CastExplicit, true
		}
	case CharOID:
		switch to {
		case TextOID:
			return CastImplicit, true
		case BpcharOID, VarcharOID:
			return CastAssignment, true
		case Int4OID:
			return CastExplicit, true
		}
	case TextOID, VarcharOID, BpcharOID:
		switch to {
		case TextOID, VarcharOID, BpcharOID, NameOID:
			return CastImplicit, true
		case CharOID:
			return CastAssignment, true
		}
	case NameOID:
		switch to {
		case TextOID:
			return CastImplicit, true
		case VarcharOID, BpcharOID:
			return CastAssignment, true
		}
	case TimestampOID:
		if to == TimestamptzOID {
			return CastImplicit, true
		}
	case TimestamptzOID:
		if to == TimestampOID {
			return CastAssignment, true
		}
	}
	if c, ok := arrayCastContext(from, to); ok {
		return c, true
	}
	fi, ti := info(from), info(to)
	if from == RecordOID && ti != nil && ti.category == 'S' {
		return CastAssignment, true // record_out: the one pseudo-type with an output
	}
	if fi == nil || ti == nil || fi.category == 'P' || ti.category == 'P' {
		return 0, false
	}
	// automatic I/O conversion casts
	if ti.category == 'S' {
		return CastAssignment, true
	}
	if fi.category == 'S' {
		return CastExplicit, true
	}
	return 0, false
}

// CanCast reports whether a value of type from can be coerced to type to in
// context ctx, following pg_cast (plus automatic I/O conversion casts: to a
// string type in assignment context, from a string type explicitly;
// unknown-typed literals to anything implicitly).
func CanCast(from, to Type, ctx CastContext) bool {
	c, ok := castContext(from.OID, to.OID)
	return ok && c <= ctx
}

// BinaryCoercible reports whether converting a value of type from to type to
// needs no work at all on the Datum (so the caller may skip the Cast), e.g.
// int2 -> int4 -> int8, float4 -> float8, varchar -> text, text -> varchar
// (no typmod), timestamp <-> timestamptz.
func BinaryCoercible(from, to Type) bool {
	if from.OID == to.OID {
		return to.Typmod < 0 || from.Typmod == to.Typmod ||
			(to.OID == VarcharOID && from.Typmod >= 0 && from.Typmod <= to.Typmod)
	}
	switch from.OID {
	case Int2OID:
		return to.OID == Int4OID || to.OID == Int8OID
	case Int4OID:
		return to.OID == Int8OID
	case Float4OID:
		return to.OID == Float8OID
	case TextOID, VarcharOID:
		return (to.OID == TextOID || to.OID == VarcharOID) && to.Typmod < 0
	case NameOID:
		return to.OID == TextOID
	case OidOID, RegtypeOID:
		return to.OID == OidOID || to.OID == RegtypeOID
	}
	return binaryCoercibleNewType(from, to)
}

func cannotCast(from, to Type) error {
	return pgerr.Errorf(errCannotCoerce, "cannot cast type %s to %s", from.String(), to.String())
}

func intRangeErr(t OID) error {
	switch t {
	case Int2OID:
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "smallint out of range")
	case Int8OID:
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
	}
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
}

// checkIntRange returns v if it fits integer type t.
func checkIntRange(v int64, t OID) (Datum, error) {
	switch t {
	case Int2OID:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return Datum{}, intRangeErr(t)
		}
	case Int4OID:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return Datum{}, intRangeErr(t)
		}
	}
	return Int(v), nil
}

// floatToInt is ftoi2/ftoi4/ftoi8/dtoi*: round half to even (rint), then
// range check.
func floatToInt(f float64, t OID) (Datum, error) {
	f = math.RoundToEven(f)
	if f != f {
		return Datum{}, intRangeErr(t)
	}
	switch t {
	case Int2OID:
		if f < math.MinInt16 || f >= -math.MinInt16 {
			return Datum{}, intRangeErr(t)
		}
	case Int4OID:
		if f < math.MinInt32 || f >= -math.MinInt32 {
			return Datum{}, intRangeErr(t)
		}
	default:
		if f < math.MinInt64 || f >= -math.MinInt64 {
			return Datum{}, intRangeErr(t)
		}
	}
	return Int(int64(f)), nil
}

// toFloat4 is dtof: float8 -> float4 with overflow/underflow errors.
func toFloat4(f float64) (Datum, error) {
	r := float32(f)
	if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
		return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && f != 0 {
		return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return Float(float64(r)), nil
}

// ApplyTypmod applies t's typmod to a value already of t's base type (the
// length coercion function): varchar(n)/char(n) truncate when explicit,
// otherwise raise 22001 unless only spaces are cut; char(n) pads;
// timestamp(p) rounds.
func ApplyTypmod(d Datum, t Type, explicit bool) (Datum, error) {
	if t.Typmod < 0 || d.Kind() == kNull {
		return d, nil
	}
	if IsArray(t) {
		return applyArrayTypmod(d, t, explicit)
	}
	switch t.OID {
	case VarcharOID:
		if t.Typmod >= VarHdrSz {
			s, err := checkLength(d.Str(), int(t.Typmod-VarHdrSz), explicit, "character varying")
			return Str(s), err
		}
	case BpcharOID:
		if t.Typmod >= VarHdrSz {
			s, err := checkLength(d.Str(), int(t.Typmod-VarHdrSz), explicit, "character")
			return Str(s), err
		}
	case NumericOID:
		return applyNumericTypmod(d, t.Typmod)
	case TimestampOID, TimestamptzOID:
		v := adjustTimestampTypmod(d.Int(), t.Typmod)
		if v < minTimestamp || v >= endTimestamp {
			if v != TimestampInfinity && v != TimestampNegInfinity {
				return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range")
			}
		}
		return TimestampMicros(v), nil
	case IntervalOID:
		iv, err := adjustIntervalTypmod(IntervalOf(d), t.Typmod)
		return IntervalDatum(iv), err
	case TimeOID:
		return Int(adjustTimeTypmod(d.Int(), t.Typmod)), nil
	}
	return d, nil
}

// Cast converts d from type from to type to in context ctx (NULL stays
// NULL). It fails with 42846 when CanCast(from, to, ctx) is false, and with
// the conversion's own error otherwise (22003 out of range, 22001 too long,
// 22P02 bad input, ...). Float to integer rounds half to even (rint), as
// PostgreSQL does. Unknown-typed values go through the input function.
func Cast(d Datum, from, to Type, ctx CastContext) (Datum, error) {
	return CastWith(nil, d, from, to, ctx)
}

// CastWith is Cast in a session's settings (conversions between
// timestamptz and text, timestamp or date use the session's TimeZone).
func CastWith(st *Settings, d Datum, from, to Type, ctx CastContext) (Datum, error) {
	if d.Kind() == kNull {
		return d, nil
	}
	if from.OID != to.OID {
		if v, err, ok := castUserType(st, d, from, to, ctx); ok {
			return v, err
		}
	}
	cc, ok := castContext(from.OID, to.OID)
	if !ok || cc > ctx {
		return Datum{}, cannotCast(from, to)
	}
	explicit := ctx == CastExplicit
	if (IsArray(from) || from.OID == Int2VectorOID) && IsArray(to) && from.OID != to.OID {
		return castArray(st, d, from, to, ctx)
	}
	if from.OID == to.OID {
		if to.Typmod < 0 || to.Typmod == from.Typmod {
			return d, nil
		}
		return ApplyTypmod(d, to, explicit)
	}
	if v, ok, err := castNumeric(d, from, to, explicit); ok {
		return v, err
	}
	if _, ok := regtypeCastContext(from.OID, to.OID); ok {
		if to.OID == Int4OID {
			return Int(int64(int32(uint32(d.Int())))), nil
		}
		return Int(int64(uint32(d.Int()))), nil
	}
	if v, err, ok := castNewType(st, d, from, to, explicit); ok {
		return v, err
	}
	switch from.OID {
	case UnknownOID:
		base := to
		if to.OID == VarcharOID || to.OID == BpcharOID || IsArray(to) {
			base.Typmod = -1
		}
		v, err := ParseWith(st, base, d.Str())
		if err != nil {
			return v, err
		}
		return ApplyTypmod(v, to, explicit)
	case Int2OID, Int4OID, Int8OID:
		switch to.OID {
		case Int2OID, Int4OID, Int8OID:
			return checkIntRange(d.Int(), to.OID)
		case Float8OID:
			return Float(float64(d.Int())), nil
		case Float4OID:
			return Float(float64(float32(d.Int()))), nil
		case OidOID:
			if from.OID == Int8OID {
				if d.Int() < 0 || d.Int() > math.MaxUint32 {
					return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "OID out of range")
				}
				return d, nil
			}
			return Int(int64(uint32(int32(d.Int())))), nil
		case BoolOID:
			return Bool(d.Int() != 0), nil
		case CharOID:
			if d.Int() < -128 || d.Int() > 127 {
				return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, `"char" out of range`)
			}
			return Int(int64(uint8(int8(d.Int())))), nil
		}
	case Float4OID, Float8OID:
		switch to.OID {
		case Int2OID, Int4OID, Int8OID:
			return floatToInt(d.Float(), to.OID)
		case Float8OID:
			return d, nil
		case Float4OID:
			return toFloat4(d.Float())
		}
	case OidOID:
		switch to.OID {
		case Int4OID:
			return Int(int64(int32(uint32(d.Int())))), nil
		case Int8OID:
			return d, nil
		}
	case BoolOID:
		switch to.OID {
		case Int4OID:
			return Int(d.Int()), nil
		case TextOID, VarcharOID, BpcharOID:
			s := "false"
			if d.Int() != 0 {
				s = "true"
			}
			return ApplyTypmod(Str(s), to, explicit)
		}
	case CharOID:
		if to.OID == Int4OID {
			return Int(int64(int8(uint8(d.Int())))), nil
		}
		if to.OID == TextOID || to.OID == VarcharOID || to.OID == BpcharOID {
			var s string
			if d.Int() != 0 {
				s = string([]byte{byte(d.Int())})
			}
			return ApplyTypmod(Str(s), to, explicit)
		}
	case TextOID, VarcharOID, BpcharOID, NameOID:
		s := d.Str()
		if from.OID == BpcharOID && to.OID != BpcharOID && IsString(to) {
			s = TrimBlankPadding(s)
		}
		switch to.OID {
		case TextOID:
			return Str(s), nil
		case VarcharOID, BpcharOID:
			return ApplyTypmod(Str(s), to, explicit)
		case NameOID:
			return Str(truncName(s)), nil
		case CharOID:
			if len(s) == 0 {
				return Int(0), nil
			}
			return Int(int64(s[0])), nil
		}
		// I/O conversion cast from a string type
		return ParseWith(st, to, s)
	case TimestampOID, TimestamptzOID:
		if to.OID == TimestampOID || to.OID == TimestamptzOID {
			v := d.Int()
			if from.OID != to.OID {
				v = convertTimestampZone(st, v, from.OID == TimestampOID)
			}
			return ApplyTypmod(TimestampMicros(v), to, explicit)
		}
	}
	if Category(to) == 'S' {
		// I/O conversion cast to a string type
		s := string(AppendTextWith(st, nil, from, d))
		if to.OID == NameOID {
			return Str(truncName(s)), nil
		}
		return ApplyTypmod(Str(s), to, explicit)
	}
	return Datum{}, cannotCast(from, to)
}

// CommonType resolves the common type of two expressions for UNION, CASE,
// IN lists, GREATEST/LEAST and the like, as PostgreSQL's
// select_common_type: unknown adopts the other type (unknown with unknown
// gives text); both must be of the same category; the preferred type of the
// category wins, otherwise the type the other can be implicitly coerced to
// (int2 < int4 < int8 < float4 < float8; varchar/bpchar/name < text). The
// typmod is kept only when both typmods agree. ok is false when the types
// cannot be matched (PostgreSQL: 42804 "UNION types integer and boolean
// cannot be matched").
func CommonType(a, b Type) (Type, bool) {
	if a.OID == UnknownOID && b.OID == UnknownOID {
		return Text, true
	}
	if a.OID == UnknownOID {
		return b, true
	}
	if b.OID == UnknownOID {
		return a, true
	}
	if a.OID == b.OID {
		if a.Typmod != b.Typmod {
			a.Typmod = -1
		}
		return a, true
	}
	if Category(a) != Category(b) {
		return Type{}, false
	}
	res := a
	if !IsPreferred(a) && CanCast(a, b, CastImplicit) && !CanCast(b, a, CastImplicit) {
		res = b
	}
	other := b
	if res == b {
		other = a
	}
	if !CanCast(other, res, CastImplicit) {
		return Type{}, false
	}
	res.Typmod = -1
	return res, true
}
