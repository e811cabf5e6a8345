package page

import (
	"encoding/binary"
	"slices"
)

// Delta records which byte ranges of a page a change wrote, so the change can
// be WAL-logged as "these bytes now hold these values" and redone by copying
// them back (physical redo, in the spirit of PostgreSQL's generic WAL).
//
// A nil *Delta records nothing: code that modifies pages that are not logged
// (a page being built for a bulk load that is logged as a full image, or a
// page during redo) passes nil.
//
// Invariant: ranges are recorded after the write, and the encoded delta holds
// the page's bytes at encoding time, so recording a range twice is harmless.
type Delta struct {
	ranges [][2]uint16 // [start, end)
	init   bool        // the change starts from an empty page (Init)
}

// Init notes that the page was formatted from scratch by this change.
func (d *Delta) Init() {
	if d == nil {
		return
	}
	d.init = true
	d.ranges = d.ranges[:0]
}

// IsInit reports whether the change formatted the page.
func (d *Delta) IsInit() bool { return d != nil && d.init }

// Reset empties the delta for reuse.
func (d *Delta) Reset() {
	if d == nil {
		return
	}
	d.ranges = d.ranges[:0]
	d.init = false
}

// Empty reports whether nothing was recorded.
func (d *Delta) Empty() bool { return d == nil || (!d.init && len(d.ranges) == 0) }

// Mark records that bytes [start, end) were written.
func (d *Delta) Mark(start, end int) {
	if d == nil || end <= start {
		return
	}
	// Merge with the last range when they touch or nearly touch: a few
	// unchanged bytes cost less than another range header.
	if n := len(d.ranges); n > 0 {
		last := &d.ranges[n-1]
		if start >= int(last[0]) && start <= int(last[1])+4 {
			if end > int(last[1]) {
				last[1] = uint16(end)
			}
			return
		}
	}
	d.ranges = append(d.ranges, [2]uint16{uint16(start), uint16(end)})
}

// PutUint16 writes v at off and records it.
func (d *Delta) PutUint16(p Page, off int, v uint16) {
	binary.LittleEndian.PutUint16(p[off:], v)
	d.Mark(off, off+2)
}

// PutUint32 writes v at off and records it.
func (d *Delta) PutUint32(p Page, off int, v uint32) {
	binary.LittleEndian.PutUint32(p[off:], v)
	d.Mark(off, off+4)
}

// PutBytes copies b to off and records it.
func (d *Delta) PutBytes(p Page, off int, b []byte) {
	copy(p[off:], b)
	d.Mark(off, off+len(b))
}

// Encode appends the delta's wire form to dst: for an Init change the
// non-zero header and the written ranges; each range is start u16, length
// u16, bytes. Ranges are normalised (sorted, merged) first.
func (d *Delta) Encode(dst []byte, p Page) []byte {
	rs := d.ranges
	if d.init {
		// The change formatted the page: everything outside the header's
		// LSN and the free hole is what it wrote, and redo starts from
		// zeroes, so two ranges describe it whatever was marked.
		rs = [][2]uint16{{8, uint16(p.Lower())}, {uint16(p.Upper()), Size}}
		if p.Upper() >= Size {
			rs = rs[:1]
		}
	}
	rs = normalise(rs)
	for _, r := range rs {
		dst = binary.LittleEndian.AppendUint16(dst, r[0])
		dst = binary.LittleEndian.AppendUint16(dst, r[1]-r[0])
		dst = append(dst, p[r[0]:r[1]]...)
	}
	return dst
}

func normalise(rs [][2]uint16) [][2]uint16 {
	sorted := true
	for i := 1; i < len(rs); i++ {
		if rs[i][0] < rs[i-1][0] {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortFunc(rs, func(a, b [2]uint16) int { return int(a[0]) - int(b[0]) })
	}
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			if r[1] > out[n-1][1] {
				out[n-1][1] = r[1]
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// ApplyDelta replays an encoded delta onto p. If init is set the page is
// zeroed first. It returns false when the encoding is malformed.
func ApplyDelta(p Page, init bool, enc []byte) bool {
	if init {
		clear(p[:Size])
	}
	for len(enc) > 0 {
		if len(enc) < 4 {
			return false
		}
		start := int(binary.LittleEndian.Uint16(enc))
		n := int(binary.LittleEndian.Uint16(enc[2:]))
		enc = enc[4:]
		if start+n > Size || n > len(enc) {
			return false
		}
		copy(p[start:start+n], enc[:n])
		enc = enc[n:]
	}
	return true
}
