package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestPreallocate: before three quarters of a segment nothing is made;
// past it the next segment appears full-size, once; the log written on
// into it reads back as exactly the new records.
func TestPreallocate(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	defer w.Close()
	if made, err := w.Preallocate(); err != nil || made {
		t.Fatalf("at the start of a segment: made %v, %v", made, err)
	}
	var want []uint32
	insert := func(n int) {
		for i := 0; i < n; i++ {
			r := mainRecord(i, 1<<20)
			r.Xid = uint32(100 + len(want))
			want = append(want, r.Xid)
			w.Insert(nil, r)
		}
		if err := w.Flush(w.InsertPos()); err != nil {
			t.Fatal(err)
		}
	}
	insert(13) // 13 MiB into the first 16 MiB segment
	cur := uint64(w.InsertPos() / SegmentSize)
	if w.InsertPos()%SegmentSize < preallocThreshold {
		t.Fatalf("test should be past the threshold; at %v", w.InsertPos())
	}
	made, err := w.Preallocate()
	if err != nil || !made {
		t.Fatalf("past the threshold: made %v, %v", made, err)
	}
	st, err := os.Stat(filepath.Join(dir, segName(cur+1)))
	if err != nil || st.Size() != SegmentSize {
		t.Fatalf("next segment: %v %v", st, err)
	}
	if made, err := w.Preallocate(); err != nil || made {
		t.Fatalf("second call: made %v, %v", made, err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "xlogtemp.*")); len(tmps) != 0 {
		t.Fatalf("temporary files left: %v", tmps)
	}
	insert(6) // on into the pre-allocated segment
	if uint64(w.InsertPos()/SegmentSize) != cur+1 {
		t.Fatalf("test should end in the pre-allocated segment; at %v", w.InsertPos())
	}
	recs, _ := readAll(t, dir, FirstLSN)
	var got []uint32
	for _, d := range recs {
		got = append(got, d.Xid)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("read back xids %v, want %v", got, want)
	}
}
