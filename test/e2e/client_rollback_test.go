package e2e

// TestRollbackAfterUniqueViolation: the first error inside a transaction
// block must not break the connection. After a unique violation, ROLLBACK
// returns the connection to idle (row 2, inserted before the error, is
// gone) and the connection works again (row 3 commits), through each
// client stack as an application uses it:
//
//   - pgx: conn.Query(ctx, "ROLLBACK") (extended protocol, statement cache);
//   - raw pgproto3: Parse/Bind/Describe/Execute/Sync of ROLLBACK;
//   - lib/pq: tx.Rollback() through database/sql (a simple query), and a
//     ROLLBACK prepared in the failed block (a named statement);
//   - pgjdbc: conn.rollback() (testdata/clients/Rollback.java, run with
//     java and Debian's libpgjava: /usr/share/java/postgresql.jar);
//   - psycopg 3: conn.rollback() (testdata/clients/rollback.py, run with
//     /usr/bin/python3 and Debian's python3-psycopg).
//
// pgjdbc and psycopg 3 send the ROLLBACK through the extended protocol,
// which PostgreSQL accepts in an aborted block. The two external
// subtests skip only when their runtime is missing; .ci/run installs the
// Debian packages. With TIDAL_SQLTEST_PG set (as for the SQL scripts) the
// test runs against that server instead, which checks it against
// PostgreSQL 15:
//
//	TIDAL_SQLTEST_PG='postgres://postgres@127.0.0.1:54315/postgres?sslmode=disable' go test ./test/e2e -run TestRollbackAfterUniqueViolation

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/lib/pq"

	"github.com/tidal-db/tidal/internal/testutil"
)

// rollbackWant is what every client reports after the sequence.
const rollbackWant = "violation 23505\nstate IDLE\ncount 2 ids 1,3\n"

func TestRollbackAfterUniqueViolation(t *testing.T) {
	dsn := os.Getenv("TIDAL_SQLTEST_PG")
	if dsn == "" {
		dsn = testutil.Start(t, testutil.Options{}).DSN()
	}
	admin := connect(t, dsn)
	// newTable makes a table holding id = 1 for one client.
	newTable := func(t *testing.T, name string) string {
		exec(t, admin, "DROP TABLE IF EXISTS "+name)
		exec(t, admin, "CREATE TABLE "+name+" (id int PRIMARY KEY)")
		exec(t, admin, "INSERT INTO "+name+" VALUES (1)")
		t.Cleanup(func() { execErr(admin, "DROP TABLE IF EXISTS "+name) })
		return name
	}
	ids := func(t *testing.T, table string) string {
		return query(t, admin, "SELECT string_agg(id::text, ',' ORDER BY id) FROM "+table)
	}

	t.Run("pgx", func(t *testing.T) {
		tbl := newTable(t, "rb_pgx")
		ctx := tctx(t)
		c := connectExt(t, dsn)
		var out strings.Builder
		exec(t, c, "BEGIN")
		exec(t, c, "INSERT INTO "+tbl+" VALUES (2)")
		_, err := c.Exec(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 1)
		fmt.Fprintf(&out, "violation %s\n", sqlState(err))
		rows, err := c.Query(ctx, "ROLLBACK")
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			t.Fatalf("Query(ROLLBACK): %v", err)
		}
		fmt.Fprintf(&out, "state %s\n", txStatusName(c.PgConn().TxStatus()))
		if _, err := c.Exec(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 3); err != nil {
			t.Fatalf("insert after ROLLBACK: %v", err)
		}
		got := ids(t, tbl)
		fmt.Fprintf(&out, "count %d ids %s\n", strings.Count(got, ",")+1, got)
		wantClientOutput(t, "pgx", out.String())
	})

	t.Run("pgproto3", func(t *testing.T) {
		tbl := newTable(t, "rb_proto")
		c := connectExt(t, dsn)
		r := newRawConn(t, c)
		r.expect("C BEGIN ZT", &pgproto3.Query{String: "BEGIN"})
		r.run("1 2 n C INSERT 0 1 ZT", "INSERT INTO "+tbl+" VALUES (2)")
		r.run("1 2 n E 23505 ZE", "INSERT INTO "+tbl+" VALUES (1)")
		r.run("1 2 n C ROLLBACK ZI", "ROLLBACK")
		r.run("1 2 n C INSERT 0 1 ZI", "INSERT INTO "+tbl+" VALUES (3)")
		if got := ids(t, tbl); got != "1,3" {
			t.Fatalf("rows %s, want 1,3", got)
		}
	})

	t.Run("libpq", func(t *testing.T) {
		tbl := newTable(t, "rb_libpq")
		ctx := tctx(t)
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conn, err := db.Conn(ctx) // one connection throughout
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var out strings.Builder
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 2); err != nil {
			t.Fatal(err)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 1)
		var pe *pq.Error
		if errors.As(err, &pe) {
			fmt.Fprintf(&out, "violation %s\n", pe.Code)
		} else {
			fmt.Fprintf(&out, "no violation: %v\n", err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatalf("Rollback: %v", err)
		}
		// database/sql hides the transaction status: outside a block the
		// next statement is its own transaction, committed at once, so
		// another session sees its row.
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 3); err != nil {
			t.Fatalf("insert after Rollback: %v", err)
		}
		state := "INTRANS"
		if query(t, admin, "SELECT count(*) FROM "+tbl+" WHERE id = 3") == "1" {
			state = "IDLE"
		}
		fmt.Fprintf(&out, "state %s\n", state)
		got := ids(t, tbl)
		fmt.Fprintf(&out, "count %d ids %s\n", strings.Count(got, ",")+1, got)
		wantClientOutput(t, "lib/pq", out.String())
	})

	// lib/pq sends tx.Rollback() as a simple query; a ROLLBACK it prepares
	// goes through the extended protocol with a named statement, parsed in
	// the failed block.
	t.Run("libpq-prepared", func(t *testing.T) {
		tbl := newTable(t, "rb_libpq_prep")
		ctx := tctx(t)
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, q := range []string{"BEGIN", "INSERT INTO " + tbl + " VALUES (2)"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		var pe *pq.Error
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 1); !errors.As(err, &pe) || pe.Code != "23505" {
			t.Fatalf("duplicate: %v", err)
		}
		st, err := conn.PrepareContext(ctx, "ROLLBACK")
		if err != nil {
			t.Fatalf("Prepare(ROLLBACK) in the failed block: %v", err)
		}
		if _, err := st.ExecContext(ctx); err != nil {
			t.Fatalf("ROLLBACK: %v", err)
		}
		st.Close()
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+tbl+" VALUES ($1)", 3); err != nil {
			t.Fatalf("insert after ROLLBACK: %v", err)
		}
		if got := ids(t, tbl); got != "1,3" {
			t.Fatalf("rows %s, want 1,3", got)
		}
	})

	t.Run("pgjdbc", func(t *testing.T) {
		const jar = "/usr/share/java/postgresql.jar" // Debian: libpgjava
		java, err := osexec.LookPath("java")
		if err != nil {
			t.Skip("no java")
		}
		if _, err := os.Stat(jar); err != nil {
			t.Skipf("no pgjdbc (%s, Debian package libpgjava)", jar)
		}
		tbl := newTable(t, "rb_jdbc")
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		url := fmt.Sprintf("jdbc:postgresql://%s:%d/%s?user=%s&sslmode=disable", cfg.Host, cfg.Port, cfg.Database, cfg.User)
		out := runClient(t, "Rollback.java", java, "-cp", jar, clientFile(t, "Rollback.java"), url, tbl)
		wantClientOutput(t, "pgjdbc", out)
	})

	t.Run("psycopg", func(t *testing.T) {
		const python = "/usr/bin/python3" // Debian's, not a pyenv one
		if _, err := os.Stat(python); err != nil {
			t.Skip("no /usr/bin/python3")
		}
		if err := osexec.Command(python, "-c", "import psycopg").Run(); err != nil {
			t.Skip("no psycopg 3 (Debian package python3-psycopg)")
		}
		tbl := newTable(t, "rb_psycopg")
		out := runClient(t, "rollback.py", python, clientFile(t, "rollback.py"), dsn, tbl)
		wantClientOutput(t, "psycopg", out)
	})
}

func txStatusName(s byte) string {
	switch s {
	case 'I':
		return "IDLE"
	case 'T':
		return "INTRANS"
	case 'E':
		return "INERROR"
	}
	return fmt.Sprintf("%q", s)
}

func clientFile(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "clients", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runClient runs an external client program and returns its standard
// output; a failure shows both streams.
func runClient(t *testing.T, label, name string, args ...string) string {
	t.Helper()
	// A JVM compiling a source file on a loaded 2-core machine can take a
	// while; this is a hang guard, not a performance target.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, name, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", label, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func wantClientOutput(t *testing.T, client, got string) {
	t.Helper()
	if got != rollbackWant {
		t.Fatalf("%s reported:\n%s\nwant:\n%s", client, got, rollbackWant)
	}
}
