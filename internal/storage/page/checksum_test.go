package page

import (
	"math/rand"
	"testing"
)

func TestChecksum(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	p := newPage(0)
	for i := 0; i < 20; i++ {
		p.AddItem(randItem(r, 100), InvalidOffset, false, true, 291, nil)
	}
	p.SetLSN(0x1_0000_0040)
	SetChecksumInplace(p, 7)
	if p.Checksum() == 0 {
		t.Fatal("checksum 0")
	}
	if ok, _, _ := VerifyChecksum(p, 7); !ok {
		t.Fatal("fresh checksum does not verify")
	}
	// The checksum field itself is not part of the sum.
	if ComputeChecksum(p, 7) != p.Checksum() {
		t.Fatal("checksum depends on its own field")
	}
	// Written to the wrong block: caught.
	if ok, _, _ := VerifyChecksum(p, 8); ok {
		t.Fatal("wrong block verified")
	}
	// Any single flipped bit outside the checksum field is caught.
	for i := 0; i < 500; i++ {
		q := append(Page(nil), p...)
		off := r.Intn(Size)
		if off == 8 || off == 9 {
			continue
		}
		q[off] ^= 1 << uint(r.Intn(8))
		if q.IsNew() {
			continue
		}
		if ok, _, _ := VerifyChecksum(q, 7); ok {
			t.Fatalf("bit flip at %d not detected", off)
		}
	}
	// Never 0 over many pages.
	for i := 0; i < 2000; i++ {
		q := make(Page, Size)
		r.Read(q)
		if ComputeChecksum(q, r.Uint32()) == 0 {
			t.Fatal("checksum 0")
		}
	}
}

func TestChecksumNewPage(t *testing.T) {
	p := make(Page, Size)
	SetChecksumInplace(p, 3) // an all-zero page stays all zero
	if p.Checksum() != 0 {
		t.Fatal("new page got a checksum")
	}
	if ok, _, _ := VerifyChecksum(p, 3); !ok {
		t.Fatal("zero page does not verify")
	}
	p[4000] = 1 // pd_upper 0 but not all zero: corrupt
	if ok, _, _ := VerifyChecksum(p, 3); ok {
		t.Fatal("garbage with pd_upper 0 verified")
	}
}
