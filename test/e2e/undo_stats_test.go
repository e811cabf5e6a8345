package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// pg15UserTablesColumns are PostgreSQL 15's pg_stat_user_tables columns in
// order (from a PostgreSQL 15 server's pg_attribute).
const pg15UserTablesColumns = "relid,schemaname,relname,seq_scan,seq_tup_read,idx_scan,idx_tup_fetch,n_tup_ins,n_tup_upd,n_tup_del,n_tup_hot_upd,n_live_tup,n_dead_tup,n_mod_since_analyze,n_ins_since_vacuum,last_vacuum,last_autovacuum,last_analyze,last_autoanalyze,vacuum_count,autovacuum_count,analyze_count,autoanalyze_count"

// TestUndoStatistics: pg_stat_user_tables keeps PostgreSQL 15's columns
// at their positions and adds n_tup_inplace_upd after them, counted for
// undo tables' in-place updates and 0 for heap's; tidal_stat_undo shows
// the undo a running transaction holds back and what commit discards.
func TestUndoStatistics(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	rows, err := c.Query(context.Background(), "SELECT * FROM pg_stat_user_tables")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	rows.Close()
	if got, want := strings.Join(names, ","), pg15UserTablesColumns+",n_tup_inplace_upd"; got != want {
		t.Fatalf("pg_stat_user_tables columns\n got %s\nwant %s", got, want)
	}

	for _, am := range []string{"heap", "undo"} {
		exec(t, c, "CREATE TABLE st_"+am+" (id int PRIMARY KEY, v int, name text) USING "+am)
		exec(t, c, "INSERT INTO st_"+am+" SELECT i, i, 'n' || i FROM generate_series(1, 100) i")
		exec(t, c, "UPDATE st_"+am+" SET name = 'x' || id WHERE id <= 10")
		exec(t, c, "UPDATE st_"+am+" SET name = 'y', v = v + 1 WHERE id > 95")
	}
	q := "SELECT n_tup_ins || ' ' || n_tup_upd || ' ' || n_tup_hot_upd || ' ' || n_tup_inplace_upd || ' ' || n_ins_since_vacuum FROM pg_stat_user_tables WHERE relname = "
	if got := query(t, c, q+"'st_heap'"); got != "100 15 15 0 100" {
		t.Fatalf("heap: ins upd hot inplace ins_since_vacuum = %s", got)
	}
	if got := query(t, c, q+"'st_undo'"); got != "100 15 0 15 100" {
		t.Fatalf("undo: ins upd hot inplace ins_since_vacuum = %s", got)
	}
	// An in-place update of no key leaves no dead row version.
	if got := query(t, c, "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'st_undo'"); got != "0" {
		t.Fatalf("undo n_dead_tup = %s", got)
	}
	exec(t, c, "VACUUM st_undo")
	if got := query(t, c, "SELECT n_ins_since_vacuum FROM pg_stat_user_tables WHERE relname = 'st_undo'"); got != "0" {
		t.Fatalf("n_ins_since_vacuum after VACUUM = %s", got)
	}

	stat := "SELECT undo_bytes_written || ' ' || undo_bytes_discarded || ' ' || undo_bytes_retained || ' ' || coalesce(oldest_xid::text, '-') FROM tidal_stat_undo"
	var w0, d0, r0 int64
	var x0 string
	scanStat := func(conn string) (w, d, r int64, x string) {
		f := strings.Fields(conn)
		if len(f) != 4 {
			t.Fatalf("tidal_stat_undo: %q", conn)
		}
		return atoi(t, f[0]), atoi(t, f[1]), atoi(t, f[2]), f[3]
	}
	w0, d0, r0, x0 = scanStat(query(t, c, stat))
	if w0 == 0 || r0 != 0 || x0 != "-" || d0 != w0 {
		t.Fatalf("idle: written %d discarded %d retained %d oldest %s", w0, d0, r0, x0)
	}
	if got := query(t, c, "SELECT amname || ' ' || (undo_size > 0) || ' ' || (insert_pos >= discard_pos) FROM tidal_stat_undo"); got != "undo true true" {
		t.Fatalf("tidal_stat_undo: %s", got)
	}

	tx := connect(t, s.DSN())
	exec(t, tx, "BEGIN")
	exec(t, tx, "UPDATE st_undo SET name = 'held' WHERE id <= 50")
	xid := query(t, tx, "SELECT txid_current()")
	w1, d1, r1, x1 := scanStat(query(t, c, stat))
	if w1 <= w0 || d1 != d0 || r1 != w1-w0 || x1 != xid {
		t.Fatalf("open transaction %s: written %d→%d discarded %d→%d retained %d oldest %s", xid, w0, w1, d0, d1, r1, x1)
	}
	if got := query(t, c, "SELECT oldest_xid_age >= 1 FROM tidal_stat_undo"); got != "true" {
		t.Fatalf("oldest_xid_age: %s", got)
	}
	exec(t, tx, "COMMIT")
	w2, d2, r2, x2 := scanStat(query(t, c, stat))
	if w2 != w1 || d2 != w1 || r2 != 0 || x2 != "-" {
		t.Fatalf("after commit: written %d discarded %d retained %d oldest %s", w2, d2, r2, x2)
	}
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}
