package btree

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// TestIncompleteSplit simulates a crash between a split's WAL record and
// the record inserting its downlink: redo stops right after the split. The
// left page is then left with BTP_INCOMPLETE_SPLIT; searches still work
// (via the right link) and the next insert that lands on it finishes the
// split (_bt_finish_split), for a root split and for a split below the
// root.
func TestIncompleteSplit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		built int  // rows in the initial build
		right bool // first grow the split's right half until it splits
	}{{"root", 100, false}, {"nonroot", 2000, false}, {"root-right", 100, true}, {"nonroot-right", 2000, true}} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEnv(t, 256)
			rel := smgr.RelFileNumber(60)
			ix := buildInt4(t, te, rel, tc.built)
			redo := checkpoint(t, te)
			snap := filepath.Join(te.dir, "snap")
			copyDir(t, te.sm.Dir(), snap)
			// ascending inserts until the rightmost leaf splits
			for i := tc.built + 1; i <= tc.built+400; i++ {
				if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(i))}, tidOf(i), nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := te.w.Flush(te.w.InsertPos()); err != nil {
				t.Fatal(err)
			}

			sm2, err := smgr.Open(snap)
			if err != nil {
				t.Fatal(err)
			}
			defer sm2.Close()
			pool2 := buffer.New(sm2, 256)
			r := wal.NewReader(filepath.Join(te.dir, "wal"), redo)
			splits := 0
			for {
				d, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := wal.RedoRecord(pool2, d); err != nil {
					t.Fatal(err)
				}
				if d.Rmgr == wal.RmBtree && (d.Info == infoSplitL || d.Info == infoSplitR) {
					splits++
					break // crash before the parent insert
				}
			}
			r.Close()
			if splits != 1 {
				t.Fatal("no split happened")
			}
			w2, err := wal.Open(filepath.Join(te.dir, "wal2"), te.w.InsertPos(), 0, wal.Options{FullPageWrites: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			pool2.FlushWAL = w2.Flush
			ix2 := Open(&Env{Pool: pool2, WAL: w2}, rel, int4Opts("boat_idx1"))
			if err := ix2.Check(nil); err == nil {
				t.Fatal("check did not notice the incomplete split")
			}
			// readers are fine: every key is found through the right link
			got := scanAll(t, ix2, ix2.Scan(nil, nil, nil))
			for i, e := range got {
				if e.keys[0].Int() != int64(i+1) {
					t.Fatalf("entry %d is %v", i, e.keys)
				}
			}
			n := len(got)
			if n <= tc.built {
				t.Fatalf("only %d entries after redo", n)
			}
			for _, k := range []int{n / 2, n, tc.built / 2} {
				if g := scanAll(t, ix2, ix2.ScanEqual(nil, []datum.Datum{datum.Int(int64(k))})); len(g) != 1 {
					t.Fatalf("lookup %d: %v", k, g)
				}
			}
			if tc.right {
				// inserts into the right half pass through (root case) or
				// next to the flagged page, and split the right half
				for i := n + 1; i <= n+800; i++ {
					if err := ix2.Insert(nil, 4, []datum.Datum{datum.Int(int64(i))}, tidOf(i), nil); err != nil {
						t.Fatal(err)
					}
				}
				n += 800
			}
			// an insert into the left half finishes the split
			if err := ix2.Insert(nil, 3, []datum.Datum{datum.Int(int64(tc.built - 10))}, page.ItemPointer{Block: 99999, Offset: 1}, nil); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, ix2)
			if g := scanAll(t, ix2, ix2.Scan(nil, nil, nil)); len(g) != n+1 {
				t.Fatalf("%d entries, want %d", len(g), n+1)
			}
			// and growth continues normally
			for i := n + 1; i <= n+3000; i++ {
				if err := ix2.Insert(nil, 4, []datum.Datum{datum.Int(int64(i))}, tidOf(i), nil); err != nil {
					t.Fatal(err)
				}
			}
			mustCheck(t, ix2)
		})
	}
}
