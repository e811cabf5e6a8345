package types

import (
	"encoding/hex"
	"math"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestBinaryFormats checks AppendBinary against PostgreSQL's send output
// (as hex, e.g. from `SELECT int4send(-2)`) and that ParseBinary reads it
// back to the same text.
func TestBinaryFormats(t *testing.T) {
	tests := []struct {
		typ  Type
		text string // the value, as text input
		hex  string // PostgreSQL's send format
	}{
		{Boolean, "t", "01"},
		{Boolean, "f", "00"},
		{Bytea, `\x00ff10`, "00ff10"},
		{Bytea, `\x`, ""},
		{Char, "a", "61"},
		{Name, "pg_class", "70675f636c617373"},
		{Int2, "-2", "fffe"},
		{Int2, "32767", "7fff"},
		{Int4, "-2", "fffffffe"},
		{Int4, "16909060", "01020304"},
		{Int8, "-9223372036854775808", "8000000000000000"},
		{Int8, "72623859790382856", "0102030405060708"},
		{Oid, "4294967295", "ffffffff"},
		{Oid, "1259", "000004eb"},
		{Text, "héllo", "68c3a96c6c6f"},
		{Text, "", ""},
		{Unknown, "x", "78"},
		{Float4, "1.5", "3fc00000"},
		{Float4, "-Infinity", "ff800000"},
		{Float8, "0.1", "3fb999999999999a"},
		{Float8, "NaN", "7ff8000000000000"},
		{BpcharAny, "ab ", "616220"},
		{Bpchar(4), "ab", "61622020"},
		{VarcharAny, "abc", "616263"},
		{Varchar(3), "abc", "616263"},
		{Timestamp, "2000-01-01 00:00:00", "0000000000000000"},
		{Timestamp, "2000-01-01 00:00:01.5", "000000000016e360"},
		{Timestamp, "1999-12-31 23:59:59", "fffffffffff0bdc0"},
		{Timestamptz, "2000-01-01 00:00:00+00", "0000000000000000"},
		{Timestamp, "infinity", "7fffffffffffffff"},
		{Timestamp, "-infinity", "8000000000000000"},
		{Int2VectorType, "1 2", "000000010000000000000015000000020000000000000002000100000002" + "0002"},
		{Int2VectorType, "", "000000000000000000000015"},
	}
	for _, tt := range tests {
		d, err := Parse(tt.typ, tt.text)
		if err != nil {
			t.Fatalf("Parse(%s, %q): %v", tt.typ, tt.text, err)
		}
		got := hex.EncodeToString(AppendBinary(nil, tt.typ, d))
		if got != tt.hex {
			t.Errorf("AppendBinary(%s, %q) = %s, want %s", tt.typ, tt.text, got, tt.hex)
		}
		b, _ := hex.DecodeString(tt.hex)
		back, err := ParseBinary(tt.typ, b)
		if err != nil {
			t.Errorf("ParseBinary(%s, %s): %v", tt.typ, tt.hex, err)
			continue
		}
		if want, have := FormatText(tt.typ, d), FormatText(tt.typ, back); want != have {
			t.Errorf("ParseBinary(%s, %s) = %q, want %q", tt.typ, tt.hex, have, want)
		}
	}
}

func TestParseBinaryErrors(t *testing.T) {
	tests := []struct {
		typ  Type
		hex  string
		code string
		msg  string
	}{
		{Int4, "0102", pgerr.ProtocolViolation, "insufficient data left in message"},
		{Int4, "0102030405", ErrBinaryFormat, "incorrect binary data format"},
		{Int2, "", pgerr.ProtocolViolation, "insufficient data left in message"},
		{Int8, "01", pgerr.ProtocolViolation, "insufficient data left in message"},
		{Boolean, "0101", ErrBinaryFormat, "incorrect binary data format"},
		{Float8, "00", pgerr.ProtocolViolation, "insufficient data left in message"},
		{Varchar(2), "616263", pgerr.StringDataRightTruncation, "value too long for type character varying(2)"},
		{Text, "ff", pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xff`},
		{Timestamp, "7ffffffffffffffe", pgerr.DatetimeFieldOverflow, "timestamp out of range"},
		{Int2VectorType, "000000020000000000000015", "22P03", "invalid int2vector data"},
		{Int2VectorType, "00000001", pgerr.ProtocolViolation, "insufficient data left in message"},
		{Name, hex.EncodeToString(make([]byte, 64)), "42622", "identifier too long"},
	}
	for _, tt := range tests {
		b, _ := hex.DecodeString(tt.hex)
		d, err := ParseBinary(tt.typ, b)
		if err == nil || pgerr.Code(err) != tt.code || err.Error() != tt.msg {
			t.Errorf("ParseBinary(%s, %s) = %v, %v; want %s %q", tt.typ, tt.hex, d, err, tt.code, tt.msg)
		}
	}
}

func TestBinaryRoundTripTypmod(t *testing.T) {
	// timestamp(0) rounds on receive, like the text input.
	b := AppendBinary(nil, Timestamp, TimestampMicros(1_500_000))
	d, err := ParseBinary(Type{OID: TimestampOID, Typmod: 0}, b)
	if err != nil || d.Micros() != 2_000_000 {
		t.Fatalf("timestamp(0) recv = %d, %v", d.Micros(), err)
	}
	// float4 keeps float32 precision.
	d, err = ParseBinary(Float4, AppendBinary(nil, Float4, Float(float64(float32(0.1)))))
	if err != nil || d.Float() != float64(float32(0.1)) || math.IsNaN(d.Float()) {
		t.Fatalf("float4 round trip = %v, %v", d.Float(), err)
	}
}
