package page

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

func newPage(special int) Page {
	p := make(Page, Size)
	Init(p, special, nil)
	return p
}

// TestInitLayout checks the header bytes of a freshly formatted page against
// PostgreSQL's PageInit on x86-64.
func TestInitLayout(t *testing.T) {
	for _, special := range []int{0, 1, 8, 16, 20} {
		p := newPage(special)
		wantSpecial := Size - MaxAlignUp(special)
		if p.Lower() != HeaderSize || p.Upper() != wantSpecial || p.Special() != wantSpecial {
			t.Fatalf("special %d: lower %d upper %d special %d", special, p.Lower(), p.Upper(), p.Special())
		}
		if v := binary.LittleEndian.Uint16(p[18:]); v != Size|LayoutVersion {
			t.Fatalf("pd_pagesize_version %#x", v)
		}
		if p.LSN() != 0 || p.Checksum() != 0 || p.Flags() != 0 || p.PruneXid() != 0 {
			t.Fatal("non-zero header field after Init")
		}
		if p.IsNew() {
			t.Fatal("initialised page reports IsNew")
		}
		if p.MaxOffset() != 0 {
			t.Fatal("items on an empty page")
		}
		if len(p.SpecialSpace()) != MaxAlignUp(special) {
			t.Fatalf("special space %d", len(p.SpecialSpace()))
		}
		// PageGetFreeSpace of an empty heap page is 8192-24-4 = 8164.
		if special == 0 && p.FreeSpace() != 8164 {
			t.Fatalf("free space %d", p.FreeSpace())
		}
	}
	if !make(Page, Size).IsNew() {
		t.Fatal("zero page not new")
	}
}

func TestLSNHalves(t *testing.T) {
	p := newPage(0)
	p.SetLSN(0x0000000A_12345678)
	// pd_lsn is {xlogid, xrecoff}: high half first.
	if binary.LittleEndian.Uint32(p[0:]) != 0xA || binary.LittleEndian.Uint32(p[4:]) != 0x12345678 {
		t.Fatalf("lsn bytes % x", p[:8])
	}
	if p.LSN() != 0x0000000A_12345678 {
		t.Fatal("LSN round trip")
	}
}

// TestItemIDBits checks the ItemIdData bit-field layout: lp_off:15,
// lp_flags:2, lp_len:15, low bits first.
func TestItemIDBits(t *testing.T) {
	p := newPage(0)
	p.setLower(HeaderSize+4*ItemIDSize, nil)
	cases := []ItemID{
		{Off: 8152, Flags: LPNormal, Len: 40},
		{Off: 0x7FFF, Flags: LPDead, Len: 0x7FFF},
		{Off: 3, Flags: LPRedirect, Len: 0},
		{Off: 0, Flags: LPUnused, Len: 0},
	}
	for i, c := range cases {
		p.SetItem(OffsetNumber(i+1), c, nil)
		got := p.Item(OffsetNumber(i + 1))
		if got != c {
			t.Fatalf("item %d: %+v != %+v", i+1, got, c)
		}
		v := binary.LittleEndian.Uint32(p[HeaderSize+i*4:])
		if int(v&0x7FFF) != c.Off || int(v>>15&3) != c.Flags || int(v>>17) != c.Len {
			t.Fatalf("item %d: raw %#x", i+1, v)
		}
	}
}

// model is the page as a list of line pointers with their bytes.
type modelItem struct {
	flags int
	data  []byte
}

func checkAgainstModel(t *testing.T, p Page, m []modelItem, step int) {
	t.Helper()
	if int(p.MaxOffset()) != len(m) {
		t.Fatalf("step %d: maxoff %d, model %d", step, p.MaxOffset(), len(m))
	}
	used := 0
	type span struct{ a, b int }
	var spans []span
	for i, mi := range m {
		it := p.Item(OffsetNumber(i + 1))
		if it.Flags != mi.flags {
			t.Fatalf("step %d: item %d flags %d, model %d", step, i+1, it.Flags, mi.flags)
		}
		if mi.flags == LPNormal {
			if !bytes.Equal(p.ItemBytes(OffsetNumber(i+1)), mi.data) {
				t.Fatalf("step %d: item %d bytes differ", step, i+1)
			}
			if it.Off%MaxAlign != 0 || it.Off < p.Upper() || it.Off+it.Len > p.Special() {
				t.Fatalf("step %d: item %d at %d len %d outside [%d,%d)", step, i+1, it.Off, it.Len, p.Upper(), p.Special())
			}
			spans = append(spans, span{it.Off, it.Off + MaxAlignUp(it.Len)})
			used += MaxAlignUp(it.Len)
		}
	}
	// No two tuples overlap.
	for i := range spans {
		for j := i + 1; j < len(spans); j++ {
			if spans[i].a < spans[j].b && spans[j].a < spans[i].b {
				t.Fatalf("step %d: tuples overlap %v %v", step, spans[i], spans[j])
			}
		}
	}
	if p.Lower() != HeaderSize+len(m)*ItemIDSize || p.Lower() > p.Upper() {
		t.Fatalf("step %d: lower %d upper %d", step, p.Lower(), p.Upper())
	}
	if p.Upper() > p.Special()-used {
		t.Fatalf("step %d: upper %d above special-used %d", step, p.Upper(), p.Special()-used)
	}
}

func randItem(r *rand.Rand, maxLen int) []byte {
	b := make([]byte, 1+r.Intn(maxLen))
	r.Read(b)
	return b
}

// TestPageVsModel drives a page with random btree-style operations
// (insert at a position with shift, delete with shift-down, overwrite) and
// heap-style ones (append, mark unused, compact) and checks it against a
// slice model after every step. Every change is also recorded in a Delta,
// and replaying the encoded delta on a copy of the page as it was before
// must reproduce the page exactly.
func TestPageVsModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 40; round++ {
		special := []int{0, 16}[round%2]
		p := newPage(special)
		var m []modelItem
		for step := 0; step < 300; step++ {
			before := append(Page(nil), p...)
			var d Delta
			switch op := r.Intn(10); {
			case op < 4: // btree insert with shift
				item := randItem(r, 200)
				off := OffsetNumber(1 + r.Intn(len(m)+1))
				got := p.AddItem(item, off, true, false, 0, &d)
				if got == InvalidOffset {
					if p.FreeSpace() >= MaxAlignUp(len(item)) {
						t.Fatalf("step %d: refused %d bytes with %d free", step, len(item), p.FreeSpace())
					}
					continue
				}
				if got != off {
					t.Fatalf("AddItem at %d returned %d", off, got)
				}
				m = append(m, modelItem{})
				copy(m[off:], m[off-1:])
				m[off-1] = modelItem{flags: LPNormal, data: item}
			case op < 6: // heap append (reusing unused slots)
				item := randItem(r, 200)
				got := p.AddItem(item, InvalidOffset, false, true, 291, &d)
				if got == InvalidOffset {
					continue
				}
				firstUnused := -1
				for i, mi := range m {
					if mi.flags == LPUnused {
						firstUnused = i
						break
					}
				}
				// PageAddItem reuses the first unused slot only when the
				// page says it has one (PD_HAS_FREE_LINES).
				if firstUnused >= 0 && before.Flags()&FlagHasFreeLines != 0 {
					if int(got) != firstUnused+1 {
						t.Fatalf("step %d: heap AddItem took %d, first unused %d", step, got, firstUnused+1)
					}
					m[firstUnused] = modelItem{flags: LPNormal, data: item}
				} else {
					if int(got) != len(m)+1 {
						t.Fatalf("step %d: heap AddItem took %d of %d", step, got, len(m))
					}
					m = append(m, modelItem{flags: LPNormal, data: item})
				}
			case op < 7 && len(m) > 0: // btree delete
				var offs []OffsetNumber
				keep := m[:0:0]
				for i := range m {
					if r.Intn(4) == 0 {
						offs = append(offs, OffsetNumber(i+1))
					} else {
						keep = append(keep, m[i])
					}
				}
				p.DeleteItems(offs, &d)
				m = keep
			case op < 8 && len(m) > 0: // overwrite same length
				i := r.Intn(len(m))
				if m[i].flags != LPNormal {
					continue
				}
				nb := make([]byte, len(m[i].data))
				r.Read(nb)
				p.Overwrite(OffsetNumber(i+1), nb, &d)
				m[i].data = nb
			case op < 9 && len(m) > 0: // heap: mark unused / dead, then compact
				i := r.Intn(len(m))
				if m[i].flags != LPNormal {
					continue
				}
				fl := []int{LPUnused, LPDead}[r.Intn(2)]
				p.SetItem(OffsetNumber(i+1), ItemID{Flags: fl}, &d)
				m[i] = modelItem{flags: fl}
				p.RepairFragmentation(&d)
				for len(m) > 0 && m[len(m)-1].flags == LPUnused {
					m = m[:len(m)-1]
				}
				hasUnused := false
				for _, mi := range m {
					hasUnused = hasUnused || mi.flags == LPUnused
				}
				if hasUnused && p.Flags()&FlagHasFreeLines == 0 {
					t.Fatalf("step %d: unused line pointers but no PD_HAS_FREE_LINES", step)
				}
			default:
				p.SetFlags(uint16(r.Intn(8)), &d)
				p.SetPruneXid(r.Uint32(), &d)
			}
			checkAgainstModel(t, p, m, step)
			// The encoded delta turns the old page into the new one.
			enc := d.Encode(nil, p)
			replay := append(Page(nil), before...)
			if !ApplyDelta(replay, d.IsInit(), enc) {
				t.Fatalf("step %d: ApplyDelta refused its own encoding", step)
			}
			if !bytes.Equal(replay, p) {
				t.Fatalf("step %d: delta replay differs from the page", step)
			}
		}
	}
}

// TestAddItemLimits: heap pages stop at MaxHeapTuplesPerPage line pointers;
// items never overrun pd_lower.
func TestAddItemLimits(t *testing.T) {
	p := newPage(0)
	n := 0
	for p.AddItem(make([]byte, 1), InvalidOffset, false, true, 291, nil) != InvalidOffset {
		n++
	}
	// Each 1-byte item takes 8 bytes of storage plus a 4-byte line pointer:
	// (8192-24)/12 = 680 would fit, the cap stops it at 291.
	if n != 291 {
		t.Fatalf("%d items, want 291", n)
	}
	p = newPage(0)
	n = 0
	for p.AddItem(make([]byte, 1), InvalidOffset, false, false, 0, nil) != InvalidOffset {
		n++
	}
	if n != (Size-HeaderSize)/12 {
		t.Fatalf("%d items without a cap", n)
	}
	if p.Upper() < p.Lower() {
		t.Fatal("upper below lower")
	}
}

func TestAddItemPanics(t *testing.T) {
	p := newPage(0)
	p.AddItem([]byte{1}, InvalidOffset, false, false, 0, nil)
	mustPanic(t, func() { p.AddItem([]byte{2}, 1, false, false, 0, nil) }) // used slot, no shift
	mustPanic(t, func() { p.AddItem([]byte{2}, 5, false, false, 0, nil) }) // beyond maxoff+1
	mustPanic(t, func() { p.Overwrite(1, []byte{1, 2}, nil) })             // different length
}

func mustPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	f()
}

// TestRepairFragmentationKeepsRedirects: redirects keep their target,
// dead pointers lose their storage, and the free space comes back.
func TestRepairFragmentationKeepsRedirects(t *testing.T) {
	p := newPage(0)
	for i := 0; i < 5; i++ {
		p.AddItem(bytes.Repeat([]byte{byte(i + 1)}, 100), InvalidOffset, false, true, 291, nil)
	}
	free := p.FreeSpace()
	p.SetItem(1, ItemID{Off: 3, Flags: LPRedirect}, nil)
	p.SetItem(2, ItemID{Flags: LPUnused}, nil)
	p.SetItem(4, ItemID{Off: p.Item(4).Off, Flags: LPDead, Len: 104}, nil)
	p.RepairFragmentation(nil)
	if it := p.Item(1); it.Flags != LPRedirect || it.Off != 3 {
		t.Fatalf("redirect %+v", it)
	}
	if it := p.Item(4); it.Flags != LPDead || it.Len != 0 || it.Off != 0 {
		t.Fatalf("dead %+v", it)
	}
	if p.Flags()&FlagHasFreeLines == 0 {
		t.Fatal("no PD_HAS_FREE_LINES")
	}
	if !bytes.Equal(p.ItemBytes(3), bytes.Repeat([]byte{3}, 100)) || !bytes.Equal(p.ItemBytes(5), bytes.Repeat([]byte{5}, 100)) {
		t.Fatal("live tuples damaged")
	}
	if got := p.FreeSpace(); got != free+3*104 {
		t.Fatalf("free %d, want %d", got, free+3*104)
	}
	// A new heap tuple reuses the unused slot 2.
	if off := p.AddItem([]byte{9}, InvalidOffset, false, true, 291, nil); off != 2 {
		t.Fatalf("reused %d", off)
	}
}

func TestItemPointer(t *testing.T) {
	tid := ItemPointer{Block: 0x01020304, Offset: 0x0506}
	var b [6]byte
	PutItemPointer(b[:], tid)
	// BlockIdData {bi_hi, bi_lo} then ip_posid, each little-endian uint16.
	if want := []byte{0x02, 0x01, 0x04, 0x03, 0x06, 0x05}; !bytes.Equal(b[:], want) {
		t.Fatalf("% x", b)
	}
	if GetItemPointer(b[:]) != tid {
		t.Fatal("round trip")
	}
	if tid.String() != "(16909060,1286)" {
		t.Fatal(tid.String())
	}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 1000; i++ {
		a := ItemPointer{Block: r.Uint32() % 4, Offset: OffsetNumber(r.Intn(4))}
		c := ItemPointer{Block: r.Uint32() % 4, Offset: OffsetNumber(r.Intn(4))}
		want := 0
		switch {
		case a.Block < c.Block || a.Block == c.Block && a.Offset < c.Offset:
			want = -1
		case a != c:
			want = 1
		}
		if a.Compare(c) != want || a.Less(c) != (want < 0) {
			t.Fatalf("%v vs %v", a, c)
		}
	}
	if (ItemPointer{Block: 1}).Valid() {
		t.Fatal("offset 0 valid")
	}
}
