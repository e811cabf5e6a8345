package types

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestParseTypmod checks the input functions with a typmod (COPY, INSERT
// of a literal into a column): too-long values are errors, not truncated.
func TestParseTypmod(t *testing.T) {
	tests := []struct {
		typ  Type
		in   string
		want string
		code string
		msg  string
	}{
		{Varchar(5), "abc", "abc", "", ""},
		{Varchar(5), "abcdef", "", pgerr.StringDataRightTruncation, "value too long for type character varying(5)"},
		{Varchar(5), "abcde   ", "abcde", "", ""},
		{Varchar(3), "héé", "héé", "", ""},
		{Varchar(3), "héé!", "", pgerr.StringDataRightTruncation, "value too long for type character varying(3)"},
		{Bpchar(5), "ab", "ab   ", "", ""},
		{Bpchar(5), "abcdef", "", pgerr.StringDataRightTruncation, "value too long for type character(5)"},
		{Bpchar(2), "é", "é ", "", ""},
		{Bpchar(84), "", "                                                                                    ", "", ""},
		{Type{OID: TimestampOID, Typmod: 0}, "2024-01-02 03:04:05.5", "2024-01-02 03:04:06", "", ""},
		// PostgreSQL 16+ integer input forms
		{Int4, "0x1F", "31", "", ""},
		{Int4, "0o17", "15", "", ""},
		{Int4, "0b101", "5", "", ""},
		{Int4, "-0x80000000", "-2147483648", "", ""},
		{Int4, "0x80000000", "", pgerr.NumericValueOutOfRange, `value "0x80000000" is out of range for type integer`},
		{Int4, "1_000_000", "1000000", "", ""},
		{Int4, "_1", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "_1"`},
		{Int4, "1_", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "1_"`},
		{Int4, "1__0", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "1__0"`},
		{Int4, "0x", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "0x"`},
		{Int8, "0x7FFFFFFFFFFFFFFF", "9223372036854775807", "", ""},
		{Int8, "-9223372036854775808", "-9223372036854775808", "", ""},
		{Int2, "0x7fff", "32767", "", ""},
		{Int4, "-", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "-"`},
		{Name, "abc", "abc", "", ""},
	}
	for _, tt := range tests {
		d, err := Parse(tt.typ, tt.in)
		if tt.code != "" {
			if err == nil || pgerr.Code(err) != tt.code || err.Error() != tt.msg {
				t.Errorf("Parse(%s, %q) = %q, %v; want %s %q", tt.typ, tt.in, FormatText(tt.typ, d), err, tt.code, tt.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%s, %q): %v", tt.typ, tt.in, err)
			continue
		}
		if got := FormatText(tt.typ, d); got != tt.want {
			t.Errorf("Parse(%s, %q) = %q, want %q", tt.typ, tt.in, got, tt.want)
		}
	}
}

func TestFloatOutput(t *testing.T) {
	tests := []struct {
		f    float64
		bits int
		want string
	}{
		{1e15, 64, "1e+15"},
		{1.5e-5, 64, "1.5e-05"},
		{123456789012345, 64, "123456789012345"},
		{math.Log10(500), 64, "2.6989700043360187"},
		{0.30000000000000004, 64, "0.30000000000000004"},
		{1e100, 64, "1e+100"},
		{-1.25, 64, "-1.25"},
		{0.0001, 64, "0.0001"},
		{100, 64, "100"},
		{1e14, 64, "100000000000000"},
		{math.MaxFloat64, 64, "1.7976931348623157e+308"},
		{5e-324, 64, "5e-324"},
		{math.Copysign(0, -1), 64, "-0"},
		{math.NaN(), 64, "NaN"},
		{math.Inf(1), 64, "Infinity"},
		{math.Inf(-1), 64, "-Infinity"},
		{1e6, 32, "1e+06"},
		{123456, 32, "123456"},
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(3.14159265)), 32, "3.1415927"},
		{1e-5, 32, "1e-05"},
		{float64(float32(16777216)), 32, "1.6777216e+07"},
	}
	for _, tt := range tests {
		typ := Float8
		if tt.bits == 32 {
			typ = Float4
		}
		if got := FormatText(typ, Float(tt.f)); got != tt.want {
			t.Errorf("FormatText(%s, %v) = %q, want %q", typ, tt.f, got, tt.want)
		}
	}
}

// TestFloatRoundTrip: output is the shortest text that reads back exactly.
func TestFloatRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) {
			continue
		}
		s := FormatText(Float8, Float(f))
		d, err := Parse(Float8, s)
		if err != nil || d.Float() != f {
			t.Fatalf("float8 %v -> %q -> %v, %v", f, s, d.Float(), err)
		}
		if len(s) > len(strconv.FormatFloat(f, 'g', -1, 64))+6 {
			t.Fatalf("float8 %v -> %q too long", f, s)
		}
		f4 := float64(math.Float32frombits(r.Uint32()))
		if math.IsNaN(f4) {
			continue
		}
		s = FormatText(Float4, Float(f4))
		d, err = Parse(Float4, s)
		if err != nil || d.Float() != f4 {
			t.Fatalf("float4 %v -> %q -> %v, %v", f4, s, d.Float(), err)
		}
	}
}

func TestTimestampRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		us := minTimestamp + int64(r.Uint64N(uint64(endTimestamp)+uint64(-minTimestamp)))
		s := FormatText(Timestamp, TimestampMicros(us))
		d, err := Parse(Timestamp, s)
		if err != nil || d.Micros() != us {
			t.Fatalf("%d -> %q -> %d, %v", us, s, d.Micros(), err)
		}
	}
	d := mustParse(t, Timestamp, "2000-01-01 00:00:00")
	if d.Micros() != 0 {
		t.Errorf("epoch 2000 = %d", d.Micros())
	}
	d = mustParse(t, Timestamp, "1970-01-01")
	if TimeFromTimestamp(d.Micros()).Unix() != 0 {
		t.Errorf("unix epoch wrong: %v", TimeFromTimestamp(d.Micros()))
	}
}

func TestOutputMisc(t *testing.T) {
	tests := []struct {
		typ  Type
		d    Datum
		want string
	}{
		{Boolean, Bool(true), "t"},
		{Boolean, Bool(false), "f"},
		{Bytea, Str("\x0a\x0b"), `\x0a0b`},
		{Bytea, Str(""), `\x`},
		{Int2VectorType, Int2Vector([]int16{1, 2}), "1 2"},
		{Int2VectorType, Int2Vector(nil), ""},
		{Timestamp, TimestampMicros(0), "2000-01-01 00:00:00"},
		{Timestamp, TimestampMicros(123456), "2000-01-01 00:00:00.123456"},
		{Timestamp, TimestampMicros(100000), "2000-01-01 00:00:00.1"},
		{Timestamp, TimestampMicros(-1), "1999-12-31 23:59:59.999999"},
		{Timestamptz, TimestampMicros(0), "2000-01-01 00:00:00+00"},
		{Oid, Int(4294967295), "4294967295"},
		{Int8, Int(math.MinInt64), "-9223372036854775808"},
		{Char, Int(0), ""},
		{Char, Int(0xc8), `\310`},
	}
	for _, tt := range tests {
		if got := FormatText(tt.typ, tt.d); got != tt.want {
			t.Errorf("FormatText(%s) = %q, want %q", tt.typ, got, tt.want)
		}
	}
	if v := Int2Vector([]int16{-3, 7}).Int2Vector(); len(v) != 2 || v[0] != -3 || v[1] != 7 {
		t.Errorf("Int2Vector round trip: %v", v)
	}
	if !Null().IsNull() || !(Datum{}).IsNull() || Int(0).IsNull() || Str("").IsNull() {
		t.Errorf("IsNull wrong")
	}
}

func BenchmarkParseInt4(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = Parse(Int4, "123456")
	}
}

func BenchmarkAppendFloat8(b *testing.B) {
	buf := make([]byte, 0, 32)
	d := Float(2.6989700043360187)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = AppendText(buf[:0], Float8, d)
	}
}
