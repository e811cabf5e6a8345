package heap

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// maskHeapPage blanks what may legitimately differ between a page and its
// replayed copy, as PostgreSQL's heap_mask does for wal_consistency_checking:
// the checksum, pd_prune_xid and PD_PAGE_FULL (hints), tuple hint bits, the
// hole between pd_lower and pd_upper, and tuple alignment padding.
func maskHeapPage(p page.Page) page.Page {
	p = append(page.Page(nil), p...)
	p.SetChecksum(0)
	binary.LittleEndian.PutUint32(p[20:], 0)
	binary.LittleEndian.PutUint16(p[10:], p.Flags()&^page.FlagPageFull)
	if p.IsNew() {
		return p
	}
	clear(p[p.Lower():p.Upper()])
	for o := page.OffsetNumber(1); o <= p.MaxOffset(); o++ {
		it := p.Item(o)
		if it.Flags != page.LPNormal {
			continue
		}
		clear(p[it.Off+it.Len : it.Off+page.MaxAlignUp(it.Len)])
		m := binary.LittleEndian.Uint16(p[it.Off+offInfomask:])
		m &^= XminCommitted | XminInvalid | XmaxCommitted | XmaxInvalid
		binary.LittleEndian.PutUint16(p[it.Off+offInfomask:], m)
	}
	return p
}

// TestHeapRedo: with full_page_writes off (so every change is redone from
// its delta alone), a random workload of inserts, HOT and non-HOT and
// cross-page updates, deletes, aborts and prunes is replayed onto the
// relation's state before the workload; the main fork must come out equal
// to the running system's pages, up to hint bits. This checks that every
// heap change records every byte it writes.
func TestHeapRedo(t *testing.T) {
	for _, seed := range []int64{1, 2} {
		te := newTestEnv(t, 128)
		te.w.SetFullPageWrites(false)
		r := Open(te.env, 16384, "t", boatTypes, 90)
		copyDir := filepath.Join(te.dir, "base-before")
		os.MkdirAll(copyDir, 0o700)
		rnd := rand.New(rand.NewSource(seed))
		ctx := context.Background()
		live := map[int]page.ItemPointer{}
		next := 0
		for round := 0; round < 60; round++ {
			tx := te.begin()
			// Transactions that will roll back make no HOT updates: an
			// aborted HOT update followed by pruning loses the live row
			// (see TestPruneAbortedHOTUpdate, a known bug).
			willAbort := rnd.Intn(5) == 0
			changed := map[int]page.ItemPointer{}
			for op := 0; op < 20; op++ {
				var id int
				var tid page.ItemPointer
				if len(live) > 0 {
					ids := make([]int, 0, len(live))
					for i := range live {
						ids = append(ids, i)
					}
					sort.Ints(ids)
					id = ids[rnd.Intn(len(ids))]
					tid = live[id]
				}
				switch k := rnd.Intn(10); {
				case k < 4 || len(live) == 0:
					next++
					ntid, err := r.Insert(nil, tx, boatRow(next), nil)
					if err != nil {
						t.Fatal(err)
					}
					changed[next] = ntid
				case k < 8:
					if _, done := changed[id]; done {
						continue
					}
					row := boatRow(id)
					if rnd.Intn(3) == 0 { // grow the row: may move pages
						row = boatRowLong(id, 40+rnd.Intn(400))
					}
					ntid, _, oc, err := r.Update(ctx, nil, tx, tid, row, !willAbort && rnd.Intn(2) == 0)
					if err != nil || oc.Result != Ok {
						it, tup := te.item(t, r, tid)
						t.Logf("row %d at %v: item %+v", id, tid, it)
						if tup != nil {
							t.Logf("xmin %d xmax %d infomask %#x infomask2 %#x ctid %v", tup.Xmin(), tup.Xmax(), tup.Infomask(), tup.Infomask2(), tup.Ctid())
						}
						t.Fatalf("round %d: update: %+v %v", round, oc, err)
					}
					changed[id] = ntid
				default:
					if _, done := changed[id]; done {
						continue
					}
					if oc, err := r.Delete(ctx, nil, tx, tid); err != nil || oc.Result != Ok {
						t.Fatalf("delete: %+v %v", oc, err)
					}
					changed[id] = page.ItemPointer{}
				}
			}
			if willAbort {
				te.abort(tx)
				continue
			}
			te.commit(t, tx)
			for id, tid := range changed {
				if tid.Valid() {
					live[id] = tid
				} else {
					delete(live, id)
				}
			}
			if round%5 == 0 { // scans prune opportunistically and set hints
				rd := te.reader()
				got := scanIDs(t, r, rd)
				te.done(rd)
				if len(got) != len(live) {
					for id, tid := range live {
						if got[id] != tid {
							it, tup := te.item(t, r, tid)
							t.Logf("row %d: model %v, scan %v; item %+v", id, tid, got[id], it)
							if tup != nil {
								t.Logf("xmin %d xmax %d infomask %#x infomask2 %#x ctid %v", tup.Xmin(), tup.Xmax(), tup.Infomask(), tup.Infomask2(), tup.Ctid())
							}
						}
					}
					t.Fatalf("round %d: scan sees %d rows, model %d", round, len(got), len(live))
				}
			}
			if round%7 == 0 {
				nb, _ := r.NBlocks()
				blk := page.BlockNumber(rnd.Intn(int(nb)))
				b, _ := te.pool.Read(nil, r.tag(blk), nil)
				te.pool.Lock(b, buffer.Exclusive)
				r.Prune(nil, b, blk, te.x.OldestXmin())
				te.pool.UnlockRelease(b, buffer.Exclusive)
			}
		}
		if err := te.w.Flush(te.w.InsertPos()); err != nil {
			t.Fatal(err)
		}
		nb, _ := r.NBlocks()
		want := make([]page.Page, nb)
		for blk := range want {
			b, _ := te.pool.Read(nil, r.tag(page.BlockNumber(blk)), nil)
			te.pool.Lock(b, buffer.Share)
			want[blk] = append(page.Page(nil), te.pool.Page(b)...)
			te.pool.UnlockRelease(b, buffer.Share)
		}
		sm2, _ := smgr.Open(copyDir)
		pool2 := buffer.New(sm2, 128)
		pool2.FlushWAL = func(page.LSN) error { return nil }
		res, err := wal.Replay(filepath.Join(te.dir, "wal"), pool2, wal.FirstLSN)
		if err != nil {
			t.Fatal(err)
		}
		if nb2, _ := sm2.NBlocks(16384, smgr.MainFork); nb2 != nb {
			t.Fatalf("replayed %d blocks, want %d", nb2, nb)
		}
		for blk := range want {
			b, err := pool2.Read(nil, buffer.Tag{Rel: 16384, Fork: smgr.MainFork, Block: page.BlockNumber(blk)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := maskHeapPage(pool2.Page(b))
			exp := maskHeapPage(want[blk])
			pool2.Release(b)
			if !bytes.Equal(got, exp) {
				for i := range got {
					if got[i] != exp[i] {
						t.Fatalf("seed %d: block %d differs after replay of %d records, first at byte %d", seed, blk, res.Records, i)
					}
				}
			}
		}
		sm2.Close()
		t.Logf("seed %d: %d records, %d blocks, %d live rows", seed, res.Records, nb, len(live))
	}
}

func boatRowLong(id, n int) Tuple {
	tup := boatRow(id)
	d := NewDeformer(boatTypes)
	vals := make([]datum.Datum, 3)
	d.Deform(tup, vals)
	vals[1] = datum.Str(string(bytes.Repeat([]byte{'x'}, n)))
	return d.Form(vals)
}
