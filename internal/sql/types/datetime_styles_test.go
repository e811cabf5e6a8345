package types

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestDateTimePG15 reads every date, timestamp, timestamptz, time and
// interval input of testdata/datetime_pg15.tsv in its DateStyle and
// IntervalStyle and prints it back: the text or the SQLSTATE must be
// PostgreSQL 15's.
func TestDateTimePG15(t *testing.T) {
	f, err := os.Open("testdata/datetime_pg15.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zone, err := LookupZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]Type{
		"date": Date, "timestamp": Timestamp, "timestamptz": Timestamptz, "time": Time, "interval": Interval,
		"interval day to hour":      {OID: IntervalOID, Typmod: (ivDay|ivHour)<<16 | intervalFullPrec},
		"interval minute to second": {OID: IntervalOID, Typmod: (ivMinute|ivSecond)<<16 | intervalFullPrec},
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) != 6 {
			t.Fatalf("bad line %q", line)
		}
		n++
		st := &Settings{Zone: zone, IntervalStyle: ParseIntervalStyle(col[1])}
		st.DateStyle, st.DateOrder = ParseDateStyle(col[0])
		typ, ok := types[col[2]]
		if !ok {
			t.Fatalf("unknown type %q", col[2])
		}
		d, err := ParseWith(st, typ, col[3])
		if col[5] != "" {
			pe, ok := err.(*pgerr.Error)
			if !ok || pe.Code != col[5] {
				got := "no error"
				if err != nil {
					got = err.Error()
				}
				t.Errorf("%s %s %s '%s': %s, want SQLSTATE %s", col[0], col[1], col[2], col[3], got, col[5])
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s %s '%s': %v, want %q", col[0], col[1], col[2], col[3], err, col[4])
			continue
		}
		if got := FormatTextWith(st, typ, d); got != col[4] {
			t.Errorf("%s %s %s '%s' = %q, want %q", col[0], col[1], col[2], col[3], got, col[4])
		}
	}
	if n < 500 {
		t.Fatalf("only %d cases read", n)
	}
}

// TestCanonicalDateStyle checks SET DateStyle's validation and SHOW value
// against PostgreSQL 15's.
func TestCanonicalDateStyle(t *testing.T) {
	cases := []struct{ value, current, want, detail string }{
		{"German", "ISO, MDY", "German, DMY", ""},
		{"ymd", "German, DMY", "German, YMD", ""},
		{"Postgres", "German, YMD", "Postgres, YMD", ""},
		{"iso, dmy", "Postgres, YMD", "ISO, DMY", ""},
		{"euro", "ISO, MDY", "ISO, DMY", ""},
		{"us", "German, DMY", "German, MDY", ""},
		{"German, MDY", "ISO, YMD", "German, MDY", ""},
		{"default", "SQL, DMY", "ISO, MDY", ""},
		{"", "SQL, DMY", "SQL, DMY", ""},
		{"ISO,  YMD", "ISO, MDY", "ISO, YMD", ""},
		{"ISO MDY", "ISO, MDY", "", "List syntax is invalid."},
		{"sql, iso", "ISO, MDY", "", `Conflicting "datestyle" specifications.`},
		{"Klingon", "ISO, MDY", "", `Unrecognized key word: "klingon".`},
	}
	for _, c := range cases {
		got, err := CanonicalDateStyle(c.value, c.current)
		if c.detail != "" {
			pe, ok := err.(*pgerr.Error)
			if !ok || pe.Code != pgerr.InvalidParameterValue || pe.Detail != c.detail {
				t.Errorf("CanonicalDateStyle(%q): %v, want 22023 with %q", c.value, err, c.detail)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CanonicalDateStyle(%q, %q) = %q, %v; want %q", c.value, c.current, got, err, c.want)
		}
	}
}

// TestFloatAndByteaStyles: extra_float_digits ≤ 0 and bytea_output =
// escape, outputs from PostgreSQL 15.
func TestFloatAndByteaStyles(t *testing.T) {
	eleven := 1.1
	third := eleven / 3 // at run time, as 1.1::float8 / 3 (a Go constant expression is exact)
	cases := []struct {
		efd  int
		typ  Type
		v    float64
		want string
	}{
		{0, Float8, third, "0.366666666666667"},
		{0, Float8, 1e100, "1e+100"},
		{0, Float8, 123456789012345678, "1.23456789012346e+17"},
		{0, Float8, 1.5e-5, "1.5e-05"},
		{0, Float4, float64(float32(0.1)), "0.1"},
		{-3, Float8, third, "0.366666666667"},
		{-3, Float4, 100000, "1e+05"},
		{-15, Float8, third, "0.4"},
		{1, Float8, third, "0.3666666666666667"},
		{3, Float4, float64(float32(0.1)), "0.1"},
	}
	for _, c := range cases {
		st := &Settings{RoundFloatDigits: RoundFloatDigitsFor(c.efd)}
		if got := FormatTextWith(st, c.typ, Float(c.v)); got != c.want {
			t.Errorf("extra_float_digits %d: %s %v = %q, want %q", c.efd, c.typ, c.v, got, c.want)
		}
	}
	st := &Settings{ByteaEscape: true}
	if got := FormatTextWith(st, Bytea, Str("ab\x00c\\d\xff\x7f\x80")); got != `ab\000c\\d\377\177\200` {
		t.Errorf("bytea escape = %q", got)
	}
}
