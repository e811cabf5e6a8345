package e2e

// A data file that cannot grow (a full disk, injected through smgr's write
// fault hook) fails the statement with PostgreSQL's 53100, reads go on
// answering, and once there is space again writes succeed in the same
// server, with every committed row there (issue 16).

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/testutil"
)

func TestDataFileCannotExtend(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	exec(t, c, "CREATE TABLE df (id int, pad text)")
	exec(t, c, "INSERT INTO df SELECT g, repeat('x', 100) FROM generate_series(1, 1000) g")
	rel := smgr.RelFileNumber(queryInt(t, c, "SELECT relfilenode::int8 FROM pg_class WHERE relname = 'df'"))
	nblocks := page.BlockNumber(queryInt(t, c, "SELECT pg_relation_size('df') / 8192"))
	s.Engine.Smgr.SetWriteFault(func(r smgr.RelFileNumber, f smgr.ForkNumber, blk page.BlockNumber, n int) error {
		if r == rel && f == smgr.MainFork && blk+page.BlockNumber(n) > nblocks {
			return syscall.ENOSPC
		}
		return nil
	})
	insert := "INSERT INTO df SELECT g, repeat('y', 100) FROM generate_series(1001, 6000) g"
	_, err := execErr(c, insert)
	pe := wantState(t, "insert on a full disk", err, "53100")
	want := "could not extend file \"base/" + strconv.Itoa(int(rel)) + "\": No space left on device"
	if pe.Message != want || pe.Hint != "Check free disk space." {
		t.Fatalf("got %q hint %q, want %q", pe.Message, pe.Hint, want)
	}
	if got := query(t, c, "SELECT count(*), max(id) FROM df"); got != "1000|1000" {
		t.Fatalf("reads on a full disk: %s", got)
	}
	// In a block the error aborts it, as any error does.
	exec(t, c, "BEGIN")
	exec(t, c, "INSERT INTO df VALUES (0, 'fits')") // room on the last page
	_, err = execErr(c, insert)
	wantState(t, "in a block", err, "53100")
	_, err = execErr(c, "SELECT 1")
	wantState(t, "after the error", err, "25P02")
	exec(t, c, "ROLLBACK")

	s.Engine.Smgr.SetWriteFault(nil) // space is back
	exec(t, c, insert)
	exec(t, c, "CHECKPOINT")
	if got := query(t, c, "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM df"); got != "6000|6000|1|6000" {
		t.Fatalf("after space came back: %s", got)
	}
}
