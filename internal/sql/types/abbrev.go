package types

// AbbrevKey is a sort's abbreviated key for d (PostgreSQL's abbreviated
// keys): a uint64 whose order agrees with Compare's wherever the keys
// differ — AbbrevKey(a) < AbbrevKey(b) implies Compare(t, a, b) < 0, and
// values Compare calls equal have equal keys. ok=false for a type without
// one. Integers are their own key; text-like values their first 8 bytes
// (big-endian, zero-padded: a shorter value's padding never sorts after a
// longer one's bytes), so equal keys still need Compare.
func AbbrevKey(t Type, d Datum) (key uint64, ok bool) {
	switch t.OID {
	case Int4OID, Int8OID, Int2OID, TimestampOID, TimestamptzOID, BoolOID, OidOID, CharOID:
		return uint64(d.Int()) ^ 1<<63, true
	case TextOID, VarcharOID, NameOID, ByteaOID, UnknownOID:
		return prefixKey(d.Str()), true
	case BpcharOID:
		return prefixKey(TrimBlankPadding(d.Str())), true
	}
	return 0, false
}

func prefixKey(s string) uint64 {
	var k uint64
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}
