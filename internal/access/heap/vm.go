package heap

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// The visibility map fork: after the standard page header, two bits per
// heap block — all-visible and all-frozen — as PostgreSQL's. A set bit is a
// promise (index-only scans and VACUUM skip the page), so it is cleared in
// the same WAL record as the heap change that breaks it, and set only by
// VACUUM with its own record.
const (
	VMAllVisible = tableam.VMAllVisible
	VMAllFrozen  = tableam.VMAllFrozen

	vmBlocksPerPage = (page.Size - page.HeaderSize) * 4
)

func vmLocation(blk page.BlockNumber) (vblk page.BlockNumber, byteOff int, shift uint) {
	vblk = blk / vmBlocksPerPage
	i := blk % vmBlocksPerPage
	return vblk, page.HeaderSize + int(i/4), uint(i%4) * 2
}

// vmPins holds the visibility-map pages a heap change is clearing bits on,
// locked until the change's WAL record is inserted. One record may clear
// bits of two heap pages that share a map page (an UPDATE's old and new
// page): the map page is then locked and registered once.
type vmPins struct {
	pool *buffer.Pool
	pins []vmPin
}

type vmPin struct {
	blk page.BlockNumber
	buf buffer.Buffer
	d   *page.Delta
}

// clear clears blk's bits and registers the map page with rec.
func (v *vmPins) clear(r *Relation, u *stats.Usage, blk page.BlockNumber, rec *wal.Record) error {
	pool := r.env.Pool
	sm := pool.Smgr()
	vblk, off, sh := vmLocation(blk)
	for _, pin := range v.pins {
		if pin.blk == vblk {
			p := pool.Page(pin.buf)
			if p[off]>>sh&3 != 0 {
				pin.d.PutBytes(p, off, []byte{p[off] &^ (3 << sh)})
			}
			return nil
		}
	}
	if !sm.Exists(r.Rel, smgr.VMFork) {
		return nil
	}
	nb, err := sm.NBlocks(r.Rel, smgr.VMFork)
	if err != nil || nb <= vblk {
		return err
	}
	tag := buffer.Tag{Rel: r.Rel, Fork: smgr.VMFork, Block: vblk}
	b, err := pool.Read(u, tag, nil)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Exclusive)
	p := pool.Page(b)
	if p.IsNew() || p[off]>>sh&3 == 0 {
		pool.UnlockRelease(b, buffer.Exclusive)
		return nil
	}
	d := &page.Delta{}
	d.PutBytes(p, off, []byte{p[off] &^ (3 << sh)})
	rec.AddBlock(tag, p, wal.BlockStandard|wal.BlockNoImage, d)
	pool.MarkDirty(u, b)
	v.pool = pool
	v.pins = append(v.pins, vmPin{blk: vblk, buf: b, d: d})
	return nil
}

// finish stamps the map pages with the record's LSN (if any) and unlocks.
func (v *vmPins) finish(lsn page.LSN) {
	for _, pin := range v.pins {
		if lsn != 0 {
			v.pool.Page(pin.buf).SetLSN(lsn)
		}
		v.pool.UnlockRelease(pin.buf, buffer.Exclusive)
	}
	v.pins = nil
}

// VMBits returns blk's visibility-map bits.
func (r *Relation) VMBits(u *stats.Usage, blk page.BlockNumber) (byte, error) {
	pool := r.env.Pool
	sm := pool.Smgr()
	vblk, off, sh := vmLocation(blk)
	if !sm.Exists(r.Rel, smgr.VMFork) {
		return 0, nil
	}
	nb, err := sm.NBlocks(r.Rel, smgr.VMFork)
	if err != nil || nb <= vblk {
		return 0, err
	}
	b, err := pool.Read(u, buffer.Tag{Rel: r.Rel, Fork: smgr.VMFork, Block: vblk}, nil)
	if err != nil {
		return 0, err
	}
	pool.Lock(b, buffer.Share)
	p := pool.Page(b)
	bits := byte(0)
	if !p.IsNew() {
		bits = p[off] >> sh & 3
	}
	pool.UnlockRelease(b, buffer.Share)
	return bits, nil
}
