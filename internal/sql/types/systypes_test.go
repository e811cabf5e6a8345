package types

import (
	"encoding/hex"
	"testing"
)

func TestSysTypesTextIO(t *testing.T) {
	for _, c := range []struct {
		t       Type
		in, out string
	}{
		{Tid, "(0,1)", "(0,1)"},
		{Tid, " ( 4294967295, 65535) ", "(4294967295,65535)"},
		{Tid, "(12,0)", "(12,0)"},
		{Xid, "725", "725"},
		{Xid, "0x10", "16"},
		{Xid, "4294967295", "4294967295"},
		{Xid, "abc", "0"}, // PostgreSQL 15's xidin is strtoul, without checks
		{Xid, " 12abc", "12"},
		{Xid, "-5", "4294967291"},
		{Xid, "99999999999", "1215752191"},
		{Tid, "(-1,1)", "(4294967295,1)"},
		{Tid, "x(1,2)y", "(1,2)"},
		{Cid, "3", "3"},
	} {
		d, err := Parse(c.t, c.in)
		if err != nil {
			t.Fatalf("%s %q: %v", c.t, c.in, err)
		}
		if got := FormatText(c.t, d); got != c.out {
			t.Errorf("%s %q: %q, want %q", c.t, c.in, got, c.out)
		}
		b := AppendBinary(nil, c.t, d)
		back, err := ParseBinary(c.t, b)
		if err != nil || !Equal(c.t, d, back) {
			t.Errorf("%s %q: binary round trip %v %v", c.t, c.in, back, err)
		}
	}
	for _, bad := range []string{"", "(1)", "(1,x)", "(1,-1)", "(1,65536)", "1,2", "(1,2", "( ,1)"} {
		if _, err := Parse(Tid, bad); err == nil {
			t.Errorf("tid %q accepted", bad)
		}
	}
	if Tid.String() != "tid" || Xid.String() != "xid" || Cid.String() != "cid" {
		t.Error("type names")
	}
}

// TestTidOrderAndLayout: tids compare by block, then offset, and are
// stored as PostgreSQL's ItemPointerData (block high half, low half,
// offset; little-endian halves).
func TestTidOrderAndLayout(t *testing.T) {
	a, b, c := TidDatum(0, 9), TidDatum(1, 1), TidDatum(1<<16, 0)
	if Compare(Tid, a, b) >= 0 || Compare(Tid, b, c) >= 0 {
		t.Fatal("tid order")
	}
	tys := []Type{Tid, Xid, Cid}
	vals := []Datum{TidDatum(0x00020003, 7), Int(0xFFFFFFFE), Int(5)}
	buf := make([]byte, DataSize(tys, vals))
	FillData(buf, tys, vals)
	// tid@0..6 (align 2), xid@8..12, cid@12..16
	if got, want := hex.EncodeToString(buf), "0200030007000000"+"feffffff"+"05000000"; got != want {
		t.Fatalf("layout %s, want %s", got, want)
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

func TestSysTypeOperators(t *testing.T) {
	for _, c := range []struct {
		op   string
		l, r Type
		ok   bool
	}{
		{"=", Xid, Xid, true}, {"<>", Xid, Xid, true}, {"=", Xid, Int4, true}, {"<", Xid, Xid, false},
		{"=", Cid, Cid, true}, {"<>", Cid, Cid, false},
		{"=", Tid, Tid, true}, {"<", Tid, Tid, true}, {">=", Tid, Tid, true},
	} {
		_, err := LookupOperator(c.op, c.l, c.r)
		if (err == nil) != c.ok {
			t.Errorf("%s %s %s: %v", c.l, c.op, c.r, err)
		}
	}
	f, _ := LookupOperator("=", Xid, Int4)
	if d, _ := f.Fn([]Datum{Int(0xFFFFFFFF), Int(-1)}); !d.Bool() {
		t.Error("xid = int4 compares as unsigned 32-bit (xideqint4)")
	}
}
