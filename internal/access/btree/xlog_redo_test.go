package btree

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// logicalKinds reads the WAL from redo on and counts the Btree records
// with logical block data by kind, and some variants: "VACUUM+posting"
// (posting lists shrunk), "DELETE+rewrite" (bottom-up or with posting
// lists), "DELETE+inplace" (LP_DEAD items only), "SPLIT+posting".
func logicalKinds(t *testing.T, dir string, redo page.LSN) map[string]int {
	t.Helper()
	r := wal.NewReader(dir, redo)
	defer r.Close()
	kinds := map[string]int{}
	for {
		d, err := r.Next()
		if err == io.EOF {
			return kinds
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.Rmgr != wal.RmBtree || len(d.Blocks) == 0 || !d.Blocks[0].HasData() {
			continue
		}
		name := RecordName(d.Info)
		kinds[name]++
		switch d.Info {
		case infoVacuum:
			if binary.LittleEndian.Uint16(d.Main[2:]) > 0 {
				kinds["VACUUM+posting"]++
			}
		case infoDelete:
			if d.Main[6]&editRewrite != 0 {
				kinds["DELETE+rewrite"]++
			} else {
				kinds["DELETE+inplace"]++
			}
		case infoSplitL, infoSplitR:
			if binary.LittleEndian.Uint16(d.Main[8:]) != 0 {
				kinds["SPLIT+posting"]++
			}
		}
	}
}

// replayAndCompare redoes the WAL from redo onto the files copied to snap
// and checks that every page of rels comes out byte for byte as the
// original (outside the hole) and that the replayed indexes verify.
func replayAndCompare(t *testing.T, te *testEnv, snap string, redo page.LSN, ixs ...*Index) {
	t.Helper()
	if err := te.w.Flush(te.w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	if _, err := te.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	sm2, err := smgr.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer sm2.Close()
	pool2 := buffer.New(sm2, 64)
	if _, err := wal.Replay(filepath.Join(te.dir, "wal"), pool2, redo); err != nil {
		t.Fatal(err)
	}
	if _, err := pool2.FlushAll(); err != nil {
		t.Fatal(err)
	}
	a := make([]byte, page.Size)
	b := make([]byte, page.Size)
	for _, ix := range ixs {
		n1, _ := te.sm.NBlocks(ix.rel, smgr.MainFork)
		n2, _ := sm2.NBlocks(ix.rel, smgr.MainFork)
		if n1 != n2 {
			t.Fatalf("%s: %d blocks, replayed %d", ix.opt.Name, n1, n2)
		}
		for blk := page.BlockNumber(0); blk < n1; blk++ {
			if err := te.sm.Read(ix.rel, smgr.MainFork, blk, a); err != nil {
				t.Fatal(err)
			}
			if err := sm2.Read(ix.rel, smgr.MainFork, blk, b); err != nil {
				t.Fatal(err)
			}
			if ma, mb := maskHints(maskHole(a)), maskHints(maskHole(b)); !bytes.Equal(ma, mb) {
				i := 0
				for ma[i] == mb[i] {
					i++
				}
				t.Fatalf("%s: block %d differs after redo at byte %d: %x vs %x", ix.opt.Name, blk, i, ma[i:min(i+8, len(ma))], mb[i:min(i+8, len(mb))])
			}
		}
		ix2 := Open(&Env{Pool: pool2}, ix.rel, ix.opt)
		mustCheck(t, ix2)
		if got, want := len(scanAll(t, ix2, ix2.Scan(nil, nil, nil))), len(scanAll(t, ix, ix.Scan(nil, nil, nil))); got != want {
			t.Fatalf("%s: replayed index has %d entries, original %d", ix.opt.Name, got, want)
		}
	}
}

// TestLogicalRecordsReplay: every logical Btree record kind is written by
// ordinary operations and redone from its logical data (no images: the
// copy is taken without a checkpoint) or from images (after one) into
// pages identical to the originals.
func TestLogicalRecordsReplay(t *testing.T) {
	for _, mode := range []string{"fpi", "logical"} {
		t.Run(mode, func(t *testing.T) {
			te := newTestEnv(t, 128)
			ixd := emptyIndex(t, te, 96, int4Opts("dups"))
			ixk := emptyIndex(t, te, 97, int4Opts("kill"))
			var redo page.LSN
			if mode == "fpi" {
				redo = checkpoint(t, te)
			} else {
				if _, err := te.pool.FlushAll(); err != nil {
					t.Fatal(err)
				}
				redo = te.w.InsertPos()
			}
			snap := filepath.Join(te.dir, "snap")
			copyDir(t, te.sm.Dir(), snap)

			// Distinct keys, ascending then random: SPLIT_R, SPLIT_L, INSERT_UPPER.
			rng := rand.New(rand.NewSource(14))
			n := 0
			for ; n < 3000; n++ {
				k := n
				if n >= 1500 {
					k = rng.Intn(1500)
				}
				if err := ixk.Insert(nil, 2, []datum.Datum{datum.Int(int64(k))}, tidOf(n+1), nil); err != nil {
					t.Fatal(err)
				}
			}
			// LP_DEAD items, then inserts into the full leaves: simple deletion.
			c := ixk.Scan(nil, nil, nil)
			for i := 0; ; i++ {
				_, _, ok, err := c.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				if i%3 == 0 {
					c.KillPrior()
				}
			}
			c.Close()
			for ; n < 6000; n++ {
				if err := ixk.Insert(nil, 2, []datum.Datum{datum.Int(int64(rng.Intn(1500)))}, tidOf(n+1), nil); err != nil {
					t.Fatal(err)
				}
			}

			// Duplicates: DEDUP, INSERT_POST (odd TIDs inside posting
			// lists), bottom-up DELETE, then VACUUM shrinking lists.
			for i := 0; i < 6000; i++ {
				tid := page.ItemPointer{Block: page.BlockNumber(i / 50), Offset: page.OffsetNumber(2 * (i%50 + 1))}
				if err := ixd.Insert(nil, 2, []datum.Datum{datum.Int(int64(i % 7))}, tid, nil); err != nil {
					t.Fatal(err)
				}
			}
			hints := &InsertHints{Unchanged: true, EntryDead: func(tid page.ItemPointer) (bool, error) { return tid.Block%3 == 0, nil }}
			for i := 0; i < 6000; i++ {
				tid := page.ItemPointer{Block: page.BlockNumber(i / 50), Offset: page.OffsetNumber(2*(i%50+1) - 1)}
				if err := ixd.InsertWith(nil, nil, 2, []datum.Datum{datum.Int(int64(i % 7))}, tid, nil, hints); err != nil {
					t.Fatal(err)
				}
			}
			var u stats.Usage
			if _, err := ixd.BulkDelete(&u, 3, func(tid page.ItemPointer) bool { return tid.Offset%5 == 0 }); err != nil {
				t.Fatal(err)
			}
			if _, err := ixk.BulkDelete(&u, 3, func(tid page.ItemPointer) bool { return tid.Offset%4 == 0 }); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, ixd)
			mustCheck(t, ixk)
			replayAndCompare(t, te, snap, redo, ixd, ixk)

			if mode != "logical" {
				return
			}
			kinds := logicalKinds(t, filepath.Join(te.dir, "wal"), redo)
			t.Logf("logical records: %v", kinds)
			for _, k := range []string{"INSERT_LEAF", "INSERT_UPPER", "INSERT_POST", "SPLIT_L", "SPLIT_R",
				"SPLIT+posting", "DEDUP", "DELETE+rewrite", "DELETE+inplace", "VACUUM", "VACUUM+posting"} {
				if kinds[k] == 0 {
					t.Errorf("no logical %s record was written", k)
				}
			}
		})
	}
}

// maskHints clears what is set without WAL (btree_mask): LP_DEAD item
// flags and BTP_HAS_GARBAGE.
func maskHints(p []byte) []byte {
	pg := page.Page(p)
	if pg.IsNew() || pg.Special() != specialOff {
		return p
	}
	setPageFlags(pg, pageFlags(pg)&^FlagHasGarbage, nil)
	for off := page.OffsetNumber(1); off <= pg.MaxOffset(); off++ {
		if it := pg.Item(off); it.Flags == page.LPDead {
			it.Flags = page.LPNormal
			pg.SetItem(off, it, nil)
		}
	}
	return p
}
