package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TOAST lifecycle through SQL: an UPDATE that leaves a toasted column
// alone keeps its TOAST pointer (no new chunks); DELETE and UPDATE make the
// old chunks dead with their transaction (a rollback keeps them); VACUUM
// of the table vacuums its TOAST table and removes them; the TOAST table
// can be vacuumed by name; TRUNCATE and DROP TABLE take its files.
func TestToastLifecycle(t *testing.T) {
	dir := t.TempDir()
	s := testutil.Start(t, testutil.Options{Dir: dir})
	c := vconn(t, s.DSN())
	// 200 values of 50,000 incompressible characters: 26 chunks each.
	exec(t, c.Conn, `CREATE TABLE v (id int PRIMARY KEY, n int, body text)`)
	execLong(t, c.Conn, `INSERT INTO v SELECT i, 0, (SELECT string_agg(md5((i*10000+j)::text), '') FROM generate_series(1, 1563) j)::varchar(50000)::text FROM generate_series(1, 200) i`)
	toastRel := query(t, c.Conn, `SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'v'`)
	if !strings.HasPrefix(toastRel, "pg_toast.pg_toast_") {
		t.Fatalf("TOAST table %q", toastRel)
	}
	chunks := func() string { return query(t, c.Conn, `SELECT count(*) FROM `+toastRel) }
	size := func() string { return query(t, c.Conn, `SELECT pg_relation_size('`+toastRel+`')`) }
	if got := chunks(); got != "5200" {
		t.Fatalf("chunks after insert: %s", got)
	}
	sum := query(t, c.Conn, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM v`)

	// An UPDATE of another column reuses every pointer.
	before := size()
	exec(t, c.Conn, `UPDATE v SET n = n + 1`)
	if got := chunks(); got != "5200" {
		t.Errorf("chunks after UPDATE of n: %s", got)
	}
	if got := size(); got != before {
		t.Errorf("TOAST table grew from %s to %s on an UPDATE that kept the values", before, got)
	}
	if got := query(t, c.Conn, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM v`); got != sum {
		t.Errorf("values changed by UPDATE of n")
	}

	// Rolled back changes leave the values as they were.
	exec(t, c.Conn, `BEGIN`)
	exec(t, c.Conn, `DELETE FROM v WHERE id <= 50`)
	exec(t, c.Conn, `UPDATE v SET body = body || 'x' WHERE id > 150`)
	exec(t, c.Conn, `ROLLBACK`)
	if got := query(t, c.Conn, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM v`); got != sum {
		t.Errorf("values changed by a rolled-back DELETE/UPDATE")
	}
	if got := chunks(); got != "5200" {
		t.Errorf("live chunks after rollback: %s", got)
	}

	// Committed: 50 rows deleted, 50 values replaced.
	exec(t, c.Conn, `DELETE FROM v WHERE id <= 50`)
	exec(t, c.Conn, `UPDATE v SET body = body || 'x' WHERE id > 150`)
	if got := chunks(); got != "3900" {
		t.Errorf("live chunks after DELETE/UPDATE: %s, want 150 values of 26", got)
	}
	_, lines := c.verbose(t, `VACUUM (VERBOSE) v`, "v")
	report := strings.Join(lines, "\n")
	// The rolled-back UPDATE's 1300 chunks, the deleted rows' and the
	// replaced values' (1300 each) are dead; the TOAST table's report
	// follows the table's.
	name := strings.TrimPrefix(toastRel, "pg_toast.")
	if !strings.Contains(report, `vacuuming "postgres.`+toastRel+`"`) || !strings.Contains(report, fmt.Sprintf(`finished vacuuming "postgres.%s": index scans: 1`, toastRel)) {
		t.Fatalf("VACUUM v did not vacuum %s:\n%s", name, report)
	}
	// (Some of the dead chunks were pruned already by the reads above;
	// VACUUM removes their dead line pointers.)
	if !strings.Contains(report, "3900 remain") || !strings.Contains(report, "had 3900 dead item identifiers removed") {
		t.Errorf("TOAST tuples removed:\n%s", report)
	}
	if got := query(t, c.Conn, `SELECT count(*), count(*) FILTER (WHERE length(body) = 50001) FROM v`); got != "150|50" {
		t.Errorf("values after VACUUM: %s", got)
	}
	if got := query(t, c.Conn, `SELECT tidal_check('v')`); got != "ok" {
		t.Errorf("tidal_check: %s", got)
	}
	// By name, and again nothing to remove.
	_, lines = c.verbose(t, `VACUUM (VERBOSE) `+toastRel, name)
	if report := strings.Join(lines, "\n"); !strings.Contains(report, "tuples: 0 removed") || !strings.Contains(report, "had 0 dead item identifiers removed") {
		t.Errorf("VACUUM %s:\n%s", toastRel, report)
	}
	if _, err := execErr(c.Conn, `INSERT INTO `+toastRel+` VALUES (1, 0, '\x00')`); err == nil || !strings.Contains(err.Error(), "cannot change TOAST relation") {
		t.Errorf("INSERT into a TOAST table: %v", err)
	}

	// TRUNCATE empties it; DROP removes its files.
	toastFile := func() string {
		return filepath.Join(dir, "base", query(t, c.Conn, `SELECT relfilenode FROM pg_class WHERE oid = '`+toastRel+`'::regclass`))
	}
	old := toastFile()
	exec(t, c.Conn, `TRUNCATE v`)
	if got := size(); got != "0" {
		t.Errorf("TOAST size after TRUNCATE: %s", got)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("old TOAST file %s after TRUNCATE: %v", old, err)
	}
	exec(t, c.Conn, `INSERT INTO v VALUES (1, 0, repeat(md5('a'), 2000) || (SELECT string_agg(md5(j::text), '') FROM generate_series(1, 100) j))`)
	cur := toastFile()
	exec(t, c.Conn, `DROP TABLE v`)
	if _, err := os.Stat(cur); !os.IsNotExist(err) {
		t.Errorf("TOAST file %s after DROP TABLE: %v", cur, err)
	}
	if got := query(t, c.Conn, `SELECT count(*) FROM pg_class WHERE relname LIKE '`+name+`%'`); got != "0" {
		t.Errorf("pg_class rows of the TOAST table after DROP: %s", got)
	}
}

// TOAST values written, replaced or deleted in a subtransaction follow it:
// ROLLBACK TO brings the old values back and kills the new chunks.
func TestToastSavepoints(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE sv (id int PRIMARY KEY, body text)`)
	big := `(SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 400) j)`
	exec(t, c, `INSERT INTO sv SELECT i, `+big+` FROM generate_series(1, 10) i`)
	sum := query(t, c, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM sv`)
	toastRel := query(t, c, `SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'sv'`)
	exec(t, c, `BEGIN`)
	exec(t, c, `SAVEPOINT a`)
	exec(t, c, `UPDATE sv SET body = body || 'x' WHERE id <= 5`)
	exec(t, c, `DELETE FROM sv WHERE id > 8`)
	exec(t, c, `INSERT INTO sv SELECT i, `+big+` FROM generate_series(11, 12) i`)
	if got := query(t, c, `SELECT count(*), sum(length(body)) FROM sv`); got != "10|128005" {
		t.Errorf("inside the savepoint: %s", got)
	}
	exec(t, c, `ROLLBACK TO a`)
	exec(t, c, `INSERT INTO sv SELECT i, `+big+` FROM generate_series(13, 13) i`)
	exec(t, c, `COMMIT`)
	if got := query(t, c, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM sv WHERE id <= 10`); got != sum {
		t.Errorf("values after ROLLBACK TO differ")
	}
	if got := query(t, c, `SELECT count(*) FROM `+toastRel); got != "77" {
		t.Errorf("live chunks: %s, want 11 values of 7", got)
	}
	exec(t, c, `VACUUM sv`)
	if got := query(t, c, `SELECT tidal_check('sv')`); got != "ok" {
		t.Errorf("tidal_check: %s", got)
	}
}

// Values PostgreSQL cannot hold get its errors, and the session goes on.
func TestToastValueLimits(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	for _, tc := range []struct{ sql, code, msg string }{
		{`SELECT length(repeat('x', 1073741824))`, "54000", "requested length too large"},
		{`SELECT length(repeat('x', 540000000) || repeat('x', 540000000))`, "XX000", "invalid memory alloc request size 1080000004"},
		{`SELECT length(repeat('ab', 270000000)::bytea || repeat('ab', 270000000)::bytea)`, "XX000", "invalid memory alloc request size 1080000004"},
		{`SELECT pg_column_size(('"' || repeat('x', 300000000) || '"')::jsonb)`, "54000", "string too long to represent as jsonb string"},
		{`SELECT pg_column_size(jsonb_build_array(repeat('x', 140000000), repeat('x', 140000000)))`, "54000", "total size of jsonb array elements exceeds the maximum of 268435455 bytes"},
	} {
		_, err := c.Exec(tctxLong(t), tc.sql)
		pe := wantState(t, tc.sql, err, tc.code)
		if pe.Message != tc.msg {
			t.Errorf("%s: %q, want %q", tc.sql, pe.Message, tc.msg)
		}
	}
	if got := query(t, c, `SELECT 1`); got != "1" {
		t.Fatalf("session after the errors: %s", got)
	}
}

// ALTER TABLE: a rewrite (ALTER COLUMN TYPE, a volatile default) moves the
// values into new TOAST files; ADD COLUMN of a toastable type to a table
// without a TOAST table creates one; SET STORAGE / SET COMPRESSION apply
// to rows written afterwards.
func TestToastAlterTable(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE at (id int PRIMARY KEY, body text)`)
	exec(t, c, `INSERT INTO at SELECT i, (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 300) j) FROM generate_series(1, 20) i`)
	sum := query(t, c, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM at`)
	node := func() string {
		return query(t, c, `SELECT relfilenode FROM pg_class WHERE oid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'at')`)
	}
	before := node()
	exec(t, c, `ALTER TABLE at ALTER COLUMN body TYPE varchar(20000)`)
	if got := query(t, c, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM at`); got != sum {
		t.Errorf("values changed by the rewrite")
	}
	if after := node(); after == before {
		t.Errorf("the rewrite kept the TOAST file %s", after)
	}
	if got := query(t, c, `SELECT count(*) FROM `+query(t, c, `SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'at'`)); got != "100" {
		t.Errorf("chunks after the rewrite: %s (20 values of 5)", got)
	}
	if got := query(t, c, `SELECT tidal_check('at')`); got != "ok" {
		t.Errorf("tidal_check after the rewrite: %s", got)
	}

	exec(t, c, `CREATE TABLE narrow (id int, code varchar(10))`)
	if got := query(t, c, `SELECT reltoastrelid FROM pg_class WHERE relname = 'narrow'`); got != "0" {
		t.Errorf("a table whose rows cannot outgrow a page got TOAST table %s", got)
	}
	exec(t, c, `ALTER TABLE narrow ADD COLUMN doc text`)
	if got := query(t, c, `SELECT reltoastrelid::regclass::text LIKE 'pg_toast.pg_toast_%' FROM pg_class WHERE relname = 'narrow'`); got != "true" {
		t.Errorf("ADD COLUMN text: TOAST table %s", got)
	}
	exec(t, c, `INSERT INTO narrow VALUES (1, 'a', repeat('x', 100000))`)
	exec(t, c, `ALTER TABLE narrow ALTER COLUMN doc SET STORAGE external`)
	exec(t, c, `INSERT INTO narrow VALUES (2, 'b', repeat('x', 100000))`)
	exec(t, c, `ALTER TABLE narrow ALTER COLUMN doc SET STORAGE extended, ALTER COLUMN doc SET COMPRESSION lz4`)
	exec(t, c, `INSERT INTO narrow VALUES (3, 'c', repeat('x', 100000))`)
	// PostgreSQL 15: 1156 pglz, 100000 uncompressed, 411 lz4 (liblz4;
	// pierrec/lz4's block encoder may pick slightly different matches).
	if got := query(t, c, `SELECT id, pg_column_size(doc), pg_column_compression(doc) FROM narrow WHERE id < 3 ORDER BY id`); got != "1|1156|pglz,2|100000|null" {
		t.Errorf("stored forms: %s", got)
	}
	if got := query(t, c, `SELECT pg_column_size(doc) BETWEEN 380 AND 440, pg_column_compression(doc) FROM narrow WHERE id = 3`); got != "true|lz4" {
		t.Errorf("lz4 form: %s (%s bytes)", got, query(t, c, `SELECT pg_column_size(doc) FROM narrow WHERE id = 3`))
	}
}

// INSERT … ON CONFLICT with large values: DO UPDATE replaces the value
// (old chunks dead, new ones live), DO NOTHING stores nothing.
func TestToastUpsert(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE up (id int PRIMARY KEY, body text)`)
	big := func(seed int) string {
		return fmt.Sprintf(`(SELECT string_agg(md5((%d * 1000 + j)::text), '') FROM generate_series(1, 400) j)`, seed)
	}
	exec(t, c, `INSERT INTO up VALUES (1, `+big(1)+`)`)
	toastRel := query(t, c, `SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'up'`)
	exec(t, c, `INSERT INTO up VALUES (1, `+big(2)+`) ON CONFLICT (id) DO NOTHING`)
	exec(t, c, `INSERT INTO up VALUES (1, `+big(3)+`) ON CONFLICT (id) DO UPDATE SET body = excluded.body`)
	exec(t, c, `INSERT INTO up VALUES (2, `+big(4)+`) ON CONFLICT (id) DO UPDATE SET body = excluded.body`)
	if got, want := query(t, c, `SELECT md5(string_agg(body, '' ORDER BY id)) FROM up`), query(t, c, `SELECT md5(`+big(3)+` || `+big(4)+`)`); got != want {
		t.Errorf("values after upserts differ")
	}
	if got := query(t, c, `SELECT count(*) FROM `+toastRel); got != "14" {
		t.Errorf("live chunks: %s, want 2 values of 7", got)
	}
	exec(t, c, `VACUUM up`)
	if got := query(t, c, `SELECT tidal_check('up')`); got != "ok" {
		t.Errorf("tidal_check: %s", got)
	}
}

// Index entries of large values: compressed inline (a 100 kB compressible
// key is indexable), never out of line; too-big keys get PostgreSQL 15's
// errors.
func TestToastIndexKeys(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE ix (id int, v text)`)
	exec(t, c, `CREATE INDEX ix_v ON ix (v)`)
	exec(t, c, `INSERT INTO ix VALUES (1, repeat('x', 100000))`)
	_, err := execErr(c, `INSERT INTO ix VALUES (2, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i))`)
	pe := wantState(t, "3200-byte key", err, "54000")
	if pe.Message != `index row size 3216 exceeds btree version 4 maximum 2704 for index "ix_v"` ||
		pe.Detail != `Index row references tuple (0,2) in relation "ix".` ||
		pe.Hint != "Values larger than 1/3 of a buffer page cannot be indexed.\nConsider a function index of an MD5 hash of the value, or use full text indexing." {
		t.Errorf("3200-byte key: %q / %q / %q", pe.Message, pe.Detail, pe.Hint)
	}
	_, err = execErr(c, `INSERT INTO ix VALUES (3, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 300) i))`)
	if pe := wantState(t, "9600-byte key", err, "54000"); pe.Message != "index row requires 9616 bytes, maximum size is 8191" {
		t.Errorf("9600-byte key: %q", pe.Message)
	}
	if got := query(t, c, `SELECT id, length(v) FROM ix WHERE v = repeat('x', 100000)`); got != "1|100000" {
		t.Errorf("lookup of a compressed key: %s", got)
	}
	if got := query(t, c, `SELECT count(*), pg_relation_size('ix_v') / 8192 FROM ix`); got != "1|2" {
		t.Errorf("rows, index pages: %s", got)
	}
	// tidal_check decodes every index entry (decompressing the key) and
	// compares it with the row's value.
	if got := query(t, c, `SELECT tidal_check('ix')`); got != "ok" {
		t.Errorf("tidal_check: %s", got)
	}
}

// A temporary table's TOAST table lives in the session's pg_toast_temp_N,
// is temporary too, and goes with the table.
func TestToastTempTable(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TEMP TABLE tt (id int, body text)`)
	exec(t, c, `INSERT INTO tt SELECT i, (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 300) j) FROM generate_series(1, 5) i`)
	if got := query(t, c, `SELECT n.nspname LIKE 'pg_toast_temp_%', t.relpersistence = 't' FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid JOIN pg_namespace n ON n.oid = t.relnamespace WHERE c.relname = 'tt'`); got != "true|true" {
		t.Errorf("TOAST table of a temporary table: %s", got)
	}
	if got := query(t, c, `SELECT count(*), sum(length(body)) FROM tt`); got != "5|48000" {
		t.Errorf("values: %s", got)
	}
	exec(t, c, `UPDATE tt SET body = body || 'x' WHERE id = 1`)
	exec(t, c, `DELETE FROM tt WHERE id = 2`)
	if got := query(t, c, `SELECT count(*), sum(length(body)) FROM tt`); got != "4|38401" {
		t.Errorf("values after UPDATE/DELETE: %s", got)
	}
	exec(t, c, `DROP TABLE tt`)
	if got := query(t, c, `SELECT count(*) FROM pg_class WHERE relname LIKE 'pg_toast_%' AND relpersistence = 't'`); got != "0" {
		t.Errorf("temporary TOAST relations after DROP: %s", got)
	}
}
