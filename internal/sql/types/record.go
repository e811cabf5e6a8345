package types

import (
	"encoding/binary"
	"strings"
)

// Record values — type record (OID 2249), what a row constructor such as
// ROW(1, 'a') evaluates to — carry their field types with them, because
// the type record says nothing about its fields: a record datum is an
// array datum of alternating field type OID (an int) and field value.
// Field typmods are not kept; no output format depends on them. Array
// datums cannot nest, so a field that is itself an array or a record is
// kept as its bytes and given back its kind by its type.

// RecordValue builds a record datum from its fields' types and values.
func RecordValue(fieldTypes []Type, vals []Datum) Datum {
	pairs := make([]Datum, 0, 2*len(vals))
	for i, v := range vals {
		if v.Kind() == kArr {
			v = Str(v.Str())
		}
		pairs = append(pairs, Int(int64(fieldTypes[i].OID)), v)
	}
	return Array(pairs)
}

// RecordFields returns a record datum's field types and values.
func RecordFields(d Datum) ([]Type, []Datum) {
	pairs := d.Elems()
	ts := make([]Type, 0, len(pairs)/2)
	vals := make([]Datum, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		t, v := Type{OID: OID(pairs[i].Int()), Typmod: -1}, pairs[i+1]
		if !v.IsNull() && (t.OID == RecordOID || IsArray(t)) {
			v = StrOfKind(kArr, v.Str())
		}
		ts = append(ts, t)
		vals = append(vals, v)
	}
	return ts, vals
}

// appendRecordText is record_out: (f1,f2,…), a NULL field empty, a field
// quoted when it is empty or holds a quote, backslash, parenthesis, comma
// or white space, with quotes and backslashes doubled inside.
func appendRecordText(st *Settings, dst []byte, d Datum) []byte {
	ts, vals := RecordFields(d)
	dst = append(dst, '(')
	for i, v := range vals {
		if i > 0 {
			dst = append(dst, ',')
		}
		if v.IsNull() {
			continue
		}
		s := FormatTextWith(st, ts[i], v)
		if s != "" && !strings.ContainsAny(s, "\"\\(), \t\n\r\v\f") {
			dst = append(dst, s...)
			continue
		}
		dst = append(dst, '"')
		for j := 0; j < len(s); j++ {
			if s[j] == '"' || s[j] == '\\' {
				dst = append(dst, s[j])
			}
			dst = append(dst, s[j])
		}
		dst = append(dst, '"')
	}
	return append(dst, ')')
}

// appendRecordBinary is record_send: int32 field count, then per field
// its type OID, int32 length (-1 for NULL) and binary value.
func appendRecordBinary(dst []byte, d Datum) []byte {
	ts, vals := RecordFields(d)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(vals)))
	for i, v := range vals {
		dst = binary.BigEndian.AppendUint32(dst, uint32(ts[i].OID))
		if v.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
			continue
		}
		lenAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = AppendBinary(dst, ts[i], v)
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
	}
	return dst
}

// compareRecords orders records field by field, a NULL field after any
// value (btree record_cmp); records of different field types order by
// the first differing type, which keeps the order total.
func compareRecords(a, b Datum) int {
	ta, va := RecordFields(a)
	tb, vb := RecordFields(b)
	for i := 0; i < len(va) && i < len(vb); i++ {
		if ta[i].OID != tb[i].OID {
			return cmpInt(int64(ta[i].OID), int64(tb[i].OID))
		}
		switch {
		case va[i].IsNull() && vb[i].IsNull():
			continue
		case va[i].IsNull():
			return 1
		case vb[i].IsNull():
			return -1
		}
		if c := Compare(ta[i], va[i], vb[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(va)), int64(len(vb)))
}
