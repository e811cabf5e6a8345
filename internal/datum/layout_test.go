package datum

import (
	"strings"
	"testing"
)

func TestLayoutOfTypes(t *testing.T) {
	tests := []struct {
		typ  Type
		want Layout
	}{
		{Boolean, Layout{Len: 1, Align: 'c', ByVal: true, Storage: 'p'}},
		{Bytea, Layout{Len: -1, Align: 'i', ByVal: false, Storage: 'x'}},
		{Char, Layout{Len: 1, Align: 'c', ByVal: true, Storage: 'p'}},
		{Name, Layout{Len: 64, Align: 'c', ByVal: false, Storage: 'p'}},
		{Int8, Layout{Len: 8, Align: 'd', ByVal: true, Storage: 'p'}},
		{Int2, Layout{Len: 2, Align: 's', ByVal: true, Storage: 'p'}},
		{Int2VectorType, Layout{Len: -1, Align: 'i', ByVal: false, Storage: 'p'}},
		{Int4, Layout{Len: 4, Align: 'i', ByVal: true, Storage: 'p'}},
		{Text, Layout{Len: -1, Align: 'i', ByVal: false, Storage: 'x'}},
		{Oid, Layout{Len: 4, Align: 'i', ByVal: true, Storage: 'p'}},
		{Float4, Layout{Len: 4, Align: 'i', ByVal: true, Storage: 'p'}},
		{Float8, Layout{Len: 8, Align: 'd', ByVal: true, Storage: 'p'}},
		{Unknown, Layout{Len: -2, Align: 'c', ByVal: false, Storage: 'p'}},
		{Type{OID: BpcharOID, Typmod: 9}, Layout{Len: -1, Align: 'i', ByVal: false, Storage: 'x'}},
		{Type{OID: VarcharOID, Typmod: 9}, Layout{Len: -1, Align: 'i', ByVal: false, Storage: 'x'}},
		{Timestamp, Layout{Len: 8, Align: 'd', ByVal: true, Storage: 'p'}},
		{Timestamptz, Layout{Len: 8, Align: 'd', ByVal: true, Storage: 'p'}},
	}
	for _, tt := range tests {
		if got := tt.typ.Layout(); got != tt.want {
			t.Errorf("%d.Layout() = %+v, want %+v", tt.typ.OID, got, tt.want)
		}
	}
}

func TestDataSizeKnownPostgres(t *testing.T) {
	md5hex := strings.Repeat("a", 32)
	tests := []struct {
		name  string
		types []Type
		vals  []Datum
		want  int
	}{
		// pgbench-like row: 24-byte header + 48 = 72 bytes, 107 per 8 KiB page
		{"int4,text32,float8", []Type{Int4, Text, Float8}, []Datum{Int(1), Str(md5hex), Float(1.5)}, 48},
		{"4xint4,2xtext32", []Type{Int4, Int4, Int4, Int4, Text, Text},
			[]Datum{Int(1), Int(2), Int(3), Int(4), Str(md5hex), Str(md5hex)}, 82},
		{"btree int4", []Type{Int4}, []Datum{Int(1)}, 4},
		{"btree float8", []Type{Float8}, []Datum{Float(1)}, 8},
		{"null skipped", []Type{Int4, Text, Float8}, []Datum{Null(), Str(md5hex), Float(1.5)}, 33 + 7 + 8},
		{"126-byte text short", []Type{Text}, []Datum{Str(strings.Repeat("x", 126))}, 127},
		{"127-byte text long", []Type{Text}, []Datum{Str(strings.Repeat("x", 127))}, 131},
		{"int2 then long text aligned", []Type{Int2, Text}, []Datum{Int(1), Str(strings.Repeat("x", 200))}, 4 + 204},
		{"pgbench_accounts", []Type{Int4, Int4, Int4, {OID: BpcharOID, Typmod: 88}},
			[]Datum{Int(1), Int(1), Int(0), Str(strings.Repeat(" ", 84))}, 12 + 1 + 84},
		{"int2vector is never short", []Type{Int2, Int2VectorType}, []Datum{Int(1), Int2Vector([]int16{1, 2})}, 4 + 28},
		{"name", []Type{Boolean, Name}, []Datum{Bool(true), Str("abc")}, 65},
	}
	for _, tt := range tests {
		if got := DataSize(tt.types, tt.vals); got != tt.want {
			t.Errorf("%s: DataSize = %d, want %d", tt.name, got, tt.want)
		}
		if got := NewDeformer(tt.types).DataSize(tt.vals); got != tt.want {
			t.Errorf("%s: Deformer.DataSize = %d, want %d", tt.name, got, tt.want)
		}
	}
	// 8192-byte page, 24-byte page header, 4-byte line pointers, 24-byte tuple header
	row := 24 + 48
	if n := (8192 - 24) / (MaxAlign(row) + 4); n != 107 {
		t.Errorf("rows per page = %d, want 107", n)
	}
}

func TestDeformerUpTo(t *testing.T) {
	types := []Type{Int4, Int8, Int2, Float8, Text, Int4}
	vals := []Datum{Int(-7), Int(1 << 40), Int(3), Float(2.25), Str("hello"), Int(9)}
	buf := make([]byte, DataSize(types, vals))
	FillData(buf, types, vals)
	d := NewDeformer(types)
	for upTo := 0; upTo <= len(types); upTo++ {
		out := make([]Datum, len(types))
		if err := d.Deform(buf, nil, out, upTo); err != nil {
			t.Fatal(err)
		}
		for i := range types {
			if i < upTo {
				if !sameValue(out[i], vals[i]) {
					t.Errorf("upTo %d: attr %d = %v", upTo, i, out[i])
				}
			} else if !out[i].IsNull() {
				t.Errorf("upTo %d: attr %d decoded", upTo, i)
			}
		}
	}
	// strings must not alias the page
	out := make([]Datum, len(types))
	_ = d.Deform(buf, nil, out, len(types))
	clear(buf)
	if out[4].Str() != "hello" {
		t.Errorf("string aliases the source buffer: %q", out[4].Str())
	}
	// corrupt input is an error, not a panic
	if err := d.Deform(buf[:10], nil, out, len(types)); err == nil {
		t.Errorf("short tuple: no error")
	}
}

func TestRoundTripManyStrings(t *testing.T) {
	// more string attributes than the span buffer, mixed with NULLs
	n := 50
	types := make([]Type, n)
	vals := make([]Datum, n)
	for i := range types {
		types[i] = Text
		if i%7 == 3 {
			continue
		}
		vals[i] = Str(strings.Repeat(string(rune('a'+i%26)), i*5))
	}
	buf := make([]byte, DataSize(types, vals))
	FillData(buf, types, vals)
	bm := make([]byte, BitmapLen(n))
	FillNullBitmap(bm, vals)
	out := make([]Datum, n)
	if err := NewDeformer(types).Deform(buf, bm, out, n); err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if out[i].IsNull() != vals[i].IsNull() || out[i].Str() != vals[i].Str() {
			t.Errorf("attr %d: got %q want %q", i, out[i].Str(), vals[i].Str())
		}
	}
}

func BenchmarkFillData(b *testing.B) {
	types := []Type{Int4, Text, Float8}
	vals := []Datum{Int(1), Str("0123456789abcdef0123456789abcdef"), Float(1.5)}
	d := NewDeformer(types)
	buf := make([]byte, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n := d.DataSize(vals)
		d.FillData(buf[:n], vals)
	}
}

func BenchmarkDeform(b *testing.B) {
	types := []Type{Int4, Text, Float8}
	vals := []Datum{Int(1), Str("0123456789abcdef0123456789abcdef"), Float(1.5)}
	d := NewDeformer(types)
	buf := make([]byte, d.DataSize(vals))
	d.FillData(buf, vals)
	out := make([]Datum, 3)
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = d.Deform(buf, nil, out, 3)
		}
	})
	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = d.Deform(buf, nil, out, 1)
		}
	})
}

// sameValue compares decoded values: the integer field of a string value
// records its stored form (toast.go), not its value.
func sameValue(a, b Datum) bool {
	if a.Kind() != b.Kind() || a.Str() != b.Str() {
		return false
	}
	return a.Kind() == KindStr || a.Kind() == KindNumeric || a.Int() == b.Int()
}

// A tuple storing fewer attributes than its descriptor reads the others
// as their missing value or NULL, with and without skipped columns, and
// leaves out beyond upTo alone.
func TestDeformTupleMissing(t *testing.T) {
	stored := []Type{Int4, Text}
	vals := []Datum{Int(7), Str("seven")}
	d := NewDeformer(stored)
	src := make([]byte, d.DataSize(vals))
	d.FillData(src, vals)
	wide := NewDeformer([]Type{Int4, Text, Int8, Text, Int4}).WithMissing([]Datum{{}, {}, Int(42)})
	for _, skip := range []uint64{0, 1 << 1} {
		out := []Datum{{}, {}, {}, {}, Int(-9)}
		if err := wide.DeformTuple(src, nil, 2, out, 4, skip); err != nil {
			t.Fatal(err)
		}
		if out[0].Int() != 7 || out[2].Int() != 42 || !out[3].IsNull() || out[4].Int() != -9 {
			t.Errorf("skip %b: %v", skip, out)
		}
		if (skip == 0) != (out[1].Str() == "seven") || (skip != 0) != out[1].IsNull() {
			t.Errorf("skip %b: column 2 is %v", skip, out[1])
		}
	}
	// WithMissing makes a new Deformer: wide keeps its missing values.
	out := make([]Datum, 3)
	if err := wide.WithMissing(nil).DeformTuple(src, nil, 2, out, 3, 0); err != nil || !out[2].IsNull() {
		t.Errorf("without missing values: %v %v", out, err)
	}
	if err := wide.DeformTuple(src, nil, 2, out, 3, 0); err != nil || out[2].Int() != 42 {
		t.Errorf("wide lost its missing values: %v %v", out, err)
	}
}
