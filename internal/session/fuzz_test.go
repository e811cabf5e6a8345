package session

import (
	"context"
	"errors"
	"github.com/tidal-db/tidal/internal/access/tableams"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
)

// fuzzWriter is a ResultWriter that keeps only the first column of the
// last DataRow.
type fuzzWriter struct{ last string }

func (w *fuzzWriter) RowDescription([]pgwire.FieldDesc) error { return nil }
func (w *fuzzWriter) DataRow(v [][]byte) error {
	if len(v) > 0 {
		w.last = string(v[0])
	}
	return nil
}
func (w *fuzzWriter) CommandComplete(string) error { return nil }
func (w *fuzzWriter) EmptyQuery() error            { return nil }
func (w *fuzzWriter) Notice(*pgerr.Error) error    { return nil }

var fuzzSeeds = []string{
	"",
	";;",
	"-- only a comment",
	"SELECT 1",
	"SELECT 1; SELECT 2",
	"CREATE TABLE f (id int PRIMARY KEY, v text, n numeric, b bigint)",
	"CREATE TABLE IF NOT EXISTS g (a int, b text DEFAULT 'x' NOT NULL)",
	"INSERT INTO f VALUES (1, 'a', 1.5, 9223372036854775807)",
	"INSERT INTO f SELECT g, g::text, g, g FROM generate_series(2, 50) g",
	"UPDATE f SET v = v || 'x' WHERE id < 10 RETURNING id, v",
	"DELETE FROM f WHERE id % 7 = 0",
	"SELECT id, count(*), sum(n), max(v) FROM f GROUP BY id HAVING count(*) > 0 ORDER BY 1 DESC LIMIT 3 OFFSET 1",
	"SELECT * FROM f a JOIN f b ON a.id = b.id + 1 LEFT JOIN g ON g.a = a.id WHERE a.v LIKE 'a%'",
	"SELECT (SELECT max(id) FROM f), EXISTS (SELECT 1 FROM f WHERE id = 3), 3 IN (SELECT id FROM f)",
	"WITH c AS (SELECT id FROM f) SELECT * FROM c UNION ALL SELECT 1 EXCEPT SELECT 2",
	"CREATE INDEX ON f (v)",
	"CREATE UNIQUE INDEX fi ON f (b, v)",
	"ALTER TABLE f ADD COLUMN extra int",
	"DROP TABLE IF EXISTS g",
	"DROP INDEX IF EXISTS fi",
	"TRUNCATE f",
	"BEGIN; INSERT INTO f VALUES (100, 'z', 0, 0); ROLLBACK",
	"BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM f; COMMIT",
	"BEGIN ISOLATION LEVEL SERIALIZABLE",
	"BEGIN; SELECT 1/0; COMMIT",
	"BEGIN; SELEC 1",
	"START TRANSACTION READ ONLY",
	"SAVEPOINT a",
	"COMMIT",
	"ROLLBACK",
	"SET statement_timeout = '1s'",
	"SET LOCAL work_mem = '64kB'",
	"SET nonexistent.setting = 1",
	"SHOW ALL",
	"SHOW server_version",
	"RESET ALL",
	"VACUUM f",
	"VACUUM (VERBOSE, ANALYZE) f",
	"ANALYZE f",
	"CHECKPOINT",
	"EXPLAIN SELECT * FROM f WHERE id = 1",
	"EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM f",
	"PREPARE p (int) AS SELECT $1 + 1; EXECUTE p(41); DEALLOCATE p",
	"COPY f TO STDOUT",
	"COPY f FROM STDIN",
	"SELECT $1",
	"SELECT * FROM pg_class WHERE relname = 'f'",
	"SELECT 'ünïcödé 🚀', length('日本語'), upper('ß'), E'\\x00'",
	"SELECT U&'\\0041', 'a' || NULL, NULL::int + 1",
	"SELECT '\xff\xfe'",
	"SELECT 99999999999999999999999999999999999999999999999999",
	"SELECT 9223372036854775807 + 1",
	"SELECT -2147483648::int4, (-2147483648)::int4 / -1",
	"SELECT 1e308 * 10, 'NaN'::float8, 'Infinity'::numeric",
	"SELECT 10000000000000000000000000000000000000000000::numeric ^ 1000",
	"SELECT repeat('x', 100000)",
	"SELECT '2024-02-30'::date, '99999-01-01'::timestamp, interval '1000000 years'",
	"SELECT ARRAY[1,2,3][5], '{1,{2}}'::int[], ('{}'::int[])[0]",
	"SELECT CASE WHEN 1 = 1 THEN 'a' ELSE 1 END",
	"SELECT * FROM nope",
	"SELECT nope FROM f",
	"INSERT INTO f VALUES (1)",
	"INSERT INTO f (id) VALUES ('abc')",
	"SELECT 'abc",
	"SELECT (((((((((((1)))))))))))",
	"SELECT " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200),
	"/* unterminated comment",
	"SELECT 1 +",
	"\x00",
	"CREATE TABLE \"\" (a int)",
	"SELECT count(*) FROM generate_series(1, 100000)",
	"SELECT 1 WHERE ''",               // crashed: Coerce's nil result used for the message
	"SELECT FROM f a JOIN f b ON 'x'", // likewise for JOIN/ON
	"SELECT 1 WHERE 1",
	"UPDATE f SET v = v WHERE 0",
	"DELETE FROM f WHERE 'x'",
	"PREPARE q (int) AS SELECT $1; EXECUTE q('abc')",
	"PREPARE r (int) AS SELECT $1; EXECUTE r(true)",
}

// FuzzSimpleQuery feeds arbitrary query strings to a session on a real
// engine: nothing may panic, every error must be a *pgerr.Error with a
// five-character SQLSTATE, and the session must still answer SELECT 1.
//
//	go test -run '^$' -fuzz FuzzSimpleQuery -fuzztime 60s ./internal/session/
func FuzzSimpleQuery(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	cfg := engine.DefaultConfig(filepath.Join(f.TempDir(), "data"))
	cfg.SharedBuffers = 8 << 20
	cfg.Logger = log.New(io.Discard, "", 0)
	cfg.AccessMethods = tableams.Builtin()
	eng, err := engine.Open(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { eng.Close() })
	conf := map[string]string{"statement_timeout": "2000", "fsync": "off", "synchronous_commit": "off"}

	f.Fuzz(func(t *testing.T, sql string) {
		s := New(eng, conf)
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		w := &fuzzWriter{}
		checkErr := func(what string, err error) {
			if err == nil {
				return
			}
			var pe *pgerr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("%s %q: error is %T, not *pgerr.Error: %v", what, sql, err, err)
			}
			if len(pe.Code) != 5 {
				t.Fatalf("%s %q: SQLSTATE %q is not 5 characters: %v", what, sql, pe.Code, err)
			}
		}
		checkErr("query", s.SimpleQuery(ctx, sql, w))
		if s.TxStatus() == 'E' {
			if err := s.SimpleQuery(ctx, "ROLLBACK", w); err != nil {
				t.Fatalf("after %q: ROLLBACK: %v", sql, err)
			}
		}
		w.last = ""
		if err := s.SimpleQuery(ctx, "SELECT 1", w); err != nil || w.last != "1" {
			t.Fatalf("after %q: SELECT 1 = %q, %v", sql, w.last, err)
		}
	})
}
