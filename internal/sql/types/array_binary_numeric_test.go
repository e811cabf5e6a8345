package types

import (
	"encoding/hex"
	"testing"
)

// array_send output captured from PostgreSQL 15.
func TestNumericArrayBinary(t *testing.T) {
	tests := []struct {
		typ  Type
		text string
		hex  string
	}{
		{Type{OID: NumericArrayOID, Typmod: -1}, "{1.5,NULL,2}", "0000000100000001000006a400000003000000010000000c000200000000000100011388ffffffff0000000a00010000000000000002"},
		{Type{OID: NumericArrayOID, Typmod: -1}, "{}", "0000000000000000000006a4"},
		{Type{OID: Int4ArrayOID, Typmod: -1}, "{1,-2}", "0000000100000000000000170000000200000001000000040000000100000004fffffffe"},
		{Type{OID: TextArrayOID, Typmod: -1}, "{a,NULL}", "00000001000000010000001900000002000000010000000161ffffffff"},
	}
	for _, tt := range tests {
		d := mustParse(t, tt.typ, tt.text)
		if got := hex.EncodeToString(AppendBinary(nil, tt.typ, d)); got != tt.hex {
			t.Errorf("send %s = %s, want %s", tt.text, got, tt.hex)
		}
		b, _ := hex.DecodeString(tt.hex)
		back, err := ParseBinary(tt.typ, b)
		if err != nil || FormatText(tt.typ, back) != tt.text {
			t.Errorf("recv %s = %q, %v", tt.hex, FormatText(tt.typ, back), err)
		}
	}
	// an int4[] value where a numeric[] is expected
	b, _ := hex.DecodeString(tests[2].hex)
	if _, err := ParseBinary(Type{OID: NumericArrayOID, Typmod: -1}, b); err == nil {
		t.Error("int4 elements accepted as numeric[]")
	}
}
