package datum

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/datum/varatt"
)

func TestConstructorsAndAccessors(t *testing.T) {
	if !Null().IsNull() || (Datum{}) != Null() || Int(0).IsNull() || Str("").IsNull() {
		t.Fatal("NULL is the zero Datum and only it")
	}
	if d := Int(-5); d.Kind() != KindInt || d.Int() != -5 {
		t.Errorf("Int: %+v", d)
	}
	if d := Float(-0.5); d.Kind() != KindFloat || d.Float() != -0.5 {
		t.Errorf("Float: %+v", d)
	}
	if d := Float(math.NaN()); !math.IsNaN(d.Float()) {
		t.Errorf("Float NaN: %v", d.Float())
	}
	if !Bool(true).Bool() || Bool(false).Bool() || Bool(false).Kind() != KindBool {
		t.Error("Bool")
	}
	if d := TimestampMicros(math.MaxInt64); d.Kind() != KindTime || d.Micros() != math.MaxInt64 {
		t.Errorf("TimestampMicros: %+v", d)
	}
	if d := StrOfKind(KindNumeric, "\x01\x02"); d.Kind() != KindNumeric || d.Str() != "\x01\x02" {
		t.Errorf("StrOfKind: %+v", d)
	}
	if d := IntOfKind(KindTime, 7); d != TimestampMicros(7) {
		t.Errorf("IntOfKind: %+v", d)
	}
	v := []int16{1, -2, 32767}
	if got := Int2Vector(v).Int2Vector(); len(got) != 3 || got[0] != 1 || got[1] != -2 || got[2] != 32767 {
		t.Errorf("Int2Vector round trip: %v", got)
	}
	blk, off := TidParts(TidDatum(0xfffffffe, 291))
	if blk != 0xfffffffe || off != 291 || TidDatum(1, 2).Int() >= TidDatum(2, 1).Int() {
		t.Errorf("tid: (%d,%d), or integer order is not TID order", blk, off)
	}
}

func TestArrayElems(t *testing.T) {
	elems := []Datum{Int(-1), Null(), Float(2.5), Bool(true), Str("x,y"), TimestampMicros(9),
		StrOfKind(KindNumeric, "num"), Str(strings.Repeat("z", 300)), Int2Vector([]int16{4})}
	a := Array(elems)
	if a.Kind() != KindArray {
		t.Fatalf("kind %d", a.Kind())
	}
	got := a.Elems()
	if len(got) != len(elems) {
		t.Fatalf("%d elements, want %d", len(got), len(elems))
	}
	for i := range elems {
		want := elems[i]
		if got[i] != want {
			t.Errorf("element %d: %+v, want %+v", i, got[i], want)
		}
	}
	if len(Array(nil).Elems()) != 0 {
		t.Error("empty array has elements")
	}
}

func TestTidAndFixedBytesOnDisk(t *testing.T) {
	ts := []Type{Int2, Tid, UUID, Interval}
	uuid := "0123456789abcdef"
	iv := strings.Repeat("\x07", 16)
	vals := []Datum{Int(3), TidDatum(0x00010002, 5), Str(uuid), Str(iv)}
	// int2 at 0; tid (align 's') at 2..8; uuid (align 'c') at 8..24;
	// interval (align 'd') at 24..40.
	if n := DataSize(ts, vals); n != 40 {
		t.Fatalf("DataSize %d, want 40", n)
	}
	buf := bytes.Repeat([]byte{0xee}, 40)
	FillData(buf, ts, vals)
	if !bytes.Equal(buf[2:8], []byte{1, 0, 2, 0, 5, 0}) {
		t.Errorf("ItemPointerData %x, want block halves high first, then offset", buf[2:8])
	}
	out := make([]Datum, len(ts))
	if err := NewDeformer(ts).Deform(buf, nil, out, len(ts)); err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if out[i] != vals[i] {
			t.Errorf("attr %d: %+v, want %+v", i, out[i], vals[i])
		}
	}
}

type fakeDetoaster map[uint32][]byte

func (f fakeDetoaster) Detoast(p varatt.External) ([]byte, error) {
	if b, ok := f[p.ValueID]; ok {
		return b, nil
	}
	return nil, errors.New("no such value")
}

// A value stored externally or compressed reads back as its plain bytes
// and remembers the form it was stored in (pg_column_size,
// pg_column_compression, UPDATE's reuse of the TOAST pointer).
func TestStoredVarlenaRoundTrip(t *testing.T) {
	long := strings.Repeat("abcdefgh", 500)
	ext := varatt.External{RawSize: int32(len(long) + varatt.HdrSz), ExtInfo: uint32(len(long)), ValueID: 77, ToastRelID: 9}
	comp := varatt.Compress(varatt.PGLZ, []byte(long))
	if comp == nil {
		t.Fatal("test value does not compress")
	}
	ts := []Type{Int4, Text, Text, Text}
	vals := []Datum{Int(1), StoredVarlena(ext.Encode()), StoredVarlena(comp), Str("short")}
	if !vals[1].IsExternalStored() || vals[2].IsExternalStored() || !vals[2].IsStored() {
		t.Fatal("stored-form predicates")
	}
	n := DataSize(ts, vals)
	// int4, an unaligned 18-byte pointer, the compressed value aligned to
	// 4, a 1-byte header and 5 bytes.
	want := 4 + varatt.PointerSize + 2 + len(comp) + 6
	if n != want {
		t.Fatalf("DataSize %d, want %d", n, want)
	}
	buf := make([]byte, n)
	FillData(buf, ts, vals)
	d := NewDeformer(ts)
	out := make([]Datum, len(ts))
	if err := d.Deform(buf, nil, out, len(ts)); err == nil {
		t.Fatal("a TOAST pointer without a detoaster must be an error")
	}
	if err := d.WithDetoaster(fakeDetoaster{77: []byte(long)}).Deform(buf, nil, out, len(ts)); err != nil {
		t.Fatal(err)
	}
	if out[1].Str() != long || out[2].Str() != long || out[3].Str() != "short" {
		t.Fatal("values do not read back")
	}
	if p, ok := out[1].ToastPointer(9); !ok || p != ext {
		t.Errorf("ToastPointer %+v %v, want %+v", p, ok, ext)
	}
	if _, ok := out[2].ToastPointer(9); ok {
		t.Error("an inline compressed value has no TOAST pointer")
	}
	if got := out[1].StoredSize(); got != len(long) {
		t.Errorf("external StoredSize %d, want %d", got, len(long))
	}
	if got := out[2].StoredSize(); got != len(comp) {
		t.Errorf("compressed StoredSize %d, want %d", got, len(comp))
	}
	if got := out[3].StoredSize(); got != 6 {
		t.Errorf("short StoredSize %d, want 6", got)
	}
	if got := Str("computed").StoredSize(); got != 8+varatt.HdrSz {
		t.Errorf("computed StoredSize %d", got)
	}
	if m, ok := out[2].StoredMethod(); !ok || m != varatt.PGLZ {
		t.Errorf("StoredMethod %v %v", m, ok)
	}
	if _, ok := out[3].StoredMethod(); ok {
		t.Error("a plain value has no compression method")
	}
	var seen []int
	err := d.ExternalPointers(buf, nil, len(ts), func(attno int, p varatt.External) error {
		if p != ext {
			t.Errorf("pointer %+v", p)
		}
		seen = append(seen, attno)
		return nil
	})
	if err != nil || len(seen) != 1 || seen[0] != 1 {
		t.Errorf("ExternalPointers: %v %v", seen, err)
	}
	// skipping the external and compressed columns fetches nothing
	if err := d.DeformSkipping(buf, nil, out, len(ts), 1<<1|1<<2); err != nil {
		t.Fatal(err)
	}
	if !out[1].IsNull() || !out[2].IsNull() || out[3].Str() != "short" {
		t.Error("DeformSkipping")
	}
}

func TestSameBytesAndSizes(t *testing.T) {
	a := Str(strings.Repeat("q", 40))
	b := Str(strings.Repeat("q", 40))
	if !SameBytes(a, a) || SameBytes(a, b) {
		t.Error("SameBytes compares identity, not equality")
	}
	if VarlenaSize(a) != 44 || len(Payload(a)) != 40 || Payload(Str("")) != nil {
		t.Error("VarlenaSize / Payload")
	}
	if !Toastable(Text) || !Toastable(Numeric) || Toastable(Int4) || Toastable(Name) || Toastable(Int2VectorType) {
		t.Error("Toastable")
	}
	if ColumnSize(Int8, Int(1)) != 8 || ColumnSize(Unknown, Str("ab")) != 3 || ColumnSize(Int2VectorType, Int2Vector([]int16{1})) != 2+20+4 {
		t.Error("ColumnSize")
	}
	if err := CheckAllocSize(Str("x")); err != nil {
		t.Error(err)
	}
}

func TestCorruptTuplesAreErrors(t *testing.T) {
	ts := []Type{Text, Int4}
	d := NewDeformer(ts)
	out := make([]Datum, 2)
	for _, src := range [][]byte{
		{},                  // nothing
		{0x0b, 'a'},         // 1-byte header claims 5 bytes
		{0, 0, 0, 0, 0, 0},  // zero padding then a 4-byte header < 4
		{0x02, 0, 0, 0},     // a compressed header with no room for its payload
		{0x01, 0x05, 0, 0},  // a TOAST pointer with a wrong tag
		{0x07, 'a', 'b', 3}, // text fine, int4 missing
	} {
		if err := d.Deform(src, nil, out, 2); err == nil {
			t.Errorf("%x: no error", src)
		}
	}
}
