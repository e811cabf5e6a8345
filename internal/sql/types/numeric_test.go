package types

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Expected values in this file were captured from PostgreSQL 15.

func numT(typmod int32) Type { return Type{OID: NumericOID, Typmod: typmod} }

func mustNumTypmod(t *testing.T, mods ...int32) int32 {
	t.Helper()
	m, err := NumericTypmod(mods)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNumericTextIO(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"0", "0"},
		{"  1.50  ", "1.50"},
		{"-0.00", "0.00"},
		{".5", "0.5"},
		{"5.", "5"},
		{"+7", "7"},
		{"1e3", "1000"},
		{"1.5e-3", "0.0015"},
		{"1.5E+2", "150"},
		{"00012.3400", "12.3400"},
		{"12345678.9", "12345678.9"},
		{"-0.00012", "-0.00012"},
		{"9999.9999", "9999.9999"},
		{"10000", "10000"},
		{"NaN", "NaN"},
		{"nan", "NaN"},
		{"Infinity", "Infinity"},
		{"+inf", "Infinity"},
		{"-INF", "-Infinity"},
		{" -Infinity ", "-Infinity"},
		{"1e-70", "0.0000000000000000000000000000000000000000000000000000000000000000000001"},
		{"123456789012345678901234567890.123456789", "123456789012345678901234567890.123456789"},
	}
	for _, tt := range tests {
		d, err := Parse(Numeric, tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := FormatText(Numeric, d); got != tt.want {
			t.Errorf("Parse(%q) prints %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNumericInputErrors(t *testing.T) {
	tests := []struct {
		in   string
		typ  Type
		code string
		msg  string
		det  string
	}{
		{"abc", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "abc"`, ""},
		{".", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "."`, ""},
		{"1e", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "1e"`, ""},
		{"1_000", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "1_000"`, ""},
		{"1.2.3", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "1.2.3"`, ""},
		{"NaNx", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "NaNx"`, ""},
		{"", Numeric, pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: ""`, ""},
		{"1e-20000", Numeric, pgerr.NumericValueOutOfRange, "value overflows numeric format", ""},
		{"1e200000", Numeric, pgerr.NumericValueOutOfRange, "value overflows numeric format", ""},
		{"123.456", numT(mustNumTypmod(t, 4, 2)), pgerr.NumericValueOutOfRange, "numeric field overflow",
			"A field with precision 4, scale 2 must round to an absolute value less than 10^2."},
		{"99.995", numT(mustNumTypmod(t, 4, 2)), pgerr.NumericValueOutOfRange, "numeric field overflow",
			"A field with precision 4, scale 2 must round to an absolute value less than 10^2."},
		{"5", numT(mustNumTypmod(t, 3, 3)), pgerr.NumericValueOutOfRange, "numeric field overflow",
			"A field with precision 3, scale 3 must round to an absolute value less than 1."},
		{"Infinity", numT(mustNumTypmod(t, 5, 2)), pgerr.NumericValueOutOfRange, "numeric field overflow",
			"A field with precision 5, scale 2 cannot hold an infinite value."},
	}
	for _, tt := range tests {
		_, err := Parse(tt.typ, tt.in)
		if err == nil {
			t.Errorf("Parse(%s, %q) succeeded, want %s", tt.typ, tt.in, tt.msg)
			continue
		}
		pe, ok := err.(*pgerr.Error)
		if !ok || pe.Code != tt.code || pe.Message != tt.msg || pe.Detail != tt.det {
			t.Errorf("Parse(%s, %q): %#v, want %s %q %q", tt.typ, tt.in, err, tt.code, tt.msg, tt.det)
		}
	}
}

func TestNumericTypmod(t *testing.T) {
	tests := []struct {
		mods   []int32
		typmod int32
		name   string
		err    string
	}{
		{[]int32{10, 2}, 10<<16 | 2 + 4, "numeric(10,2)", ""},
		{[]int32{5}, 5<<16 + 4, "numeric(5,0)", ""},
		{[]int32{3, -1}, 3<<16 | 0x7ff + 4, "numeric(3,-1)", ""},
		{[]int32{2, 3}, 2<<16 | 3 + 4, "numeric(2,3)", ""},
		{[]int32{1001}, 0, "", "NUMERIC precision 1001 must be between 1 and 1000"},
		{[]int32{0}, 0, "", "NUMERIC precision 0 must be between 1 and 1000"},
		{[]int32{2, 1001}, 0, "", "NUMERIC scale 1001 must be between -1000 and 1000"},
	}
	for _, tt := range tests {
		typ, err := LookupTypeName([]string{"numeric"}, tt.mods)
		if tt.err != "" {
			if err == nil || err.(*pgerr.Error).Message != tt.err || pgerr.Code(err) != pgerr.InvalidParameterValue {
				t.Errorf("numeric%v: %v, want %q", tt.mods, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("numeric%v: %v", tt.mods, err)
			continue
		}
		if typ.Typmod != tt.typmod || typ.String() != tt.name {
			t.Errorf("numeric%v = typmod %d %q, want %d %q", tt.mods, typ.Typmod, typ.String(), tt.typmod, tt.name)
		}
	}
	if typ, err := LookupTypeName([]string{"decimal"}, []int32{6, 1}); err != nil || typ.String() != "numeric(6,1)" {
		t.Errorf("decimal(6,1) = %v, %v", typ, err)
	}
}

func TestNumericTypmodRounding(t *testing.T) {
	tests := []struct {
		in   string
		p, s int32
		want string
	}{
		{"1.005", 10, 2, "1.01"},
		{"-1.005", 10, 2, "-1.01"},
		{"2.5", 1, 0, "3"},
		{"-0.5", 1, 0, "-1"},
		{"99.995", 5, 2, "100.00"},
		{"0.0049", 3, 2, "0.00"},
		{"12345", 5, -2, "12300"},
		{"1.5", 3, -1, "0"},
		{"0.05", 2, 3, "0.050"},
		{"1.5", 5, 3, "1.500"},
		{"NaN", 3, 1, "NaN"},
	}
	for _, tt := range tests {
		typ := numT(mustNumTypmod(t, tt.p, tt.s))
		d, err := Parse(typ, tt.in)
		if err != nil {
			t.Errorf("Parse(%s, %q): %v", typ, tt.in, err)
			continue
		}
		if got := FormatText(typ, d); got != tt.want {
			t.Errorf("Parse(%s, %q) = %q, want %q", typ, tt.in, got, tt.want)
		}
		// the cast path (length coercion) agrees with the input function
		plain := mustParse(t, Numeric, tt.in)
		c, err := Cast(plain, Numeric, typ, CastAssignment)
		if err != nil || FormatText(typ, c) != tt.want {
			t.Errorf("Cast(%q, %s) = %q, %v, want %q", tt.in, typ, FormatText(typ, c), err, tt.want)
		}
	}
}

// numeric_send output captured from PostgreSQL 15.
func TestNumericBinary(t *testing.T) {
	tests := []struct {
		in, hex string
	}{
		{"0", "0000000000000000"},
		{"0.000", "0000000000000003"},
		{"1", "00010000000000000001"},
		{"-1", "00010000400000000001"},
		{"10000", "00010001000000000001"},
		{"12345678.9", "000300010000000104d2162e2328"},
		{"0.0001", "0001ffff000000040001"},
		{"-0.00012", "0002ffff40000005000107d0"},
		{"1e100", "00010019000000000001"},
		{"123.450", "0002000000000003007b1194"},
		{"123.45", "0002000000000002007b1194"},
		{"9999.9999", "0002000000000004270f270f"},
		{"NaN", "00000000c0000000"},
		{"-Infinity", "00000000f0000020"},
		{"Infinity", "00000000d0000020"},
	}
	for _, tt := range tests {
		d := mustParse(t, Numeric, tt.in)
		got := hex.EncodeToString(AppendBinary(nil, Numeric, d))
		if got != tt.hex {
			t.Errorf("send(%s) = %s, want %s", tt.in, got, tt.hex)
		}
		b, _ := hex.DecodeString(tt.hex)
		back, err := ParseBinary(Numeric, b)
		if err != nil {
			t.Errorf("recv(%s): %v", tt.hex, err)
			continue
		}
		if FormatText(Numeric, back) != FormatText(Numeric, d) || back.Str() != d.Str() {
			t.Errorf("recv(%s) = %s, want %s", tt.hex, FormatText(Numeric, back), tt.in)
		}
	}
}

func TestNumericRecvErrors(t *testing.T) {
	typ := numT(mustNumTypmod(t, 4, 1))
	tests := []struct {
		hex  string
		typ  Type
		code string
		want string // text of the result when no error
	}{
		{"000100000000", Numeric, pgerr.ProtocolViolation, ""},          // too short
		{"0001000000000000", Numeric, pgerr.ProtocolViolation, ""},      // digit missing
		{"000100000000000000010000", Numeric, ErrBinaryFormat, ""},      // trailing bytes
		{"0001000012340000" + "0001", Numeric, ErrBinaryFormat, ""},     // bad sign
		{"0001000000000000" + "2710", Numeric, ErrBinaryFormat, ""},     // digit 10000
		{"00010000000040000001", Numeric, ErrBinaryFormat, ""},          // dscale too big
		{"0002000000000001007b1194", Numeric, "", "123.4"},              // digits beyond dscale are dropped
		{"0002000000000004007b1194", typ, "", "123.5"},                  // typmod rounds
		{"00010001000000000001", typ, pgerr.NumericValueOutOfRange, ""}, // 10000 overflows numeric(4,1)
		{"00000000d0000020", typ, pgerr.NumericValueOutOfRange, ""},     // infinity in numeric(4,1)
	}
	for _, tt := range tests {
		b, _ := hex.DecodeString(tt.hex)
		d, err := ParseBinary(tt.typ, b)
		if tt.code != "" {
			if pgerr.Code(err) != tt.code {
				t.Errorf("recv(%s): %v, want SQLSTATE %s", tt.hex, err, tt.code)
			}
			continue
		}
		if err != nil || FormatText(tt.typ, d) != tt.want {
			t.Errorf("recv(%s) = %q, %v, want %q", tt.hex, FormatText(tt.typ, d), err, tt.want)
		}
	}
}

// t_data of one-column heap tuples from PostgreSQL 15's heap_page_items.
func TestNumericOnDisk(t *testing.T) {
	tests := []struct {
		in, hex string
	}{
		{"0", "070080"},
		{"1", "0b00800100"},
		{"-1", "0b00a00100"},
		{"10000", "0b01800100"},
		{"12345678.9", "138180d2042e162823"},
		{"0.0001", "0b7f820100"},
		{"-0.00012", "0fffa20100d007"},
		{"1e100", "0b19800100"},
		{"123.450", "0f80817b009411"},
		{"1e-70", "0f4600eeff6400"}, // dscale > 63: long form
		{"1e300", "0f00004b000100"}, // weight > 63: long form
	}
	for _, tt := range tests {
		d := mustParse(t, Numeric, tt.in)
		vals := []Datum{d}
		typs := []Type{Numeric}
		buf := make([]byte, DataSize(typs, vals))
		FillData(buf, typs, vals)
		if got := hex.EncodeToString(buf); got != tt.hex {
			t.Errorf("on-disk %s = %s, want %s", tt.in, got, tt.hex)
		}
		out := make([]Datum, 1)
		if err := DeformData(buf, typs, nil, out); err != nil {
			t.Fatal(err)
		}
		if FormatText(Numeric, out[0]) != FormatText(Numeric, d) {
			t.Errorf("deformed %s = %s", tt.in, FormatText(Numeric, out[0]))
		}
	}
	// a long value takes a 4-byte header aligned to 4 bytes
	long := mustParse(t, Numeric, "1"+string(bytes.Repeat([]byte("0"), 600))+".5")
	typs := []Type{Int2, Numeric}
	if got := DataSize(typs, []Datum{Int(1), long}); got != 4+4+4+2*152 { // int2+pad, varlena header, numeric long header, digits
		t.Errorf("DataSize(int2, long numeric) = %d", got)
	}
}

func TestNumericArithmetic(t *testing.T) {
	tests := []struct {
		a, op, b, want string
	}{
		{"1.5", "+", "2.25", "3.75"},
		{"-1.5", "+", "1.5", "0.0"},
		{"0.1", "+", "0.2", "0.3"},
		{"99999999999999999999", "+", "1", "100000000000000000000"},
		{"1.5", "-", "2.25", "-0.75"},
		{"1.50", "*", "2.5", "3.750"},
		{"-3", "*", "0.1", "-0.3"},
		{"10", "/", "3", "3.3333333333333333"},
		{"1", "/", "7", "0.14285714285714285714"},
		{"2", "/", "3.000000", "0.66666666666666666667"},
		{"123456789", "/", "0.001", "123456789000.00000000"},
		{"-7", "/", "2", "-3.5000000000000000"},
		{"1", "/", "3e-30", "333333333333333333333333333333.333333333333333333333333333333"},
		{"0", "/", "7.5", "0.00000000000000000000"},
		{"7.5", "%", "2", "1.5"},
		{"-7.5", "%", "2", "-1.5"},
		{"7", "%", "-3", "1"},
		{"NaN", "+", "1", "NaN"},
		{"Infinity", "+", "-Infinity", "NaN"},
		{"Infinity", "*", "-2", "-Infinity"},
		{"Infinity", "/", "3", "Infinity"},
		{"5", "/", "Infinity", "0"},
		{"Infinity", "%", "2", "NaN"},
		{"5", "%", "Infinity", "5"},
		{"2", "^", "10", "1024.0000000000000000"},
		{"2", "^", "-2", "0.2500000000000000"},
		{"1.5", "^", "3", "3.3750000000000000"},
		{"2", "^", "0.5", "1.4142135623730950"},
		{"4", "^", "0.5", "2.0000000000000000"},
		{"-2", "^", "3", "-8.0000000000000000"},
		{"10", "^", "-3", "0.0010000000000000"},
		{"0", "^", "0", "1.0000000000000000"},
	}
	for _, tt := range tests {
		f, err := LookupOperator(tt.op, Numeric, Numeric)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Fn([]Datum{mustParse(t, Numeric, tt.a), mustParse(t, Numeric, tt.b)})
		if err != nil {
			t.Errorf("%s %s %s: %v", tt.a, tt.op, tt.b, err)
			continue
		}
		if s := FormatText(Numeric, got); s != tt.want {
			t.Errorf("%s %s %s = %s, want %s", tt.a, tt.op, tt.b, s, tt.want)
		}
	}
	for _, op := range []string{"/", "%"} {
		f, _ := LookupOperator(op, Numeric, Numeric)
		for _, a := range []string{"1", "Infinity"} {
			_, err := f.Fn([]Datum{mustParse(t, Numeric, a), mustParse(t, Numeric, "0.00")})
			if pgerr.Code(err) != pgerr.DivisionByZero {
				t.Errorf("%s %s 0: %v, want division by zero", a, op, err)
			}
		}
	}
}

func TestNumericFunctions(t *testing.T) {
	tests := []struct {
		fn   string
		args []string
		want string
	}{
		{"round", []string{"2.5"}, "3"},
		{"round", []string{"-2.5"}, "-3"},
		{"round", []string{"1.2345", "2"}, "1.23"},
		{"round", []string{"1234.5", "-2"}, "1200"},
		{"round", []string{"1.5", "3"}, "1.500"},
		{"trunc", []string{"-1.99"}, "-1"},
		{"trunc", []string{"1.999", "2"}, "1.99"},
		{"trunc", []string{"1999", "-2"}, "1900"},
		{"ceil", []string{"1.2"}, "2"},
		{"ceil", []string{"-1.2"}, "-1"},
		{"floor", []string{"-1.2"}, "-2"},
		{"floor", []string{"1.8"}, "1"},
		{"ceil", []string{"-0.5"}, "0"},
		{"sign", []string{"-3.5"}, "-1"},
		{"sign", []string{"0.0"}, "0"},
		{"abs", []string{"-1.50"}, "1.50"},
		{"scale", []string{"1.500"}, "3"},
		{"min_scale", []string{"1.500"}, "1"},
		{"trim_scale", []string{"1.500"}, "1.5"},
		{"div", []string{"7.5", "2"}, "3"},
		{"div", []string{"-7.5", "2"}, "-3"},
		{"mod", []string{"-7.5", "2"}, "-1.5"},
		{"sqrt", []string{"2"}, "1.414213562373095"},
		{"sqrt", []string{"100"}, "10.000000000000000"},
		{"sqrt", []string{"0.0001"}, "0.01000000000000000"},
		{"sqrt", []string{"1e20"}, "10000000000.00000"},
		{"sqrt", []string{"0"}, "0.000000000000000"},
		{"sqrt", []string{"1e-10"}, "0.000010000000000000000"},
		{"sqrt", []string{"123456789.123"}, "11111.11106609056"},
		{"ln", []string{"0.5"}, "-0.6931471805599453"},
		{"ln", []string{"1.05"}, "0.048790164169432003"},
		{"ln", []string{"1e100"}, "230.25850929940457"},
		{"ln", []string{"1.0000000001"}, "0.00000000009999999999500000"},
		{"exp", []string{"1.0"}, "2.7182818284590452"},
		{"exp", []string{"100.123"}, "30399497973617603767213595855347100570496028.833"},
		{"exp", []string{"-100.5"}, "0.00000000000000000000000000000000000000000002256340135917036"},
		{"log", []string{"100.0"}, "2.0000000000000000"},
		{"log", []string{"1.5"}, "0.1760912590556812"},
		{"log", []string{"2", "1e100"}, "332.19280948873623"},
		{"power", []string{"1.0001", "10000"}, "2.7181459268252249"},
		{"power", []string{"2.5", "2.5"}, "9.8821176880261854"},
		{"power", []string{"1.0000001", "1000000000"}, "26881037012649238105056003014775037465638377.7515747256270721"},
		{"power", []string{"0.999", "100000"}, "0.0000000000000000"},
		{"power", []string{"1.0000001", "-100000000"}, "0.0000453999524625"},
	}
	for _, tt := range tests {
		var in []Type
		var args []Datum
		for i, a := range tt.args {
			if i == 1 && (tt.fn == "round" || tt.fn == "trunc") {
				in = append(in, Int4)
				args = append(args, mustParse(t, Int4, a))
				continue
			}
			in = append(in, Numeric)
			args = append(args, mustParse(t, Numeric, a))
		}
		f, err := LookupFunction(tt.fn, in)
		if err != nil {
			t.Fatalf("%s%v: %v", tt.fn, in, err)
		}
		got, err := f.Fn(args)
		if err != nil {
			t.Errorf("%s%v: %v", tt.fn, tt.args, err)
			continue
		}
		if s := FormatText(f.Ret, got); s != tt.want {
			t.Errorf("%s%v = %s, want %s", tt.fn, tt.args, s, tt.want)
		}
	}
}

func TestNumericCompareAndHash(t *testing.T) {
	ordered := []string{"-Infinity", "-1e100", "-10000", "-1.5", "-0.0001", "0", "1e-70", "0.0001", "1", "1.00001", "9999.9999", "10000", "1e100", "Infinity", "NaN"}
	for i, a := range ordered {
		for j, b := range ordered {
			got := Compare(Numeric, mustParse(t, Numeric, a), mustParse(t, Numeric, b))
			want := cmpInt(int64(i), int64(j))
			if got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, pair := range [][2]string{{"1.5", "1.50000"}, {"0", "0.000"}, {"-0", "0"}, {"1e2", "100.0"}, {"NaN", "nan"}, {"1", "1" + ".0000000000000000000000000000000000000000000000000000000000000000000000"}} {
		a, b := mustParse(t, Numeric, pair[0]), mustParse(t, Numeric, pair[1])
		if !Equal(Numeric, a, b) || Hash(Numeric, a) != Hash(Numeric, b) ||
			!bytes.Equal(AppendGroupKey(nil, Numeric, a), AppendGroupKey(nil, Numeric, b)) {
			t.Errorf("%s and %s: equal %v, hashes %x %x", pair[0], pair[1], Equal(Numeric, a, b), Hash(Numeric, a), Hash(Numeric, b))
		}
	}
	if Hash(Numeric, mustParse(t, Numeric, "1")) == Hash(Numeric, mustParse(t, Numeric, "-1")) {
		t.Error("1 and -1 hash alike")
	}
}

func TestNumericCasts(t *testing.T) {
	tests := []struct {
		in       Datum
		from, to Type
		want     string
		code     string
	}{
		{Int(42), Int4, Numeric, "42", ""},
		{Int(math.MinInt64), Int8, Numeric, "-9223372036854775808", ""},
		{Int(math.MaxInt64), Int8, Numeric, "9223372036854775807", ""},
		{Int(0), Int4, Numeric, "0", ""},
		{Int(10000), Int4, Numeric, "10000", ""},
		{Int(-9999), Int2, Numeric, "-9999", ""},
		{Int(120000), Int4, numT(mustNumTypmod(t, 8, 2)), "120000.00", ""},
		{Int(1200000), Int4, numT(mustNumTypmod(t, 8, 2)), "", pgerr.NumericValueOutOfRange},
		{mustParse(t, Numeric, "0.05"), Numeric, numT(mustNumTypmod(t, 2, 3)), "0.050", ""},
		{mustParse(t, Numeric, "0.5"), Numeric, numT(mustNumTypmod(t, 2, 3)), "", pgerr.NumericValueOutOfRange},
		{Float(0.1), Float8, Numeric, "0.1", ""},
		{Float(1.23456789e-5), Float8, Numeric, "0.0000123456789", ""},
		{Float(float64(float32(0.1))), Float4, Numeric, "0.1", ""},
		{Float(math.NaN()), Float8, Numeric, "NaN", ""},
		{Float(math.Inf(-1)), Float8, Numeric, "-Infinity", ""},
		{mustParse(t, Numeric, "2.5"), Numeric, Int4, "3", ""},
		{mustParse(t, Numeric, "-2.5"), Numeric, Int4, "-3", ""},
		{mustParse(t, Numeric, "40000"), Numeric, Int2, "", pgerr.NumericValueOutOfRange},
		{mustParse(t, Numeric, "9223372036854775808"), Numeric, Int8, "", pgerr.NumericValueOutOfRange},
		{mustParse(t, Numeric, "NaN"), Numeric, Int4, "", pgerr.FeatureNotSupported},
		{mustParse(t, Numeric, "Infinity"), Numeric, Int8, "", pgerr.FeatureNotSupported},
		{mustParse(t, Numeric, "12345.678"), Numeric, Float4, "12345.678", ""},
		{mustParse(t, Numeric, "0.1"), Numeric, Float8, "0.1", ""},
		{mustParse(t, Numeric, "-Infinity"), Numeric, Float8, "-Infinity", ""},
		{mustParse(t, Numeric, "1.50"), Numeric, Text, "1.50", ""},
		{Str("  3.25 "), Text, Numeric, "3.25", ""},
	}
	for _, tt := range tests {
		got, err := Cast(tt.in, tt.from, tt.to, CastExplicit)
		if tt.code != "" {
			if pgerr.Code(err) != tt.code {
				t.Errorf("Cast %s -> %s: %v, want SQLSTATE %s", tt.from, tt.to, err, tt.code)
			}
			continue
		}
		if err != nil || FormatText(tt.to, got) != tt.want {
			t.Errorf("Cast %s -> %s = %q, %v, want %q", tt.from, tt.to, FormatText(tt.to, got), err, tt.want)
		}
	}
	contexts := []struct {
		from, to Type
		ctx      CastContext
	}{
		{Int4, Numeric, CastImplicit},
		{Int8, Numeric, CastImplicit},
		{Float8, Numeric, CastAssignment},
		{Numeric, Float8, CastImplicit},
		{Numeric, Int4, CastAssignment},
		{Numeric, Text, CastAssignment},
		{Text, Numeric, CastExplicit},
		{Unknown, Numeric, CastImplicit},
	}
	for _, c := range contexts {
		if !CanCast(c.from, c.to, c.ctx) || (c.ctx > CastImplicit && CanCast(c.from, c.to, c.ctx-1)) {
			t.Errorf("cast %s -> %s is not exactly %d", c.from, c.to, c.ctx)
		}
	}
	if ct, ok := CommonType(Int4, Numeric); !ok || ct.OID != NumericOID {
		t.Errorf("CommonType(int4, numeric) = %v", ct)
	}
	if ct, ok := CommonType(Numeric, Float8); !ok || ct.OID != Float8OID {
		t.Errorf("CommonType(numeric, float8) = %v", ct)
	}
}

func TestNumericAccum(t *testing.T) {
	var a NumericAccum
	for i := int64(1); i <= 10; i++ {
		a.AddInt(i)
	}
	if s, _ := a.Sum(); FormatText(Numeric, s) != "55" {
		t.Errorf("sum = %s", FormatText(Numeric, s))
	}
	if v, _ := a.Avg(10); FormatText(Numeric, v) != "5.5000000000000000" {
		t.Errorf("avg = %s", FormatText(Numeric, v))
	}
	var b NumericAccum
	b.AddInt(math.MaxInt64)
	b.AddNumeric(mustParse(t, Numeric, "0.25"))
	b.AddInt(math.MaxInt64)
	if s, _ := b.Sum(); FormatText(Numeric, s) != "18446744073709551614.25" {
		t.Errorf("sum = %s", FormatText(Numeric, s))
	}
	b.AddNumeric(mustParse(t, Numeric, "Infinity"))
	if s, _ := b.Sum(); FormatText(Numeric, s) != "Infinity" {
		t.Errorf("sum with Infinity = %s", FormatText(Numeric, s))
	}
	b.AddNumeric(mustParse(t, Numeric, "-Infinity"))
	if s, _ := b.Sum(); FormatText(Numeric, s) != "NaN" {
		t.Errorf("sum with both infinities = %s", FormatText(Numeric, s))
	}
}
