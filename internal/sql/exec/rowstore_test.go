package exec

import (
	"fmt"
	"testing"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

func rowStoreCtx(t *testing.T, workMemKB int) *Ctx {
	t.Helper()
	m, err := tempfile.NewManager(t.TempDir(), tempfile.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	sp := m.NewSpace(1)
	t.Cleanup(func() {
		if n := sp.OpenFiles(); n != 0 {
			t.Errorf("%d temporary files left open", n)
		}
	})
	return &Ctx{
		Tx:        &catalog.Txn{U: &stats.Usage{}},
		TempFiles: sp,
		Setting: func(name string) string {
			if name == "work_mem" {
				return fmt.Sprint(workMemKB)
			}
			return ""
		},
	}
}

// TestRowStoreCursorsAcrossSpill: cursors opened before the store spills,
// reading while rows are added (a lazily read WITH query), one rewound
// and one opened after the spill all see every row in order; reset and
// close remove the file.
func TestRowStoreCursorsAcrossSpill(t *testing.T) {
	c := rowStoreCtx(t, 64)
	s := newRowStore(c)
	row := func(i int) Row { return Row{types.Int(int64(i)), types.Str(fmt.Sprintf("%0100d", i))} }
	early, lagging := s.cursor(), s.cursor()
	const n = 3000
	read := func(cur *rowCursor, want int) {
		t.Helper()
		r, err := cur.next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil || r[0].Int() != int64(want) {
			t.Fatalf("cursor at %d read %v", want, r)
		}
	}
	for i := 0; i < n; i++ {
		if err := s.add(c, row(i)); err != nil {
			t.Fatal(err)
		}
		read(early, i) // keeps up with the writer
		if i%3 == 0 {
			read(lagging, i/3)
		}
	}
	if s.file == nil {
		t.Fatalf("%d rows of ~120 bytes did not spill past 64kB", n)
	}
	if r, err := early.next(); r != nil || err != nil {
		t.Fatalf("past the end: %v %v", r, err)
	}
	for i := (n-1)/3 + 1; i < n; i++ {
		read(lagging, i)
	}
	late := s.cursor()
	early.rewind()
	for i := 0; i < n; i++ {
		read(late, i)
		read(early, i)
	}
	s.reset()
	if s.Len() != 0 || c.TempFiles.OpenFiles() != 0 {
		t.Fatalf("reset left %d rows, %d files", s.Len(), c.TempFiles.OpenFiles())
	}
	if err := s.add(c, row(7)); err != nil {
		t.Fatal(err)
	}
	read(early, 7) // reset cursors start over
	s.close()
}
