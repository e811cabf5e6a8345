package types

import (
	"encoding/binary"
	"strconv"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// The types added after the first set (date, time, interval, uuid, json,
// jsonb) plug into the shared switch statements of this package through
// the hooks in this file, so that each type's code stays in its own file.
//
// Datum representation:
//
//	date      kInt, days since 2000-01-01 (math.MinInt32 / MaxInt32 are
//	          -infinity / infinity, as PostgreSQL's DATEVAL_NOBEGIN/NOEND)
//	time      kInt, microseconds since midnight
//	interval  kStr, 16 bytes: PostgreSQL's in-memory (and on-disk) layout,
//	          little-endian int64 microseconds, int32 days, int32 months
//	uuid      kStr, the 16 bytes
//	json      kStr, the input text (validated)
//	jsonb     kStr, PostgreSQL's JsonbContainer bytes (see jsonb_binary.go)

// pg_type OIDs of the types added here.
const (
	JSONOID      = datum.JSONOID
	DateOID      = datum.DateOID
	TimeOID      = datum.TimeOID
	IntervalOID  = datum.IntervalOID
	UUIDOID      = datum.UUIDOID
	JSONBOID     = datum.JSONBOID
	JSONArrayOID = datum.JSONArrayOID

	DateArrayOID     = datum.DateArrayOID
	TimeArrayOID     = datum.TimeArrayOID
	IntervalArrayOID = datum.IntervalArrayOID
	UUIDArrayOID     = datum.UUIDArrayOID
	JSONBArrayOID    = datum.JSONBArrayOID

	JSONPathOID      = datum.JSONPathOID
	JSONPathArrayOID = datum.JSONPathArrayOID
)

// Convenience types.
var (
	Date     = datum.Date
	Time     = datum.Time
	Interval = datum.Interval
	UUID     = datum.UUID
	JSON     = datum.JSON
	JSONB    = datum.JSONB
	JSONPath = datum.JSONPath
)

var (
	infoDate     = typeInfo{"date", "date", 'D', false}
	infoTime     = typeInfo{"time", "time without time zone", 'D', false}
	infoInterval = typeInfo{"interval", "interval", 'T', true}
	infoUUID     = typeInfo{"uuid", "uuid", 'U', false}
	infoJSON     = typeInfo{"json", "json", 'U', false}
	infoJSONB    = typeInfo{"jsonb", "jsonb", 'U', false}
	infoJSONPath = typeInfo{"jsonpath", "jsonpath", 'U', false}
)

func newTypeInfo(oid OID) *typeInfo {
	if ti := sysTypeInfo(oid); ti != nil {
		return ti
	}
	if ti := pseudoTypeInfo(oid); ti != nil {
		return ti
	}
	switch oid {
	case DateOID:
		return &infoDate
	case TimeOID:
		return &infoTime
	case IntervalOID:
		return &infoInterval
	case UUIDOID:
		return &infoUUID
	case JSONOID:
		return &infoJSON
	case JSONBOID:
		return &infoJSONB
	case JSONPathOID:
		return &infoJSONPath
	}
	return nil
}

func init() {
	for name, oid := range map[string]OID{
		"date": DateOID, "time": TimeOID, "time without time zone": TimeOID,
		"interval": IntervalOID, "uuid": UUIDOID, "json": JSONOID, "jsonb": JSONBOID,
		"jsonpath": JSONPathOID,
	} {
		typeNames[name] = oid
	}
}

// interval typmod: PostgreSQL packs the field mask in the high 16 bits and
// the precision (0xFFFF = none) in the low 16.
const (
	intervalFullRange = 0x7FFF
	intervalFullPrec  = 0xFFFF
)

func lookupNewTypeMods(t Type, typmods []int32) (Type, error, bool) {
	switch t.OID {
	case TimeOID:
		if len(typmods) > 1 {
			return Type{}, pgerr.Errorf(pgerr.SyntaxError, "invalid type modifier"), true
		}
		if len(typmods) == 1 {
			p := typmods[0]
			if p < 0 {
				return Type{}, pgerr.Errorf(pgerr.InvalidParameterValue, "TIME(%d) precision must not be negative", p), true
			}
			t.Typmod = min(p, 6)
		}
		return t, nil, true
	case IntervalOID:
		// pg_query gives [fields mask] or [fields mask, precision]
		switch len(typmods) {
		case 0:
			return t, nil, true
		case 1, 2:
			mask := typmods[0]
			prec := int32(intervalFullPrec)
			if len(typmods) == 2 {
				prec = typmods[1]
				if prec < 0 {
					return Type{}, pgerr.Errorf(pgerr.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", prec), true
				}
				prec = min(prec, 6)
			}
			if mask == intervalFullRange && prec == intervalFullPrec {
				return t, nil, true
			}
			t.Typmod = mask<<16 | prec
			return t, nil, true
		}
		return Type{}, pgerr.Errorf(pgerr.SyntaxError, "invalid type modifier"), true
	case DateOID, UUIDOID, JSONOID, JSONBOID, JSONPathOID:
		if len(typmods) > 0 {
			return Type{}, pgerr.Errorf(pgerr.SyntaxError, "type modifier is not allowed for type %q", t.TypName()), true
		}
		return t, nil, true
	}
	return t, nil, false
}

func newTypeString(t Type) (string, bool) {
	switch t.OID {
	case TimeOID:
		if t.Typmod >= 0 {
			return "time(" + strconv.Itoa(int(t.Typmod)) + ") without time zone", true
		}
	case IntervalOID:
		if t.Typmod >= 0 {
			return "interval" + intervalTypmodString(t.Typmod), true
		}
	}
	return "", false
}

func parseNewType(st *Settings, t Type, s string) (Datum, error, bool) {
	if d, err, ok := parseSysType(t, s); ok {
		return d, err, true
	}
	switch t.OID {
	case DateOID:
		d, err := parseDate(st, s)
		return d, err, true
	case TimeOID:
		d, err := parseTime(st, s, t.Typmod)
		return d, err, true
	case IntervalOID:
		d, err := parseIntervalText(st, s, t.Typmod)
		return d, err, true
	case UUIDOID:
		d, err := parseUUID(s)
		return d, err, true
	case JSONOID:
		d, err := parseJSONText(s)
		return d, err, true
	case JSONBOID:
		d, err := parseJSONB(s)
		return d, err, true
	case JSONPathOID:
		d, err := parseJSONPathDatum(s)
		return d, err, true
	}
	return Datum{}, nil, false
}

func appendNewType(st *Settings, dst []byte, t Type, d Datum) ([]byte, bool) {
	if out, ok := appendSysType(dst, t, d); ok {
		return out, true
	}
	switch t.OID {
	case DateOID:
		return appendDateStyled(st, dst, int32(d.Int())), true
	case TimeOID:
		return appendTimeOfDay(dst, d.Int()), true
	case IntervalOID:
		return appendIntervalStyled(st, dst, IntervalOf(d)), true
	case UUIDOID:
		return appendUUID(dst, d.Str()), true
	case JSONOID, JSONPathOID:
		return append(dst, d.Str()...), true
	case JSONBOID:
		return jsonbText(dst, d.Str()), true
	}
	return dst, false
}

func sendNewType(dst []byte, t Type, d Datum) ([]byte, bool) {
	if out, ok := sendSysType(dst, t, d); ok {
		return out, true
	}
	switch t.OID {
	case DateOID:
		return binary.BigEndian.AppendUint32(dst, uint32(int32(d.Int()))), true
	case TimeOID:
		return binary.BigEndian.AppendUint64(dst, uint64(d.Int())), true
	case IntervalOID:
		iv := IntervalOf(d)
		dst = binary.BigEndian.AppendUint64(dst, uint64(iv.Micros))
		dst = binary.BigEndian.AppendUint32(dst, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(dst, uint32(iv.Months)), true
	case UUIDOID, JSONOID:
		return append(dst, d.Str()...), true
	case JSONBOID:
		dst = append(dst, 1) // jsonb binary format version, then the text
		return jsonbText(dst, d.Str()), true
	case JSONPathOID:
		return append(append(dst, 1), d.Str()...), true // jsonpath's version 1, then the text
	}
	return dst, false
}

func recvNewType(t Type, b []byte) (Datum, error, bool) {
	if d, err, ok := recvSysType(t, b); ok {
		return d, err, true
	}
	switch t.OID {
	case DateOID:
		if err := fixedLen(b, 4); err != nil {
			return Datum{}, err, true
		}
		v := int32(binary.BigEndian.Uint32(b))
		if v != DateNegInfinity && v != DateInfinity && !validDate(int64(v)) {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range"), true
		}
		return Int(int64(v)), nil, true
	case TimeOID:
		if err := fixedLen(b, 8); err != nil {
			return Datum{}, err, true
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v < 0 || v > usecsPerDay {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "time out of range"), true
		}
		return Int(adjustTimeTypmod(v, t.Typmod)), nil, true
	case IntervalOID:
		if err := fixedLen(b, 16); err != nil {
			return Datum{}, err, true
		}
		iv := IntervalValue{
			Micros: int64(binary.BigEndian.Uint64(b)),
			Days:   int32(binary.BigEndian.Uint32(b[8:])),
			Months: int32(binary.BigEndian.Uint32(b[12:])),
		}
		iv, err := adjustIntervalTypmod(iv, t.Typmod)
		return IntervalDatum(iv), err, true
	case UUIDOID:
		if err := fixedLen(b, 16); err != nil {
			return Datum{}, err, true
		}
		return Str(string(b)), nil, true
	case JSONOID:
		d, err := parseJSONText(string(b))
		return d, err, true
	case JSONBOID:
		if len(b) == 0 {
			return Datum{}, errInsufficient(), true
		}
		if b[0] != 1 {
			return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "unsupported jsonb version number %d", b[0]), true
		}
		d, err := parseJSONB(string(b[1:]))
		return d, err, true
	case JSONPathOID:
		if len(b) == 0 || b[0] != 1 {
			return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "unsupported jsonpath version number"), true
		}
		d, err := parseJSONPathDatum(string(b[1:]))
		return d, err, true
	}
	return Datum{}, nil, false
}

func compareNewType(t Type, a, b Datum) (int, bool) {
	if c, ok := compareSysType(t, a, b); ok {
		return c, true
	}
	switch t.OID {
	case DateOID, TimeOID:
		return cmpInt(a.Int(), b.Int()), true
	case IntervalOID:
		return compareIntervals(IntervalOf(a), IntervalOf(b)), true
	case UUIDOID:
		return compareStrings(a.Str(), b.Str()), true
	case JSONBOID:
		return compareJSONB(a.Str(), b.Str()), true
	}
	return 0, false
}

func hashNewType(t Type, d Datum) (uint64, bool) {
	if h, ok := hashSysType(t, d); ok {
		return h, true
	}
	switch t.OID {
	case DateOID, TimeOID:
		return HashInt64(d.Int()), true
	case IntervalOID:
		hi, lo := intervalSpan(IntervalOf(d))
		return HashInt64(lo) ^ HashInt64(hi+1), true
	case UUIDOID:
		return HashString(d.Str()), true
	case JSONBOID:
		return HashString(jsonbHashKey(d.Str())), true
	}
	return 0, false
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// binaryCoercibleNewType: none of the added casts is a no-op on the Datum
// (timestamp <-> timestamptz depends on the session's time zone).
func binaryCoercibleNewType(from, to Type) bool { return false }

// castContextNewType gives pg_cast's entries for the added types.
func castContextNewType(from, to OID) (CastContext, bool, bool) {
	switch from {
	case DateOID:
		switch to {
		case TimestampOID, TimestamptzOID:
			return CastImplicit, true, true
		}
	case TimestampOID:
		switch to {
		case DateOID, TimeOID:
			return CastAssignment, true, true
		}
	case TimestamptzOID:
		switch to {
		case DateOID, TimeOID:
			return CastAssignment, true, true
		}
	case TimeOID:
		if to == IntervalOID {
			return CastImplicit, true, true
		}
	case IntervalOID:
		if to == TimeOID {
			return CastAssignment, true, true
		}
	case JSONOID:
		if to == JSONBOID {
			return CastAssignment, true, true
		}
	case JSONBOID:
		switch to {
		case JSONOID:
			return CastAssignment, true, true
		case BoolOID, Int2OID, Int4OID, Int8OID, Float4OID, Float8OID, NumericOID:
			return CastExplicit, true, true
		}
	}
	return 0, false, false
}

// castNewType converts between the added types and the others (the I/O
// conversion casts to and from text are handled by Cast itself).
func castNewType(st *Settings, d Datum, from, to Type, explicit bool) (Datum, error, bool) {
	switch {
	case from.OID == DateOID && to.OID == TimestampOID:
		v, err := dateToTimestamp(int32(d.Int()))
		return TimestampMicros(v), err, true
	case from.OID == DateOID && to.OID == TimestamptzOID:
		v, err := dateToTimestamptz(st, int32(d.Int()))
		return TimestampMicros(v), err, true
	case from.OID == TimestampOID && to.OID == DateOID:
		v, err := timestampToDate(d.Int())
		return Int(int64(v)), err, true
	case from.OID == TimestamptzOID && to.OID == DateOID:
		v, err := timestampToDate(st.zone().ToLocal(d.Int()))
		return Int(int64(v)), err, true
	case (from.OID == TimestampOID || from.OID == TimestamptzOID) && to.OID == TimeOID:
		ts := d.Int()
		if from.OID == TimestamptzOID {
			ts = st.zone().ToLocal(ts)
		}
		if ts == TimestampInfinity || ts == TimestampNegInfinity {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "time out of range"), true
		}
		_, t := splitTimestamp(ts)
		return Int(adjustTimeTypmod(t, to.Typmod)), nil, true
	case from.OID == TimeOID && to.OID == IntervalOID:
		return IntervalDatum(IntervalValue{Micros: d.Int()}), nil, true
	case from.OID == IntervalOID && to.OID == TimeOID:
		iv := IntervalOf(d)
		t := iv.Micros % usecsPerDay
		if t < 0 {
			t += usecsPerDay
		}
		return Int(adjustTimeTypmod(t, to.Typmod)), nil, true
	case from.OID == TimeOID && to.OID == TimeOID:
		return Int(adjustTimeTypmod(d.Int(), to.Typmod)), nil, true
	case from.OID == IntervalOID && to.OID == IntervalOID:
		iv, err := adjustIntervalTypmod(IntervalOf(d), to.Typmod)
		return IntervalDatum(iv), err, true
	case from.OID == JSONOID && to.OID == JSONBOID:
		v, err := parseJSONB(d.Str())
		return v, err, true
	case from.OID == JSONBOID && to.OID == JSONOID:
		return Str(string(jsonbText(nil, d.Str()))), nil, true
	case from.OID == JSONBOID && (to.OID == BoolOID || IsInteger(to) || IsFloat(to) || to.OID == NumericOID):
		v, err := castJSONBScalar(d.Str(), to)
		return v, err, true
	}
	return Datum{}, nil, false
}

// groupKeyNewType is AppendGroupKey for the types whose equal values can
// print differently: an interval groups by its span ('1 mon' = '30 days'),
// jsonb by its text with numbers' insignificant zeros dropped.
func groupKeyNewType(dst []byte, t Type, d Datum) ([]byte, bool) {
	switch t.OID {
	case IntervalOID:
		hi, lo := intervalSpan(IntervalOf(d))
		dst = strconv.AppendInt(dst, hi, 10)
		dst = append(dst, ':')
		return strconv.AppendUint(dst, uint64(lo), 10), true
	case JSONBOID:
		return append(dst, jsonbHashKey(d.Str())...), true
	}
	return dst, false
}
