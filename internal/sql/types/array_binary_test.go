package types

import (
	"encoding/hex"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestArrayBinary checks array_send output against PostgreSQL's (hex of
// `SELECT array_send('{1,NULL,-2}'::int4[])`) and that recv reads it back.
func TestArrayBinary(t *testing.T) {
	char2Array, _ := ArrayOf(Bpchar(2))
	char2Array.Typmod = Bpchar(2).Typmod
	tests := []struct {
		typ  Type
		text string
		hex  string
	}{
		{Type{OID: Int4ArrayOID, Typmod: -1}, "{1,NULL,-2}", "00000001000000010000001700000003000000010000000400000001ffffffff00000004fffffffe"},
		{Type{OID: Int4ArrayOID, Typmod: -1}, "{}", "000000000000000000000017"},
		{Type{OID: TextArrayOID, Typmod: -1}, `{a,"b c"}`, "0000000100000000000000190000000200000001000000016100000003622063"},
		{char2Array, `{"a ",bc}`, "0000000100000000000004120000000200000001000000026120000000026263"},
		{Type{OID: TimestampArrayOID, Typmod: -1}, `{"2026-11-30 01:02:03.5"}`, "00000001000000000000045a00000001000000010000000800030472ba0059e0"},
	}
	for _, tc := range tests {
		d, err := Parse(tc.typ, tc.text)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.typ, tc.text, err)
		}
		if got := hex.EncodeToString(AppendBinary(nil, tc.typ, d)); got != tc.hex {
			t.Errorf("%s %s: send %s, want %s", tc.typ, tc.text, got, tc.hex)
		}
		raw, _ := hex.DecodeString(tc.hex)
		back, err := ParseBinary(tc.typ, raw)
		if err != nil {
			t.Fatalf("%s %s: recv: %v", tc.typ, tc.text, err)
		}
		if got := FormatText(tc.typ, back); got != tc.text {
			t.Errorf("%s: recv gives %s, want %s", tc.typ, got, tc.text)
		}
	}
}

func TestArrayBinaryErrors(t *testing.T) {
	int4Array := Type{OID: Int4ArrayOID, Typmod: -1}
	tests := []struct {
		hex, code string
	}{
		{"0000000100000000000000190000000100000001", pgerr.DatatypeMismatch},                  // text elements
		{"ffffffff0000000000000017", ErrBinaryFormat},                                         // ndim -1
		{"000000070000000000000017", pgerr.ProgramLimitExceeded},                              // ndim 7
		{"000000010000000200000017", ErrBinaryFormat},                                         // flags 2
		{"00000001000000000000001700000002000000010000000400000001", pgerr.ProtocolViolation}, // one element short
		{"000000010000000000000017000000010000000100000002000001", pgerr.ProtocolViolation},   // element too short
		{"0000000100000000000000170000000100000001000000040000000100", ErrBinaryFormat},       // trailing byte
		{"0000000100000000000000170000000100000001000000050000000100", ErrBinaryFormat},       // int4 of 5 bytes
		{"00000000000000", pgerr.ProtocolViolation},
	}
	for _, tc := range tests {
		raw, _ := hex.DecodeString(tc.hex)
		_, err := ParseBinary(int4Array, raw)
		if pe := pgerr.From(err); err == nil || pe.Code != tc.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", tc.hex, err, tc.code)
		}
	}
}
