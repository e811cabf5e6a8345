package page

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestDeltaRandomEdits: random writes through the Delta helpers, in random
// order, overlapping or not; applying the encoded delta to a copy of the
// old page reproduces the new page exactly.
func TestDeltaRandomEdits(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for round := 0; round < 2000; round++ {
		old := make(Page, Size)
		r.Read(old)
		p := append(Page(nil), old...)
		var d Delta
		n := r.Intn(20)
		for i := 0; i < n; i++ {
			switch r.Intn(3) {
			case 0:
				d.PutUint16(p, r.Intn(Size-1), uint16(r.Uint32()))
			case 1:
				d.PutUint32(p, r.Intn(Size-3), r.Uint32())
			default:
				l := r.Intn(300)
				off := r.Intn(Size - l + 1)
				b := make([]byte, l)
				r.Read(b)
				d.PutBytes(p, off, b)
			}
		}
		enc := d.Encode(nil, p)
		got := append(Page(nil), old...)
		if !ApplyDelta(got, false, enc) {
			t.Fatalf("round %d: malformed", round)
		}
		if !bytes.Equal(got, p) {
			t.Fatalf("round %d: replay differs", round)
		}
		// Encoding again (a WAL insert that retries) gives the same bytes.
		if enc2 := d.Encode(nil, p); !bytes.Equal(enc, enc2) {
			t.Fatalf("round %d: second encoding differs", round)
		}
		// Ranges come out sorted and disjoint.
		prevEnd := -1
		for e := enc; len(e) > 0; {
			s := int(binary.LittleEndian.Uint16(e))
			l := int(binary.LittleEndian.Uint16(e[2:]))
			if s <= prevEnd {
				t.Fatalf("round %d: range at %d not after %d", round, s, prevEnd)
			}
			prevEnd = s + l
			e = e[4+l:]
		}
	}
}

// TestDeltaInit: a change that formats the page replays onto garbage.
func TestDeltaInit(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	p := make(Page, Size)
	r.Read(p)
	var d Delta
	d.Mark(100, 200) // forgotten by Init
	Init(p, 16, &d)
	if !d.IsInit() || d.Empty() {
		t.Fatal("Init not recorded")
	}
	p.AddItem([]byte("hello"), InvalidOffset, false, false, 0, &d)
	enc := d.Encode(nil, p)
	got := make(Page, Size)
	r.Read(got)
	if !ApplyDelta(got, true, enc) || !bytes.Equal(got, p) {
		t.Fatal("init replay differs")
	}
	// Only the header fields and the item were encoded, not 8 KiB.
	if len(enc) > 64 {
		t.Fatalf("init delta is %d bytes", len(enc))
	}
	d.Reset()
	if !d.Empty() || d.IsInit() {
		t.Fatal("Reset")
	}
}

func TestDeltaNil(t *testing.T) {
	var d *Delta
	p := make(Page, Size)
	d.PutUint32(p, 10, 0xdeadbeef) // still writes the page
	if binary.LittleEndian.Uint32(p[10:]) != 0xdeadbeef {
		t.Fatal("nil delta did not write")
	}
	d.Init()
	d.Reset()
	if !d.Empty() || d.IsInit() {
		t.Fatal("nil delta not empty")
	}
}

// TestDeltaMerge: neighbouring writes (gap of at most 4 bytes) share one
// range header.
func TestDeltaMerge(t *testing.T) {
	p := make(Page, Size)
	var d Delta
	d.PutUint16(p, 100, 1)
	d.PutUint16(p, 104, 2) // gap 2: merged
	d.PutUint16(p, 200, 3) // far: new range
	d.PutUint16(p, 50, 4)  // before: new range, sorted at encode time
	d.PutUint16(p, 60, 5)  // within 4 of... 52? no: gap 8, new range
	enc := d.Encode(nil, p)
	var ranges [][2]int
	for e := enc; len(e) > 0; {
		s := int(binary.LittleEndian.Uint16(e))
		l := int(binary.LittleEndian.Uint16(e[2:]))
		ranges = append(ranges, [2]int{s, l})
		e = e[4+l:]
	}
	want := [][2]int{{50, 2}, {60, 2}, {100, 6}, {200, 2}}
	if len(ranges) != len(want) {
		t.Fatalf("ranges %v", ranges)
	}
	for i := range want {
		if ranges[i] != want[i] {
			t.Fatalf("ranges %v, want %v", ranges, want)
		}
	}
}

func TestApplyDeltaMalformed(t *testing.T) {
	p := make(Page, Size)
	bad := [][]byte{
		{1, 0, 2},                      // short header
		{0, 0, 10, 0, 1, 2, 3},         // length beyond data
		{0xFF, 0x1F, 4, 0, 1, 2, 3, 4}, // 8191+4 > 8192
	}
	for i, b := range bad {
		if ApplyDelta(p, false, b) {
			t.Fatalf("case %d accepted", i)
		}
	}
	if !ApplyDelta(p, false, nil) {
		t.Fatal("empty delta refused")
	}
}
