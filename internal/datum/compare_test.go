package datum

import (
	"cmp"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// randValue returns a random non-NULL value of a builtin type, drawn from
// a small domain so that equal values are frequent.
func randValue(rng *rand.Rand, t Type) Datum {
	switch t.OID {
	case BoolOID:
		return Bool(rng.Intn(2) == 0)
	case CharOID:
		return Int(int64(rng.Intn(256)))
	case Int2OID:
		return Int(int64(rng.Intn(65536) - 32768))
	case Int4OID:
		return Int(int64(rng.Intn(2000) - 1000))
	case OidOID:
		return Int(int64(rng.Uint32()))
	case Int8OID, TimestampOID:
		return Int(rng.Int63() - rng.Int63())
	case Float4OID, Float8OID:
		vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1.5, -1.5, 3}
		if rng.Intn(2) == 0 {
			return Float(vals[rng.Intn(len(vals))])
		}
		return Float(float64(float32(rng.NormFloat64())))
	case TextOID, ByteaOID, NameOID:
		n := rng.Intn(4)
		if rng.Intn(8) == 0 && t.OID != NameOID {
			n = 127 + rng.Intn(200) // a 4-byte header
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab\x00\xff"[rng.Intn(4)]
		}
		if t.OID == NameOID {
			return Str(strings.ReplaceAll(string(b), "\x00", "c"))
		}
		return Str(string(b))
	case BpcharOID:
		return Str(strings.Repeat("a", rng.Intn(3)) + strings.Repeat(" ", rng.Intn(3)))
	case NumericOID:
		vals := []string{NumericNaNPayload, NumericPInfPayload, NumericNInfPayload,
			NumericPayload(false, 0, 0, nil), NumericPayload(false, 0, 2, nil),
			NumericPayload(false, 0, 0, []int16{5}), NumericPayload(false, 0, 3, []int16{5}),
			NumericPayload(true, 0, 0, []int16{5}), NumericPayload(false, 0, 1, []int16{5, 5000}),
			NumericPayload(false, 75, 0, []int16{1}), NumericPayload(true, 75, 0, []int16{1}),
			NumericPayload(false, -20, 80, []int16{1}), NumericPayload(false, -1, 4, []int16{1})}
		return StrOfKind(KindNumeric, vals[rng.Intn(len(vals))])
	}
	panic("type")
}

// Every builtin comparator that compares in place agrees with its Compare
// on the decoded value, whatever precedes the attribute in the tuple
// (alignment, NULLs, 1- and 4-byte varlena headers).
func TestCompareStoredAgreesWithCompare(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	all := []Type{Boolean, Char, Int2, Int4, Oid, Int8, Timestamp, Float4, Float8, Text, Bytea, Name, BpcharAny, Numeric}
	for _, typ := range all {
		c := DefaultComparator(typ)
		if c.Compare == nil || c.CompareStored == nil {
			t.Fatalf("%d: no in-place comparator", typ.OID)
		}
		for iter := 0; iter < 400; iter++ {
			// a random prefix of other columns, some NULL, then the column
			ts := []Type{all[rng.Intn(len(all))], all[rng.Intn(len(all))], typ}
			vals := make([]Datum, len(ts))
			for i, pt := range ts {
				if i < 2 && rng.Intn(3) == 0 {
					continue
				}
				vals[i] = randValue(rng, pt)
			}
			d := NewDeformer(ts)
			src := make([]byte, d.DataSize(vals))
			d.FillData(src, vals)
			bitmap := make([]byte, 1)
			FillNullBitmap(bitmap, vals)
			off := 0
			var stored []byte
			for i := range ts {
				if vals[i].IsNull() {
					continue
				}
				v, next, ok := d.StoredAttr(src, i, off)
				if !ok {
					t.Fatalf("%v: attribute %d not readable in place", ts, i)
				}
				if co, n, cok := d.CachedAttr(i); cok && !vals[0].IsNull() && !vals[1].IsNull() &&
					(co+n != next || string(src[co:co+n]) != string(v)) {
					t.Fatalf("%v: attribute %d cached at %d+%d, read in place at ..%d", ts, i, co, n, next)
				}
				stored, off = v, next
			}
			if off != len(src) {
				t.Fatalf("%v: walk ended at %d of %d", ts, off, len(src))
			}
			decoded := make([]Datum, len(ts))
			if err := d.Deform(src, bitmap, decoded, len(ts)); err != nil {
				t.Fatal(err)
			}
			key := randValue(rng, typ)
			want := sign(c.Compare(key, decoded[2]))
			if c.SignedInt && sign(cmp.Compare(key.Int(), decoded[2].Int())) != want {
				t.Fatalf("type %d: SignedInt, but Compare is not the integer field's order", typ.OID)
			}
			if got := sign(c.CompareStored(key, stored)); got != want {
				t.Fatalf("type %d: key %q vs stored %q: in place %d, decoded %d", typ.OID, key.Str(), decoded[2].Str(), got, want)
			}
			if sign(c.Compare(decoded[2], vals[2])) != 0 {
				t.Fatalf("type %d: decoded value differs from the stored one", typ.OID)
			}
		}
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// What cannot be read in place says so instead of returning wrong bytes.
func TestStoredAttrRefuses(t *testing.T) {
	ts := []Type{Text, Text, Unknown, Int2VectorType}
	d := NewDeformer(ts)
	if !d.ReadableInPlace(0) || d.ReadableInPlace(2) || d.ReadableInPlace(3) {
		t.Fatal("ReadableInPlace: text yes, cstring and int2vector no")
	}
	compressed := []byte{0x1a, 0, 0, 0, 10, 0, 0, 0, 1, 2} // 4-byte header with the compressed bits
	vals := []Datum{StoredVarlena(compressed), Str("x"), Str("y"), Int2Vector([]int16{1})}
	src := make([]byte, d.DataSize(vals))
	d.FillData(src, vals)
	if _, _, ok := d.StoredAttr(src, 0, 0); ok {
		t.Error("a compressed value was read in place")
	}
	if _, _, ok := d.StoredAttr(src[:3], 1, 0); ok {
		t.Error("truncated data was read in place")
	}
}

// Numeric payloads order as numerics (cmp_numerics), whatever their
// header form and display scale.
func TestCompareNumeric(t *testing.T) {
	ordered := [][]string{
		{NumericNInfPayload},
		{NumericPayload(true, 75, 0, []int16{1})}, // -1e300
		{NumericPayload(true, 0, 0, []int16{5}), NumericPayload(true, 0, 40, []int16{5})}, // -5, -5.000…
		{NumericPayload(true, -1, 4, []int16{1})},                                         // -0.0001
		{NumericPayload(false, 0, 0, nil), NumericPayload(false, 0, 100, nil)},            // 0, 0.000… (long form)
		{NumericPayload(false, -20, 80, []int16{1})},                                      // 1e-80
		{NumericPayload(false, 0, 1, []int16{5}), NumericPayload(false, 0, 2, []int16{5})},
		{NumericPayload(false, 0, 4, []int16{5, 1})}, // 5.0001
		{NumericPayload(false, 1, 0, []int16{1})},    // 10000
		{NumericPayload(false, 75, 0, []int16{1})},   // 1e300
		{NumericPInfPayload},
		{NumericNaNPayload},
	}
	for i, ci := range ordered {
		for j, cj := range ordered {
			for _, a := range ci {
				for _, b := range cj {
					if got, want := sign(CompareNumeric(a, b)), sign(i-j); got != want {
						t.Errorf("class %d vs %d (%x vs %x): %d, want %d", i, j, a, b, got, want)
					}
				}
			}
		}
	}
}

// NumericPayload writes what NumericHeader reads, choosing the short form
// exactly when PostgreSQL's make_result does.
func TestNumericPayloadHeader(t *testing.T) {
	for _, tc := range []struct {
		neg            bool
		weight, dscale int
		short          bool
	}{
		{false, 0, 0, true}, {true, -64, 63, true}, {false, 63, 5, true},
		{true, 64, 0, false}, {false, -65, 0, false}, {false, 0, 64, false}, {true, -300, 16383, false},
	} {
		p := NumericPayload(tc.neg, tc.weight, tc.dscale, []int16{1, 9999})
		sp, neg, w, dsc, off := NumericHeader(p)
		if sp != NumericFinite || neg != tc.neg || w != tc.weight || dsc != tc.dscale || (off == 2) != tc.short {
			t.Errorf("%+v: header read back as %v %v %d %d off %d", tc, sp, neg, w, dsc, off)
		}
		if NumericDigitAt(p, off, 0) != 1 || NumericDigitAt(p, off, 1) != 9999 || len(p) != off+4 {
			t.Errorf("%+v: digits", tc)
		}
	}
	for p, want := range map[string]NumericSpecial{NumericNaNPayload: NumericNaN, NumericPInfPayload: NumericPInf, NumericNInfPayload: NumericNInf} {
		if sp, _, _, _, _ := NumericHeader(p); sp != want {
			t.Errorf("%x: %v, want %v", p, sp, want)
		}
	}
}

// Floats order as float8_cmp_internal; bpchar ignores trailing spaces;
// types without an ordering here fall back to their kind when no SQL type
// system is installed (this package's tests install none).
func TestDefaultComparatorOrders(t *testing.T) {
	fl := []float64{math.Inf(-1), -1, math.Copysign(0, -1), 0, 2, math.Inf(1), math.NaN()}
	c := DefaultComparator(Float8)
	for i := range fl {
		for j := range fl {
			want := sign(i - j)
			if fl[i] == 0 && fl[j] == 0 {
				want = 0
			}
			if got := sign(c.Compare(Float(fl[i]), Float(fl[j]))); got != want {
				t.Errorf("%v vs %v: %d, want %d", fl[i], fl[j], got, want)
			}
		}
	}
	if DefaultComparator(BpcharAny).Compare(Str("ab  "), Str("ab")) != 0 || DefaultComparator(Text).Compare(Str("ab  "), Str("ab")) <= 0 {
		t.Error("bpchar ignores trailing spaces, text does not")
	}
	if DefaultComparator(Oid).Compare(Int(math.MaxUint32), Int(1)) <= 0 {
		t.Error("oid orders unsigned")
	}
	dates := []Datum{Int(-5), Int(3), Int(-7), Int(0)}
	dc := DefaultComparator(Date)
	if dc.CompareStored != nil {
		t.Error("date: no in-place ordering is defined here")
	}
	sort.Slice(dates, func(i, j int) bool { return dc.Compare(dates[i], dates[j]) < 0 })
	if dates[0].Int() != -7 || dates[3].Int() != 3 {
		t.Errorf("date by kind: %v", dates)
	}
}
