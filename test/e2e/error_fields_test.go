package e2e

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestErrorObjectFields: integrity violations name their schema, table,
// column and constraint in the ErrorResponse, as PostgreSQL 15 does (the
// expected fields are PostgreSQL's), so pgx's PgError, psycopg2's diag and
// node-postgres' err.constraint can use them.
func TestErrorObjectFields(t *testing.T) {
	dsn := target(t)
	c := connect(t, dsn)
	for _, q := range []string{
		"DROP TABLE IF EXISTS ef_c, ef_p, ef_u, ef_d",
		"CREATE TABLE ef_p (id int PRIMARY KEY)",
		"CREATE TABLE ef_c (id int, pid int CONSTRAINT ef_fk REFERENCES ef_p, n int NOT NULL, v int CONSTRAINT ef_chk CHECK (v > 0))",
		"CREATE TABLE ef_u (a int, CONSTRAINT ef_u_uq UNIQUE (a))",
		"CREATE TABLE ef_d (a int)",
		"INSERT INTO ef_p VALUES (1)",
		"INSERT INTO ef_d VALUES (1), (1)",
	} {
		exec(t, c, q)
	}
	type fields struct{ code, schema, table, column, constraint string }
	for _, tc := range []struct {
		sql  string
		want fields
	}{
		{"INSERT INTO ef_p VALUES (1)", fields{"23505", "public", "ef_p", "", "ef_p_pkey"}},
		{"INSERT INTO ef_c VALUES (1, 2, 1, 1)", fields{"23503", "public", "ef_c", "", "ef_fk"}},
		{"INSERT INTO ef_c VALUES (1, 1, NULL, 1)", fields{"23502", "public", "ef_c", "n", ""}},
		{"INSERT INTO ef_c VALUES (1, 1, 1, -1)", fields{"23514", "public", "ef_c", "", "ef_chk"}},
		{"INSERT INTO ef_u VALUES (1), (1)", fields{"23505", "public", "ef_u", "", "ef_u_uq"}},
		{"CREATE UNIQUE INDEX ef_d_ix ON ef_d (a)", fields{"23505", "public", "ef_d", "", "ef_d_ix"}},
		{"SELECT 1/0", fields{"22012", "", "", "", ""}},
	} {
		_, err := execErr(c, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: want an error, got %v", tc.sql, err)
		}
		got := fields{pe.Code, pe.SchemaName, pe.TableName, pe.ColumnName, pe.ConstraintName}
		if got != tc.want || pe.DataTypeName != "" {
			t.Errorf("%s: got %+v (datatype %q), want %+v", tc.sql, got, pe.DataTypeName, tc.want)
		}
	}
	exec(t, c, "INSERT INTO ef_c VALUES (1, 1, 1, 1), (2, 1, 1, NULL)")
	for _, tc := range []struct {
		sql  string
		want fields
	}{
		{"DELETE FROM ef_p", fields{"23503", "public", "ef_c", "", "ef_fk"}},
		{"ALTER TABLE ef_c ADD CONSTRAINT ef_chk2 CHECK (v > 5)", fields{"23514", "public", "ef_c", "", "ef_chk2"}},
		{"ALTER TABLE ef_c ALTER COLUMN v SET NOT NULL", fields{"23502", "public", "ef_c", "v", ""}},
	} {
		_, err := execErr(c, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: want an error, got %v", tc.sql, err)
		}
		if got := (fields{pe.Code, pe.SchemaName, pe.TableName, pe.ColumnName, pe.ConstraintName}); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.sql, got, tc.want)
		}
	}
}
