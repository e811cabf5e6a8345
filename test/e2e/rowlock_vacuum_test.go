package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// VACUUM FREEZE of a table whose rows carry multixacts (rows share-locked
// by two transactions, rows key-share locked while updated) clears or
// replaces every multixact, so relminmxid advances ("new relminmxid" in
// VERBOSE, pg_class.relminmxid), the rows read the same before and after,
// and a checkpoint may then drop the old multixacts.
func TestVacuumFreezeMultixacts(t *testing.T) {
	srv := vacServer(t, 32<<20)
	nc := vconn(t, srv.DSN())
	c := nc.Conn
	exec(t, c, "CREATE TABLE fmx (id int PRIMARY KEY, v text)")
	exec(t, c, "INSERT INTO fmx SELECT i, 'v' || i FROM generate_series(1, 200) i")
	a, b := connect(t, srv.DSN()), connect(t, srv.DSN())
	for _, x := range []string{"BEGIN", "SELECT count(*) FROM (SELECT id FROM fmx WHERE id <= 100 FOR SHARE) s"} {
		exec(t, a, x)
		exec(t, b, x)
	}
	exec(t, b, "SELECT id FROM fmx WHERE id > 150 FOR KEY SHARE")
	exec(t, c, "UPDATE fmx SET v = 'u' || id WHERE id > 180")
	exec(t, a, "COMMIT")
	exec(t, b, "COMMIT")
	before := query(t, c, "SELECT count(*), string_agg(v, ',' ORDER BY id) FROM fmx")
	minmx := func() int64 {
		n, err := strconv.ParseInt(query(t, c, "SELECT relminmxid FROM pg_class WHERE relname = 'fmx'"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	old := minmx()
	_, lines := nc.verbose(t, "VACUUM (FREEZE, VERBOSE) fmx", "fmx")
	report := strings.Join(lines, "\n")
	now := minmx()
	if now <= old {
		t.Fatalf("relminmxid %d -> %d: did not advance; report:\n%s", old, now, report)
	}
	if want := fmt.Sprintf("new relminmxid: %d, which is %d MXIDs ahead of previous value", now, now-old); !strings.Contains(report, want) {
		t.Fatalf("VERBOSE report lacks %q:\n%s", want, report)
	}
	exec(t, c, "CHECKPOINT")
	if got := query(t, c, "SELECT count(*), string_agg(v, ',' ORDER BY id) FROM fmx"); got != before {
		t.Fatalf("rows changed by VACUUM FREEZE:\n%s\nwant\n%s", got, before)
	}
	// Every row can be locked and changed normally afterwards.
	exec(t, c, "BEGIN")
	if got := query(t, c, "SELECT count(*) FROM (SELECT id FROM fmx FOR UPDATE NOWAIT) s"); got != "200" {
		t.Fatalf("rows locked after freezing: %s", got)
	}
	exec(t, c, "UPDATE fmx SET v = 'w'")
	exec(t, c, "COMMIT")
	if got := query(t, c, "SELECT count(*) FROM fmx WHERE v = 'w'"); got != "200" {
		t.Fatalf("rows updated after freezing: %s", got)
	}
	if rep := query(t, c, "SELECT tidal_check('fmx')"); rep != "ok" {
		t.Fatalf("tidal_check: %s", rep)
	}
}
