package e2e

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// referenceDSN lets the bad-input tests run against a real PostgreSQL, to
// check that the expectations are PostgreSQL's:
//
//	TIDAL_E2E_REFERENCE_DSN='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test -run 'BadInput|FailedBlock' ./test/e2e/
func target(t *testing.T) string {
	t.Helper()
	if dsn := os.Getenv("TIDAL_E2E_REFERENCE_DSN"); dsn != "" {
		return dsn
	}
	return testutil.Start(t, testutil.Options{}).DSN()
}

const badInputTable = "CREATE TABLE bad (id int PRIMARY KEY, v varchar(3) NOT NULL, n int)"
const badInputRows = "INSERT INTO bad VALUES (1, 'a', 0), (2, 'b', 0)"

func badInputConn(t *testing.T) *pgx.Conn {
	c := connect(t, target(t))
	exec(t, c, "DROP TABLE IF EXISTS bad")
	exec(t, c, badInputTable)
	exec(t, c, badInputRows)
	return c
}

// Each bad statement fails with PostgreSQL's SQLSTATE (and, where
// PostgreSQL reports one, the position of the offending token), changes
// nothing, and leaves the session ready for the next statement.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		code string
		// at: the offending token; the error's position must point at its
		// first occurrence (last, with a leading "$"). "" = no position.
		at string
	}{
		{"syntax error", "SELEC 1", "42601", "SELEC"},
		{"syntax error mid-statement", "SELECT * FROM bad WHERE id = = 1", "42601", "$="},
		{"syntax error at end", "SELECT 1 +", "42601", "$"},
		{"unterminated string", "SELECT 'abc", "42601", "'abc"},
		{"unknown table", "SELECT * FROM nope", "42P01", "nope"},
		{"unknown table in INSERT", "INSERT INTO nope VALUES (1)", "42P01", "nope"},
		{"unknown column", "SELECT nope FROM bad", "42703", "nope"},
		{"unknown column in WHERE", "SELECT id FROM bad WHERE nope = 1", "42703", "nope"},
		{"unknown column in UPDATE", "UPDATE bad SET nope = 1", "42703", "nope"},
		{"unknown type", "SELECT 1::nosuchtype", "42704", "nosuchtype"},
		{"unknown type in CREATE TABLE", "CREATE TABLE x (a nosuchtype)", "42704", "nosuchtype"},
		{"unknown function", "SELECT nosuchfn(1)", "42883", "nosuchfn"},
		{"unknown operator", "SELECT 1 + 'x'::text", "42883", "+"},
		{"division by zero", "SELECT 1 / 0", "22012", ""},
		{"division by zero on rows", "SELECT n / 0 FROM bad", "22012", ""},
		{"modulo by zero", "SELECT 5 % 0", "22012", ""},
		{"division by zero in UPDATE", "UPDATE bad SET n = 1 / n", "22012", ""},
		{"integer out of range", "SELECT 2147483647 + 1", "22003", ""},
		{"integer out of range on INSERT", "INSERT INTO bad VALUES (3, 'c', 3000000000)", "22003", ""},
		{"smallint out of range", "SELECT 32768::int2", "22003", ""},
		{"invalid input syntax", "SELECT 'abc'::int", "22P02", "'abc'"},
		{"invalid input syntax on INSERT", "INSERT INTO bad VALUES ('x', 'c', 0)", "22P02", "'x'"},
		{"NOT NULL violation", "INSERT INTO bad VALUES (3, NULL, 0)", "23502", ""},
		{"NOT NULL violation by omission", "INSERT INTO bad (id) VALUES (3)", "23502", ""},
		{"NOT NULL violation in UPDATE", "UPDATE bad SET v = NULL WHERE id = 2", "23502", ""},
		{"duplicate key", "INSERT INTO bad VALUES (1, 'c', 0)", "23505", ""},
		{"duplicate key within one INSERT", "INSERT INTO bad VALUES (3, 'c', 0), (4, 'd', 0), (3, 'e', 0)", "23505", ""},
		{"duplicate key by UPDATE", "UPDATE bad SET id = 1 WHERE id = 2", "23505", ""},
		{"value too long", "INSERT INTO bad VALUES (3, 'abcd', 0)", "22001", ""},
		{"value too long in UPDATE", "UPDATE bad SET v = v || 'xyz'", "22001", ""},
		{"failing second statement of a multi-statement query", "INSERT INTO bad VALUES (3, 'c', 0); SELECT 1 / 0", "22012", ""},
		{"VACUUM in a multi-statement query", "SELECT 1; VACUUM bad", "25001", ""},
	}
	c := badInputConn(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execErr(c, tc.sql)
			pe := wantState(t, tc.sql, err, tc.code)
			if pe.Severity != "ERROR" {
				t.Errorf("severity %q, want ERROR", pe.Severity)
			}
			if tc.at != "" {
				want := int32(0)
				switch {
				case tc.at == "$":
					want = int32(len(tc.sql) + 1)
				case tc.at[0] == '$':
					want = int32(strings.LastIndex(tc.sql, tc.at[1:]) + 1)
				default:
					want = int32(strings.Index(tc.sql, tc.at) + 1)
				}
				if pe.Position != want {
					t.Errorf("position %d, want %d (%q in %q); message %q", pe.Position, want, tc.at, tc.sql, pe.Message)
				}
			}
			wantUsable(t, c)
			// Nothing was changed: statements are atomic.
			if got := query(t, c, "SELECT id, v, n FROM bad ORDER BY id"); got != "1|a|0,2|b|0" {
				t.Fatalf("table changed by a failed statement: %q", got)
			}
			if got := queryInt(t, c, "SELECT count(*) FROM bad WHERE id = 3"); got != 0 {
				t.Fatalf("index has an entry for a row of a failed statement")
			}
		})
	}
}

// A statement failing inside BEGIN … aborts the whole transaction: every
// later statement fails with 25P02 until the block ends, and COMMIT of the
// failed block reports ROLLBACK. Nothing the transaction did survives.
func TestFailedBlock(t *testing.T) {
	cases := []struct {
		name string
		bad  string
		code string
		end  string
	}{
		{"error, COMMIT", "SELECT 1 / 0", "22012", "COMMIT"},
		{"error, ROLLBACK", "SELECT 1 / 0", "22012", "ROLLBACK"},
		{"syntax error", "SELEC 1", "42601", "COMMIT"},
		{"unknown table", "SELECT * FROM nope", "42P01", "COMMIT"},
		{"duplicate key", "INSERT INTO bad VALUES (1, 'x', 0)", "23505", "COMMIT"},
		{"VACUUM", "VACUUM bad", "25001", "COMMIT"},
		{"deferred END", "SELECT 'abc'::int", "22P02", "END"},
	}
	c := badInputConn(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if txStatus(c) != 'I' { // a previous case failed midway
				exec(t, c, "ROLLBACK")
			}
			exec(t, c, "BEGIN")
			exec(t, c, "INSERT INTO bad VALUES (10, 'new', 0)")
			exec(t, c, "UPDATE bad SET n = 99 WHERE id = 1")
			_, err := execErr(c, tc.bad)
			wantState(t, tc.bad, err, tc.code)
			if s := txStatus(c); s != 'E' {
				t.Fatalf("after the error the transaction status is %q, want 'E'", s)
			}
			for _, q := range []string{
				"SELECT 1",
				"INSERT INTO bad VALUES (11, 'x', 0)",
				"SELECT * FROM bad",
				"BEGIN",
				"SELECT 1; SELECT 2",
			} {
				_, err := execErr(c, q)
				if pe := wantState(t, q+" in a failed block", err, "25P02"); pe.Message != "current transaction is aborted, commands ignored until end of transaction block" {
					t.Fatalf("message %q", pe.Message)
				}
			}
			if tag := exec(t, c, tc.end); tag != "ROLLBACK" {
				t.Fatalf("%s of a failed block: tag %q, want ROLLBACK", tc.end, tag)
			}
			wantUsable(t, c)
			if got := query(t, c, "SELECT id, v, n FROM bad ORDER BY id"); got != "1|a|0,2|b|0" {
				t.Fatalf("failed transaction left changes: %q", got)
			}
			if got := queryInt(t, c, "SELECT count(*) FROM bad WHERE id = 10"); got != 0 {
				t.Fatalf("index finds the failed transaction's row")
			}
		})
	}
}

// Garbage on the wire gets an error (or, when it is not even a startup
// packet, the connection closed), never a hang or a crash: the server
// goes on serving new connections.
func TestProtocolGarbage(t *testing.T) {
	dsn := target(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	startup := func() []byte {
		var b []byte
		b = binary.BigEndian.AppendUint32(b, 0)
		b = binary.BigEndian.AppendUint32(b, 3<<16)
		for _, kv := range []string{"user", "postgres", "database", "postgres"} {
			b = append(append(b, kv...), 0)
		}
		b = append(b, 0)
		binary.BigEndian.PutUint32(b, uint32(len(b)))
		return b
	}
	cases := []struct {
		name    string
		startup bool   // complete a normal startup first
		send    []byte // then send this
		// The answer: an ErrorResponse with this SQLSTATE and severity
		// (FATAL: the server then closes the connection; ERROR: it goes
		// on with ReadyForQuery). code "" = the server may close the
		// connection without a message, as PostgreSQL does when the bytes
		// are not even a startup packet.
		code, sev string
	}{
		{"HTTP request", false, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), "", ""},
		{"random bytes", false, []byte{0x00, 0x00, 0x00, 0x10, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8}, "0A000", "FATAL"},
		{"startup packet cut short", false, []byte{0, 0, 0, 100, 0, 3, 0, 0, 'u'}, "", ""},
		{"unknown message type", true, []byte{'z', 0, 0, 0, 4}, "08P01", "FATAL"},
		{"negative message length", true, []byte{'Q', 0xff, 0xff, 0xff, 0xf0}, "", ""},
		{"query without terminator", true, []byte{'Q', 0, 0, 0, 9, 'S', 'E', 'L', 'E', 'C'}, "08P01", "ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(nc)
			if tc.startup {
				if _, err := nc.Write(startup()); err != nil {
					t.Fatal(err)
				}
				for { // up to ReadyForQuery
					typ, _, err := readMsg(br)
					if err != nil {
						t.Fatalf("startup: %v", err)
					}
					if typ == 'Z' {
						break
					}
				}
			}
			if _, err := nc.Write(tc.send); err != nil {
				t.Fatal(err)
			}
			if !tc.startup {
				nc.(*net.TCPConn).CloseWrite() // no more bytes are coming
			}
			typ, body, err := readMsg(br)
			switch {
			case err != nil && tc.code == "":
				// closed without a message: acceptable
			case err != nil:
				t.Fatalf("want an ErrorResponse with %s, got %v", tc.code, err)
			case typ != 'E':
				t.Fatalf("want an ErrorResponse, got message %q", typ)
			default:
				f := errorFields(body)
				t.Logf("server said: %s %s %s", f['S'], f['C'], f['M'])
				if tc.code != "" && (f['C'] != tc.code || f['S'] != tc.sev) {
					t.Fatalf("got %s %s (%s), want %s %s", f['S'], f['C'], f['M'], tc.sev, tc.code)
				}
				typ, _, err := readMsg(br)
				if f['S'] == "FATAL" && err == nil {
					t.Fatalf("connection still open after FATAL (next message %q)", typ)
				}
				if f['S'] == "ERROR" && (err != nil || typ != 'Z') {
					t.Fatalf("after ERROR want ReadyForQuery, got %q, %v", typ, err)
				}
			}
			// The server still serves.
			c := connect(t, dsn)
			wantUsable(t, c)
		})
	}
}

func readMsg(r *bufio.Reader) (byte, []byte, error) {
	typ, err := r.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return 0, nil, err
	}
	n := int(binary.BigEndian.Uint32(lb[:])) - 4
	if n < 0 || n > 1<<20 {
		return 0, nil, io.ErrUnexpectedEOF
	}
	body := make([]byte, n)
	_, err = io.ReadFull(r, body)
	return typ, body, err
}

func errorFields(body []byte) map[byte]string {
	m := map[byte]string{}
	for len(body) > 1 {
		k := body[0]
		i := 1
		for i < len(body) && body[i] != 0 {
			i++
		}
		m[k] = string(body[1:i])
		if i >= len(body) {
			break
		}
		body = body[i+1:]
	}
	return m
}
