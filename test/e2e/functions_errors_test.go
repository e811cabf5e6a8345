package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestFunctionErrors: errors of routine definitions and calls carry
// PostgreSQL 15's message, DETAIL, HINT, position and CONTEXT lines (the
// expected fields are PostgreSQL's: run with TIDAL_E2E_REFERENCE_DSN to
// check them there), and a failed call leaves the session usable.
func TestFunctionErrors(t *testing.T) {
	c := connect(t, target(t))
	for _, q := range []string{
		"DROP TABLE IF EXISTS fe_t",
		"DROP FUNCTION IF EXISTS fe_div(int), fe_outer(), fe_ins(), fe_divs(int), fe_two(int), fe_two(text), fe_amb(int), fe_amb(int, int), fe_rec(int)",
		"CREATE TABLE fe_t (a int)",
		"CREATE FUNCTION fe_div(int) RETURNS int LANGUAGE sql VOLATILE AS 'SELECT 1; SELECT 10 / $1'",
		"CREATE FUNCTION fe_outer() RETURNS int LANGUAGE sql VOLATILE AS 'SELECT 1; SELECT fe_div(0)'",
		"CREATE FUNCTION fe_ins() RETURNS int LANGUAGE sql STABLE AS 'INSERT INTO fe_t VALUES (1) RETURNING a'",
		"CREATE FUNCTION fe_divs(int) RETURNS SETOF int LANGUAGE sql AS 'SELECT 10 / $1'",
		"CREATE FUNCTION fe_two(int) RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"CREATE FUNCTION fe_two(text) RETURNS int LANGUAGE sql AS 'SELECT 2'",
		"CREATE FUNCTION fe_amb(int) RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"CREATE FUNCTION fe_amb(int, int DEFAULT 0) RETURNS int LANGUAGE sql AS 'SELECT 2'",
		"CREATE FUNCTION fe_rec(int) RETURNS int LANGUAGE sql AS 'SELECT 1 FROM fe_t LIMIT 0; SELECT fe_rec($1 + 1)'",
	} {
		exec(t, c, q)
	}
	type fields struct {
		code, message, detail, hint, where string
		position                           int32
	}
	for _, tc := range []struct {
		sql  string
		want fields
	}{
		{"SELECT fe_div(0)", fields{code: "22012", message: "division by zero", where: `SQL function "fe_div" statement 2`}},
		{"SELECT fe_outer()", fields{code: "22012", message: "division by zero",
			where: "SQL function \"fe_div\" statement 2\nSQL function \"fe_outer\" statement 2"}},
		{"SELECT fe_ins()", fields{code: "0A000", message: "INSERT is not allowed in a non-volatile function", where: `SQL function "fe_ins" during startup`}},
		{"SELECT * FROM fe_divs(0)", fields{code: "22012", message: "division by zero", where: `SQL function "fe_divs" statement 1`}},
		{"SELECT fe_two(true)", fields{code: "42883", message: "function fe_two(boolean) does not exist", position: 8,
			hint: "No function matches the given name and argument types. You might need to add explicit type casts."}},
		{"SELECT fe_amb(1)", fields{code: "42725", message: "function fe_amb(integer) is not unique", position: 8,
			hint: "Could not choose a best candidate function. You might need to add explicit type casts."}},
		{"SELECT fe_amb(a => 1)", fields{code: "42883", message: "function fe_amb(a => integer) does not exist", position: 8,
			hint: "No function matches the given name and argument types. You might need to add explicit type casts."}},
		{"CREATE FUNCTION fe_bad() RETURNS int LANGUAGE sql AS 'SELECT ''a''::text'", fields{code: "42P13",
			message: "return type mismatch in function declared to return integer", detail: "Actual return type is text.", where: `SQL function "fe_bad"`}},
		{"CREATE FUNCTION fe_bad() RETURNS int LANGUAGE sql AS 'UPDATE fe_t SET a = 1'", fields{code: "42P13",
			message: "return type mismatch in function declared to return integer",
			detail:  "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.", where: `SQL function "fe_bad"`}},
		{"CREATE FUNCTION fe_bad() RETURNS int LANGUAGE sql AS 'SELECT x FROM fe_nosuch'", fields{code: "42P01",
			message: `relation "fe_nosuch" does not exist`, position: 69}},
		{"CREATE FUNCTION fe_bad(int) RETURNS int LANGUAGE sql AS 'SELECT $2'", fields{code: "42P02", message: "there is no parameter $2", position: 65}},
		{"CREATE FUNCTION fe_two(int) RETURNS int LANGUAGE sql AS 'SELECT 1'", fields{code: "42723",
			message: `function "fe_two" already exists with same argument types`}},
		{"CREATE OR REPLACE FUNCTION fe_two(int) RETURNS text LANGUAGE sql AS 'SELECT ''x'''", fields{code: "42P13",
			message: "cannot change return type of existing function", hint: "Use DROP FUNCTION fe_two(integer) first."}},
		{"DROP FUNCTION fe_two", fields{code: "42725", message: `function name "fe_two" is not unique`,
			hint: "Specify the argument list to select the function unambiguously."}},
		{"DROP FUNCTION fe_two(bool)", fields{code: "42883", message: "function fe_two(boolean) does not exist"}},
		{"CREATE FUNCTION fe_bad(a int DEFAULT 1, b int) RETURNS int LANGUAGE sql AS 'SELECT 1'", fields{code: "42P13",
			message: "input parameters after one with a default value must also have defaults"}},
	} {
		_, err := execErr(c, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: want an error, got %v", tc.sql, err)
		}
		got := fields{pe.Code, pe.Message, pe.Detail, pe.Hint, pe.Where, pe.Position}
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
	// Unbounded recursion ends with 54001, one CONTEXT line per level.
	exec(t, c, "SET max_stack_depth = '100kB'")
	_, err := execErr(c, "SELECT fe_rec(1)")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "54001" || pe.Message != "stack depth limit exceeded" ||
		pe.Hint != `Increase the configuration parameter "max_stack_depth" (currently 100kB), after ensuring the platform's stack depth limit is adequate.` {
		t.Fatalf("recursion: got %v", err)
	}
	if n := strings.Count(pe.Where, "SQL function \"fe_rec\" statement 2"); n < 10 {
		t.Errorf("recursion: %d CONTEXT lines of the recursive call, want one per level:\n%s", n, pe.Where)
	}
	exec(t, c, "RESET max_stack_depth")
	if got := query(t, c, "SELECT fe_two(5)"); got != "1" {
		t.Errorf("after the errors: fe_two(5) = %q", got)
	}
}

// TestFunctionInterrupts: statement_timeout and a CancelRequest end a
// statement that spends its time inside SQL functions (their statements'
// loops check for interrupts), with the calls' CONTEXT, and the block
// is aborted.
func TestFunctionInterrupts(t *testing.T) {
	s := startInterruptServer(t)
	c := connect(t, s.DSN())
	exec(t, c, "CREATE FUNCTION intr_cross(int) RETURNS bigint LANGUAGE sql AS 'SELECT 1 FROM intr_t LIMIT 0; SELECT count(*) + $1 FROM intr_t a, intr_t b, intr_t c'")
	exec(t, c, "CREATE FUNCTION intr_many(int) RETURNS int LANGUAGE sql VOLATILE AS 'SELECT 1 FROM intr_t LIMIT 0; SELECT $1 + 1'")
	exec(t, c, "SET statement_timeout = '300ms'")
	for _, q := range []string{
		"SELECT intr_cross(1)",
		"SELECT count(intr_many(g::int)) FROM generate_series(1, 1e10) g",
		"SELECT * FROM intr_t WHERE intr_cross(g) < 0",
	} {
		began := time.Now()
		wantEndsWith(t, start(c, q), began, "57014", "canceling statement due to statement timeout")
		wantUsable(t, c)
	}
	exec(t, c, "RESET statement_timeout")
	exec(t, c, "BEGIN")
	p := start(c, "SELECT intr_cross(2)")
	p.stillBlocked(t)
	began := time.Now()
	if err := c.PgConn().CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantEndsWith(t, p, began, "57014", "canceling statement due to user request")
	wantBlockAborted(t, c)
}

// TestConcurrentCreateFunction: two sessions creating the same function
// at once do not both succeed (pg_proc has no unique index here: routine
// DDL is serialized); the second waits for the first and then sees its
// function.
func TestConcurrentCreateFunction(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	a, b := connect(t, s.DSN()), connect(t, s.DSN())
	exec(t, a, "BEGIN")
	exec(t, a, "CREATE FUNCTION race() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	p := start(b, "CREATE FUNCTION race() RETURNS int LANGUAGE sql AS 'SELECT 2'")
	p.stillBlocked(t)
	exec(t, a, "COMMIT")
	wantState(t, p.sql, p.wait(t).err, "42723")
	if got := query(t, b, "SELECT race()"); got != "1" {
		t.Errorf("race() = %q, want the first session's 1", got)
	}
	if got := query(t, b, "SELECT count(*) FROM pg_proc WHERE proname = 'race'"); got != "1" {
		t.Errorf("pg_proc rows for race: %s", got)
	}
}
