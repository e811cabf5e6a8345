package types

import (
	"bytes"
	"testing"
)

func TestRecordBinary(t *testing.T) {
	// ROW(7, NULL::text, 'ab') as record_send writes it.
	d := RecordValue([]Type{Int4, Text, Text}, []Datum{Int(7), Null(), Str("ab")})
	want := []byte{
		0, 0, 0, 3, // fields
		0, 0, 0, 23, 0, 0, 0, 4, 0, 0, 0, 7, // int4 7
		0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, // text NULL
		0, 0, 0, 25, 0, 0, 0, 2, 'a', 'b', // text 'ab'
	}
	if got := AppendBinary(nil, Record, d); !bytes.Equal(got, want) {
		t.Fatalf("record_send = % x, want % x", got, want)
	}
}

func TestRecordCompare(t *testing.T) {
	rec := func(vals ...Datum) Datum {
		ts := make([]Type, len(vals))
		for i := range ts {
			ts[i] = Int4
		}
		return RecordValue(ts, vals)
	}
	tests := []struct {
		a, b Datum
		want int
	}{
		{rec(Int(1), Int(2)), rec(Int(1), Int(2)), 0},
		{rec(Int(1), Int(2)), rec(Int(1), Int(3)), -1},
		{rec(Int(2), Int(0)), rec(Int(1), Int(9)), 1},
		{rec(Int(1), Null()), rec(Int(1), Int(9)), 1}, // NULL sorts last
		{rec(Int(1)), rec(Int(1), Int(0)), -1},
	}
	for _, tc := range tests {
		if got := Compare(Record, tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", FormatText(Record, tc.a), FormatText(Record, tc.b), got, tc.want)
		}
	}
}
