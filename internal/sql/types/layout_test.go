package types

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// The attribute layout is package datum's (its tests cover it); this test
// checks that values read by the SQL input functions land in exactly
// PostgreSQL's bytes, and read back.

func mustParse(t testing.TB, typ Type, s string) Datum {
	t.Helper()
	d, err := Parse(typ, s)
	if err != nil {
		t.Fatalf("Parse(%s, %q): %v", typ, s, err)
	}
	return d
}

// Tuples captured from PostgreSQL 15 with pageinspect
// (heap_page_items(get_raw_page(...)).t_data) for
//
//	create table lt (a int4, b text, c float8, d int2, e bool, f varchar(10),
//	  g char(3), h name, i int8, j timestamp, k float4, l oid, m bytea,
//	  n "char", o int2vector);
var pgTuples = []struct {
	vals   []string // "" with null=true for NULL
	nulls  []bool
	bitmap string
	data   string
}{
	{
		vals: []string{"1", "9dd4e461268c8034f5c8564e155c67a6", "1.5", "7", "t", "hi", "ab", "nm", "-5",
			"2024-01-02 03:04:05.5", "0.25", "4000000000", `\x0102`, "z", "1 2 3"},
		data: "01000000433964643465343631323638633830333466356338353634653135356336376136000000000000000000f83f070001076869096162206e6d0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fbffffffffffffff60941d85ecb002000000803e00286bee0701027a780000000100000000000000150000000300000000000000010002000300",
	},
	{
		vals:   []string{"", strings.Repeat("y", 200), "", "", "f", "", "", "q", "", "", "", "", "", "", ""},
		nulls:  []bool{true, false, true, true, false, true, true, false, true, true, true, true, true, true, true},
		bitmap: "9200",
		data:   "30030000" + strings.Repeat("79", 200) + "0071" + strings.Repeat("00", 63),
	},
	{
		vals:   []string{"2", "", "2.5", "1", "", "", "x", "r", "9", "infinity", "NaN", "0", "", "a", ""},
		nulls:  []bool{false, false, false, false, true, false, false, false, false, false, false, false, false, false, false},
		bitmap: "ef7f",
		data:   "020000000300000000000000000004400100030978202072000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000900000000000000ffffffffffffff7f0000c07f0000000003610000600000000100000000000000150000000000000000000000",
	},
}

var pgTupleTypes = []Type{Int4, Text, Float8, Int2, Boolean, Varchar(10), Bpchar(3), Name, Int8, Timestamp, Float4, Oid, Bytea, Char, Int2VectorType}

func TestFillDataMatchesPostgres(t *testing.T) {
	for n, tup := range pgTuples {
		vals := make([]Datum, len(pgTupleTypes))
		for i, typ := range pgTupleTypes {
			if tup.nulls != nil && tup.nulls[i] {
				continue
			}
			vals[i] = mustParse(t, typ, tup.vals[i])
		}
		want, _ := hex.DecodeString(tup.data)
		size := DataSize(pgTupleTypes, vals)
		if size != len(want) {
			t.Errorf("tuple %d: DataSize = %d, want %d", n, size, len(want))
		}
		dst := bytes.Repeat([]byte{0xee}, size) // dirty buffer: padding must be zeroed
		hasNulls, hasVar := FillData(dst, pgTupleTypes, vals)
		if !bytes.Equal(dst, want) {
			t.Errorf("tuple %d: FillData\n got %x\nwant %x", n, dst, want)
		}
		if hasNulls != (tup.nulls != nil) || !hasVar {
			t.Errorf("tuple %d: hasNulls=%v hasVarWidth=%v", n, hasNulls, hasVar)
		}
		var bitmap []byte
		if tup.nulls != nil {
			bitmap = make([]byte, BitmapLen(len(vals)))
			FillNullBitmap(bitmap, vals)
			wantBits, _ := hex.DecodeString(tup.bitmap)
			if !bytes.Equal(bitmap, wantBits) {
				t.Errorf("tuple %d: bitmap %x, want %x", n, bitmap, wantBits)
			}
		}
		// decode PostgreSQL's bytes back
		out := make([]Datum, len(pgTupleTypes))
		if err := DeformData(want, pgTupleTypes, bitmap, out); err != nil {
			t.Fatalf("tuple %d: DeformData: %v", n, err)
		}
		out2 := make([]Datum, len(pgTupleTypes))
		if err := NewDeformer(pgTupleTypes).Deform(want, bitmap, out2, len(out2)); err != nil {
			t.Fatalf("tuple %d: Deform: %v", n, err)
		}
		for i, typ := range pgTupleTypes {
			for _, o := range [][]Datum{out, out2} {
				if o[i].IsNull() != vals[i].IsNull() || (!vals[i].IsNull() && !Equal(typ, o[i], vals[i])) {
					t.Errorf("tuple %d attr %d (%s): got %q, want %q", n, i, typ, FormatText(typ, o[i]), FormatText(typ, vals[i]))
				}
				if !vals[i].IsNull() && FormatText(typ, o[i]) != FormatText(typ, vals[i]) {
					t.Errorf("tuple %d attr %d (%s): text %q, want %q", n, i, typ, FormatText(typ, o[i]), FormatText(typ, vals[i]))
				}
			}
		}
	}
}
