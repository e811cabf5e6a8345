package types

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Binary send/recv of the added types, checked against the bytes
// PostgreSQL 15 sends (date_send, interval_send, uuid_send, jsonb_send,
// json_send, time_send, timestamptz_send).
func TestNewTypesBinaryMatchesPostgres(t *testing.T) {
	cases := []struct {
		typ  Type
		text string
		hex  string
	}{
		{Date, "2020-01-01", "00001c89"},
		{Date, "1999-12-31", "ffffffff"},
		{Date, "infinity", "7fffffff"},
		{Date, "-infinity", "80000000"},
		{Interval, "1 year 2 mons 3 days 04:05:06.789", "000000036c97ca88000000030000000e"},
		{Interval, "-1 days +02:00:00", "00000001ad274800ffffffff00000000"},
		{UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc999c0b4ef8bb6d6bb9bd380a11"},
		{JSONB, `{"a": [true, null], "b": 1}`, "017b2261223a205b747275652c206e756c6c5d2c202262223a20317d"},
		{JSON, `{"b" : 1}`, "7b226222203a20317d"},
		{Time, "12:34:56.5", "0000000a8be1bd20"},
		{Timestamptz, "2020-01-01 00:00:00+00", "00023e0786c26000"},
	}
	for _, c := range cases {
		d, err := Parse(c.typ, c.text)
		if err != nil {
			t.Fatalf("%s %q: %v", c.typ, c.text, err)
		}
		got := hex.EncodeToString(AppendBinary(nil, c.typ, d))
		if got != c.hex {
			t.Errorf("send %s %q = %s, want %s", c.typ, c.text, got, c.hex)
		}
		raw, _ := hex.DecodeString(c.hex)
		back, err := ParseBinary(c.typ, raw)
		if err != nil {
			t.Fatalf("recv %s %s: %v", c.typ, c.hex, err)
		}
		if out := FormatText(c.typ, back); out != c.text {
			t.Errorf("recv %s %s = %q, want %q", c.typ, c.hex, out, c.text)
		}
	}
}

func TestNewTypesTextIO(t *testing.T) {
	cases := []struct {
		typ       Type
		in, out   string
		errorCode string
	}{
		{Date, "2020-02-29", "2020-02-29", ""},
		{Date, "Feb 29 2020", "2020-02-29", ""},
		{Date, "29 Feb 2020", "2020-02-29", ""},
		{Date, "0001-01-01 BC", "0001-01-01 BC", ""},
		{Date, "2019-02-29", "", pgerr.DatetimeFieldOverflow},
		{Date, "yesterdayish", "", pgerr.InvalidDatetimeFormat},
		{Time, "24:00:00", "24:00:00", ""},
		{Time, "1:02 pm", "13:02:00", ""},
		{Time, "25:00", "", pgerr.DatetimeFieldOverflow},
		{Interval, "1 decade 2 centuries", "210 years", ""},
		{Interval, "1.5 weeks", "10 days 12:00:00", ""},
		{Interval, "-1.5 hours", "-01:30:00", ""},
		{Interval, "100 ms", "00:00:00.1", ""},
		{Interval, "PT36H", "36:00:00", ""},
		{Interval, "P1W", "7 days", ""},
		{Interval, "1 fortnight", "", pgerr.InvalidDatetimeFormat},
		{Timestamptz, "2020-06-01 12:00:00+05:30", "2020-06-01 06:30:00+00", ""},
		{Timestamptz, "2020-06-01 12:00 America/Los_Angeles", "2020-06-01 19:00:00+00", ""},
		{Timestamptz, "2020-06-01 12:00 Nowhere/Land", "", pgerr.InvalidParameterValue},
		{Timestamp, "2020-06-01 12:00:00+05:30", "2020-06-01 12:00:00", ""},
		{UUID, "{00112233-4455-6677-8899-aabbccddeeff}", "00112233-4455-6677-8899-aabbccddeeff", ""},
		{UUID, "00112233-4455-6677-8899-aabbccddeef", "", pgerr.InvalidTextRepresentation},
		{JSONB, `{"b":1,"a":{"y":[],"x":{}},"b":2}`, `{"a": {"x": {}, "y": []}, "b": 2}`, ""},
		{JSONB, `[1.000, -0, 2e-3, 12E+2, 0.5e1]`, `[1.000, 0, 0.002, 1200, 5]`, ""},
		{JSONB, `"\ud83d\ude00 \u00e9"`, "\"\U0001F600 \u00e9\"", ""},
		{JSONB, `"\u0000"`, "", "22P05"},
		{JSON, `{"a":1,"a":2}`, `{"a":1,"a":2}`, ""},
		{JSON, `{"a":01}`, "", pgerr.InvalidTextRepresentation},
		{JSON, `[1,]`, "", pgerr.InvalidTextRepresentation},
	}
	for _, c := range cases {
		d, err := Parse(c.typ, c.in)
		if c.errorCode != "" {
			if pgerr.Code(err) != c.errorCode {
				t.Errorf("%s %q: error %v, want SQLSTATE %s", c.typ, c.in, err, c.errorCode)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.typ, c.in, err)
			continue
		}
		if got := FormatText(c.typ, d); got != c.out {
			t.Errorf("%s %q = %q, want %q", c.typ, c.in, got, c.out)
		}
	}
}

// Output in a session time zone, including the seconds of local mean time
// and DST rules.
func TestTimestamptzOutputInZone(t *testing.T) {
	cases := []struct{ zone, in, out string }{
		{"Europe/Paris", "2020-06-01 12:00+00", "2020-06-01 14:00:00+02"},
		{"Europe/Paris", "2020-01-01 12:00+00", "2020-01-01 13:00:00+01"},
		{"Europe/Paris", "1850-01-01 12:00+00", "1850-01-01 12:09:21+00:09:21"},
		{"Asia/Kolkata", "2020-06-01 12:00+00", "2020-06-01 17:30:00+05:30"},
		{"America/St_Johns", "2020-01-01 12:00+00", "2020-01-01 08:30:00-03:30"},
		{"+02:00", "2020-06-01 12:00+00", "2020-06-01 10:00:00-02"},
		{"UTC+3", "2020-06-01 12:00+00", "2020-06-01 09:00:00-03"},
	}
	for _, c := range cases {
		z, err := LookupZone(c.zone)
		if err != nil {
			t.Fatalf("zone %s: %v", c.zone, err)
		}
		st := &Settings{Zone: z}
		d, err := ParseWith(st, Timestamptz, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatTextWith(st, Timestamptz, d); got != c.out {
			t.Errorf("%s in %s = %q, want %q", c.in, c.zone, got, c.out)
		}
	}
	if _, err := LookupZone("PST"); pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Errorf("PST as a TimeZone setting: %v, want 22023", err)
	}
}

// On-disk layout: date int4, time int8, interval 16 bytes aligned 'd'
// (little-endian time, day, month), uuid 16 bytes aligned 'c'.
func TestNewTypesLayout(t *testing.T) {
	tys := []Type{Boolean, Interval, Boolean, UUID, Date, Time}
	iv, _ := Parse(Interval, "1 mon 2 days 00:00:03")
	u, _ := Parse(UUID, "00112233-4455-6677-8899-aabbccddeeff")
	vals := []Datum{Bool(true), iv, Bool(false), u, DateDays(7305), Int(3723000000)}
	n := DataSize(tys, vals)
	// bool@0, interval@8..24, bool@24, uuid@25..41, date@44..48, time@48..56
	if n != 56 {
		t.Fatalf("data size %d, want 56", n)
	}
	buf := make([]byte, n)
	FillData(buf, tys, vals)
	want := "0100000000000000" + "c0c62d0000000000" + "02000000" + "01000000" + "00" +
		"00112233445566778899aabbccddeeff" + "000000" + "891c0000" + "c078e8dd00000000"
	if got := hex.EncodeToString(buf); got != want {
		t.Errorf("layout\n got %s\nwant %s", got, want)
	}
	out := make([]Datum, len(tys))
	if err := DeformData(buf, tys, nil, out); err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if !Equal(tys[i], vals[i], out[i]) {
			t.Errorf("attribute %d: %s, want %s", i, FormatText(tys[i], out[i]), FormatText(tys[i], vals[i]))
		}
	}
}

func TestIntervalCompareAndHash(t *testing.T) {
	a, _ := Parse(Interval, "1 mon")
	b, _ := Parse(Interval, "30 days")
	c, _ := Parse(Interval, "720 hours")
	if !Equal(Interval, a, b) || !Equal(Interval, b, c) || Hash(Interval, a) != Hash(Interval, c) {
		t.Errorf("1 mon, 30 days and 720 hours must be equal and hash alike")
	}
	x, _ := Parse(JSONB, `{"a": 1.0}`)
	y, _ := Parse(JSONB, `{"a": 1}`)
	if !Equal(JSONB, x, y) || Hash(JSONB, x) != Hash(JSONB, y) {
		t.Errorf("jsonb 1.0 and 1 must be equal and hash alike")
	}
}

// Arbitrary text never panics the input functions of the new types: it
// parses or gives a PostgreSQL error.
func TestNewTypesInputNeverPanics(t *testing.T) {
	seeds := []string{"2020-01-01 10:00:00.5+02:30 BC", "1 year -2 mons 3 days 04:05:06.7 ago", "P1Y2M3DT4H5M6S",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `{"a": [1, 2.5e3, "\u00e9", null, true], "b": {}}`, "Jan 2, 2020 10:00 pm Europe/Paris",
		"9223372036854775807 hours", "-178000000 years", "24:00:00", "allballs"}
	alphabet := []byte("0123456789 -+:./TZPYMDHSWabcdejnoptuvy{}[]\",\\BCEN")
	rnd := uint64(42)
	next := func(n int) int {
		rnd ^= rnd << 13
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		return int(rnd % uint64(n))
	}
	tys := []Type{Date, Time, Interval, Timestamp, Timestamptz, UUID, JSON, JSONB}
	for i := 0; i < 8000; i++ {
		b := []byte(seeds[next(len(seeds))])
		for k := next(4); k >= 0 && len(b) > 0; k-- {
			switch next(3) {
			case 0:
				b[next(len(b))] = alphabet[next(len(alphabet))]
			case 1:
				p := next(len(b))
				b = append(b[:p], b[p+1:]...)
			default:
				p := next(len(b) + 1)
				b = append(b[:p], append([]byte{alphabet[next(len(alphabet))]}, b[p:]...)...)
			}
		}
		for _, ty := range tys {
			d, err := Parse(ty, string(b))
			if err != nil {
				if pgerr.Code(err) == "" {
					t.Fatalf("%s %q: error without SQLSTATE: %v", ty, b, err)
				}
				continue
			}
			FormatText(ty, d)
			AppendBinary(nil, ty, d)
		}
	}
}

// jsonb is stored as PostgreSQL's JsonbContainer: the tuple data below is
// what PostgreSQL 15 writes (pageinspect's heap_page_items t_data).
func TestJSONBOnDiskMatchesPostgres(t *testing.T) {
	cases := []struct{ text, hex string }{
		{`{"b": 1, "a": [true, null, "xy"]}`, "6b020000200100008001000000140000500a0000106162000003000040000000b00000004002000000787900002000000000800100"},
		{`1.50`, "27010000500a00009028000000008101008813"},
		{`[1, -2.5, 100000, 0.001]`, "7304000040080000900a0000100a0000100800001020000000008001002800000080a00200881300002000000001800a0020000000ff810a00"},
		{`"s"`, "15010000500100008073"},
		// a 4-byte varlena header, long numeric headers (dscale > 63, weight
		// beyond 63) and an offset in every 32nd JEntry
		{`[0.1111111111111111111111111111111111111111111111111111111111111111111111, "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", -123456789012345678901234567890, 1e-70, 1e100]`, "e00400002c0000402c000090010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000004c0000800100000001000000010000000100000001000000010000000100000001000000160000100c0000100a000010b00000004600ffff570457045704570457045704570457045704570457045704570457045704570457044c04787878787878787878787878787878787878787878787878787878787878787878787878787878785800000007a00c00800dd21ed2042e163423800dd21e0000280000004600eeff640000002000000019800100"},
	}
	for _, c := range cases {
		d, err := Parse(JSONB, c.text)
		if err != nil {
			t.Fatal(err)
		}
		tys := []Type{JSONB}
		buf := make([]byte, DataSize(tys, []Datum{d}))
		FillData(buf, tys, []Datum{d})
		if got := hex.EncodeToString(buf); got != c.hex {
			t.Errorf("%s on disk\n got %s\nwant %s", c.text, got, c.hex)
		}
		raw, _ := hex.DecodeString(c.hex)
		out := make([]Datum, 1)
		if err := DeformData(raw, tys, nil, out); err != nil {
			t.Fatal(err)
		}
		want, _ := Parse(JSONB, c.text)
		if got := FormatText(JSONB, out[0]); got != FormatText(JSONB, want) {
			t.Errorf("%s decoded from disk as %s", c.text, got)
		}
	}
	// long numeric header (dscale > 63) and every-32nd-entry offsets
	long := `[0.` + strings.Repeat("1", 70) + `, ` + strings.Repeat(`"x", `, 40) + `-123456789012345678901234567890]`
	d, err := Parse(JSONB, long)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := parseJSONValue(long, true)
	if got, want := FormatText(JSONB, d), string(appendJSONB(nil, v)); got != want {
		t.Errorf("round trip\n got %s\nwant %s", got, want)
	}
}
