package datum

// The physical registry: for every builtin type, pg_type's layout
// (typlen, typalign, typbyval, typstorage), how an attribute of the type
// is encoded in a tuple's data area, and the Datum kind decoded values
// have. The names, categories and behaviour of types are the SQL layer's.

// attribute encodings
const (
	encInt8 byte = iota + 1 // 1-byte integer (bool, "char")
	encInt16
	encInt32  // int4, date, void/any
	encUint32 // oid, regtype, xid, cid
	encInt64  // int8, timestamp(tz), time
	encFloat4
	encFloat8
	encName
	encVarlena // string payload: text, varchar, bpchar, bytea, numeric, json, jsonb
	encInt2Vec
	encCString
	encFixedBytes // fixed-length by-reference value held as its raw bytes (uuid, interval)
	encTid        // tid: ItemPointerData
	// encArrayText: an array held in a varlena as its text form. Only
	// catalog columns (pg_class.reloptions) have array types; PostgreSQL's
	// binary array layout is not implemented.
	encArrayText
	encUnsupported
)

// phys is one type's physical description.
type phys struct {
	layout Layout
	enc    byte
	kind   Kind // of decoded values
}

var (
	layChar    = Layout{1, 'c', true, 'p'}
	layInt2    = Layout{2, 's', true, 'p'}
	layInt4    = Layout{4, 'i', true, 'p'}
	layInt8    = Layout{8, 'd', true, 'p'}
	layVarlena = Layout{-1, 'i', false, 'x'}
)

var (
	physBool        = phys{layChar, encInt8, KindBool}
	physBytea       = phys{layVarlena, encVarlena, KindStr}
	physChar        = phys{layChar, encInt8, KindInt}
	physName        = phys{Layout{NameDataLen, 'c', false, 'p'}, encName, KindStr}
	physInt8        = phys{layInt8, encInt64, KindInt}
	physInt2        = phys{layInt2, encInt16, KindInt}
	physInt2Vector  = phys{Layout{-1, 'i', false, 'p'}, encInt2Vec, KindVec}
	physInt4        = phys{layInt4, encInt32, KindInt}
	physText        = phys{layVarlena, encVarlena, KindStr}
	physOid         = phys{layInt4, encUint32, KindInt}
	physTid         = phys{Layout{6, 's', false, 'p'}, encTid, KindInt}
	physXid         = phys{Layout{4, 'i', true, 'p'}, encUint32, KindInt}
	physJSON        = phys{layVarlena, encVarlena, KindStr}
	physFloat4      = phys{layInt4, encFloat4, KindFloat}
	physFloat8      = phys{layInt8, encFloat8, KindFloat}
	physUnknown     = phys{Layout{-2, 'c', false, 'p'}, encCString, KindStr}
	physBpchar      = phys{layVarlena, encVarlena, KindStr}
	physDate        = phys{layInt4, encInt32, KindInt}
	physTime        = phys{layInt8, encInt64, KindInt}
	physTimestamp   = phys{layInt8, encInt64, KindTime}
	physInterval    = phys{Layout{16, 'd', false, 'p'}, encFixedBytes, KindStr}
	physNumeric     = phys{Layout{-1, 'i', false, 'm'}, encVarlena, KindNumeric}
	physRecord      = phys{Layout{-1, 'd', false, 'x'}, encUnsupported, KindInt}
	physPseudoInt4  = phys{layInt4, encInt32, KindInt} // "any", void
	physUUID        = phys{Layout{16, 'c', false, 'p'}, encFixedBytes, KindStr}
	physUnknownType = phys{layVarlena, encUnsupported, KindInt}
	// physUserType is every user-defined type's (an OID from
	// FirstNormalObjectId on that is no array here): the SQL layer gives
	// its values as bytes (an enum value: its sort order and label OID,
	// sql/types/enum.go), stored as a varlena.
	physUserType = phys{layVarlena, encVarlena, KindStr}
	// pseudo-types: pg_type's layouts; no value of them is stored
	physCstring     = phys{Layout{-2, 'c', false, 'p'}, encUnsupported, KindInt}
	physPseudoArray = phys{Layout{-1, 'd', false, 'x'}, encUnsupported, KindInt}
	physPseudoInt8  = phys{layInt8, encUnsupported, KindInt}
	physPseudo      = phys{layInt4, encUnsupported, KindInt}
)

// Registered reports whether this package has t's physical description
// (every type the SQL layer knows must have one: a test there checks).
func Registered(t Type) bool {
	p := physOf(t.OID)
	return p != &physUnknownType && p != &physUserType
}

// physOf returns the physical description of a type (physUnknownType for
// an OID not registered here).
func physOf(oid OID) *phys {
	switch oid {
	case BoolOID:
		return &physBool
	case ByteaOID:
		return &physBytea
	case CharOID:
		return &physChar
	case NameOID:
		return &physName
	case Int8OID:
		return &physInt8
	case Int2OID:
		return &physInt2
	case Int2VectorOID:
		return &physInt2Vector
	case Int4OID:
		return &physInt4
	case TextOID, VarcharOID:
		return &physText
	case OidOID, RegtypeOID:
		return &physOid
	case TidOID:
		return &physTid
	case XidOID, CidOID:
		return &physXid
	case JSONOID, JSONBOID, JSONPathOID:
		return &physJSON
	case Float4OID:
		return &physFloat4
	case Float8OID:
		return &physFloat8
	case UnknownOID:
		return &physUnknown
	case BpcharOID:
		return &physBpchar
	case DateOID:
		return &physDate
	case TimeOID:
		return &physTime
	case TimestampOID, TimestamptzOID:
		return &physTimestamp
	case IntervalOID:
		return &physInterval
	case NumericOID:
		return &physNumeric
	case RecordOID:
		return &physRecord
	case AnyOID, VoidOID:
		return &physPseudoInt4
	case UUIDOID:
		return &physUUID
	case CstringOID:
		return &physCstring
	case AnyArrayOID, AnyCompatibleArrayOID:
		return &physPseudoArray
	case InternalOID:
		return &physPseudoInt8
	case TriggerOID, AnyElementOID, AnyNonArrayOID, AnyCompatibleOID, AnyCompatibleNonArrayOID:
		return &physPseudo
	}
	if p := arrayPhys[oid]; p != nil {
		return p
	}
	if oid >= firstUserOID {
		return &physUserType
	}
	return &physUnknownType
}

// firstUserOID is PostgreSQL's FirstNormalObjectId: every builtin type's
// OID is below it.
const firstUserOID OID = 16384

// arrayTypes lists every array type with its element type and its
// alignment (pg_type.typalign of the array type).
var arrayTypes = []struct {
	elem, array OID
	align       byte
}{
	{BoolOID, BoolArrayOID, 'i'},
	{ByteaOID, ByteaArrayOID, 'i'},
	{CharOID, CharArrayOID, 'i'},
	{NameOID, NameArrayOID, 'i'},
	{Int2OID, Int2ArrayOID, 'i'},
	{Int2VectorOID, Int2VectorArrayOID, 'i'},
	{Int4OID, Int4ArrayOID, 'i'},
	{TextOID, TextArrayOID, 'i'},
	{BpcharOID, BpcharArrayOID, 'i'},
	{VarcharOID, VarcharArrayOID, 'i'},
	{Int8OID, Int8ArrayOID, 'd'},
	{Float4OID, Float4ArrayOID, 'i'},
	{Float8OID, Float8ArrayOID, 'd'},
	{OidOID, OidArrayOID, 'i'},
	{TimestampOID, TimestampArrayOID, 'd'},
	{TimestamptzOID, TimestamptzArrayOID, 'd'},
	{NumericOID, NumericArrayOID, 'i'},
	{DateOID, DateArrayOID, 'i'},
	{TimeOID, TimeArrayOID, 'd'},
	{IntervalOID, IntervalArrayOID, 'd'},
	{UUIDOID, UUIDArrayOID, 'i'},
	{JSONOID, JSONArrayOID, 'i'},
	{JSONBOID, JSONBArrayOID, 'i'},
	{JSONPathOID, JSONPathArrayOID, 'i'},
	{TidOID, TidArrayOID, 's'},
	{XidOID, XidArrayOID, 'i'},
	{CidOID, CidArrayOID, 'i'},
}

var (
	arrayOf   = map[OID]OID{}
	elemOf    = map[OID]OID{}
	arrayPhys = map[OID]*phys{}
)

func init() {
	for _, a := range arrayTypes {
		arrayOf[a.elem] = a.array
		elemOf[a.array] = a.elem
		arrayPhys[a.array] = &phys{Layout{-1, a.align, false, 'x'}, encArrayText, KindArray}
	}
}
