package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// rawConn drives the extended protocol message by message over a pgx
// connection's frontend, and prints the server's answers compactly: 1
// ParseComplete, 2 BindComplete, 3 CloseComplete, t[oids]
// ParameterDescription, T<n> RowDescription, n NoData, D<first value>
// DataRow, s PortalSuspended, "C tag" CommandComplete, I EmptyQuery,
// "E code" ErrorResponse, Z<status> ReadyForQuery.
type rawConn struct {
	t  *testing.T
	fe *pgproto3.Frontend
}

func newRawConn(t *testing.T, c *pgx.Conn) *rawConn {
	return &rawConn{t: t, fe: c.PgConn().Frontend()}
}

func (r *rawConn) send(msgs ...pgproto3.FrontendMessage) {
	r.t.Helper()
	for _, m := range msgs {
		r.fe.Send(m)
	}
	if err := r.fe.Flush(); err != nil {
		r.t.Fatal(err)
	}
}

// recv reads up to and including the next ReadyForQuery.
func (r *rawConn) recv() string {
	r.t.Helper()
	var out []string
	for {
		m, err := r.fe.Receive()
		if err != nil {
			r.t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.ParseComplete:
			out = append(out, "1")
		case *pgproto3.BindComplete:
			out = append(out, "2")
		case *pgproto3.CloseComplete:
			out = append(out, "3")
		case *pgproto3.ParameterDescription:
			out = append(out, fmt.Sprintf("t%v", m.ParameterOIDs))
		case *pgproto3.RowDescription:
			out = append(out, fmt.Sprintf("T%d", len(m.Fields)))
		case *pgproto3.NoData:
			out = append(out, "n")
		case *pgproto3.DataRow:
			out = append(out, "D"+string(m.Values[0]))
		case *pgproto3.PortalSuspended:
			out = append(out, "s")
		case *pgproto3.CommandComplete:
			out = append(out, "C "+string(m.CommandTag))
		case *pgproto3.EmptyQueryResponse:
			out = append(out, "I")
		case *pgproto3.ErrorResponse:
			out = append(out, "E "+m.Code)
		case *pgproto3.ReadyForQuery:
			return strings.Join(append(out, "Z"+string(m.TxStatus)), " ")
		}
	}
}

// expect sends msgs and checks the answers up to ReadyForQuery.
func (r *rawConn) expect(want string, msgs ...pgproto3.FrontendMessage) {
	r.t.Helper()
	r.send(msgs...)
	if got := r.recv(); got != want {
		r.t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// run sends one statement through Parse/Bind/Describe/Execute/Sync of the
// unnamed statement and portal.
func (r *rawConn) run(want, sql string) {
	r.t.Helper()
	r.expect(want, &pgproto3.Parse{Query: sql}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
}

// In a failed block the extended protocol still runs ROLLBACK, COMMIT and
// ROLLBACK TO (Parse, Bind, Describe, Execute); everything else gets 25P02.
// Portals follow PostgreSQL's lifetimes: they last until their transaction
// ends; rolling back a savepoint drops the portals bound inside it and
// fails those that ran inside it; named statements outlive it all. The
// expected answers are PostgreSQL 15's (TIDAL_E2E_REFERENCE_DSN runs the
// test against a reference server).
func TestExtendedFailedBlockAndSavepoints(t *testing.T) {
	c := connect(t, target(t))
	exec(t, c, "DROP TABLE IF EXISTS u")
	exec(t, c, "CREATE TABLE u (a int PRIMARY KEY)")
	r := newRawConn(t, c)
	one := func(s string) [][]byte { return [][]byte{[]byte(s)} }

	r.expect("C BEGIN ZT", &pgproto3.Query{String: "BEGIN"})
	r.expect("1 1 2 C INSERT 0 1 2 D1 s ZT",
		&pgproto3.Parse{Name: "ins", Query: "INSERT INTO u VALUES ($1)"},
		&pgproto3.Parse{Name: "gs", Query: "SELECT g FROM generate_series(1, 5) g"},
		&pgproto3.Bind{PreparedStatement: "ins", Parameters: one("1")}, &pgproto3.Execute{},
		&pgproto3.Bind{DestinationPortal: "pk", PreparedStatement: "gs"}, &pgproto3.Execute{Portal: "pk", MaxRows: 1},
		&pgproto3.Sync{})
	// A unique violation fails the block; the rest of the batch is skipped.
	r.expect("2 E 23505 ZE",
		&pgproto3.Bind{PreparedStatement: "ins", Parameters: one("1")}, &pgproto3.Execute{},
		&pgproto3.Bind{PreparedStatement: "ins", Parameters: one("2")}, &pgproto3.Execute{},
		&pgproto3.Sync{})
	// The portal from before the failure exists but cannot run; nor can a
	// new statement be parsed, or a statement with results be described.
	r.expect("E 25P02 ZE", &pgproto3.Execute{Portal: "pk", MaxRows: 1}, &pgproto3.Sync{})
	r.expect("E 25P02 ZE", &pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Sync{})
	r.expect("E 25P02 ZE", &pgproto3.Describe{ObjectType: 'S', Name: "gs"}, &pgproto3.Sync{})
	r.run("1 2 n C ROLLBACK ZI", "ROLLBACK")
	// The transaction's portals are gone; its named statements are not.
	r.expect("E 34000 ZI", &pgproto3.Execute{Portal: "pk"}, &pgproto3.Sync{})
	r.expect("2 D1 D2 D3 D4 D5 C SELECT 5 ZI",
		&pgproto3.Bind{PreparedStatement: "gs"}, &pgproto3.Execute{}, &pgproto3.Sync{})

	// COMMIT of a failed block through the extended protocol rolls back.
	r.expect("C BEGIN ZT", &pgproto3.Query{String: "BEGIN"})
	r.run("1 2 n C INSERT 0 1 ZT", "INSERT INTO u VALUES (1)")
	r.run("1 2 n E 23505 ZE", "INSERT INTO u VALUES (1)")
	r.run("1 2 n C ROLLBACK ZI", "COMMIT")

	// Savepoints: a portal bound inside a rolled-back savepoint is gone; one
	// bound before it whose own execution failed inside it cannot run
	// again; one bound before it and merely run inside it goes on.
	r.expect("C BEGIN ZT", &pgproto3.Query{String: "BEGIN"})
	r.expect("1 2 D1 s 2 D0 s ZT",
		&pgproto3.Parse{Name: "bad", Query: "SELECT 1/(g-3) FROM generate_series(1, 5) g"},
		&pgproto3.Bind{DestinationPortal: "ran", PreparedStatement: "gs"}, &pgproto3.Execute{Portal: "ran", MaxRows: 1},
		&pgproto3.Bind{DestinationPortal: "fails", PreparedStatement: "bad"}, &pgproto3.Execute{Portal: "fails", MaxRows: 1},
		&pgproto3.Sync{})
	r.run("1 2 n C SAVEPOINT ZT", "SAVEPOINT a")
	r.expect("D2 s 2 D1 s ZT",
		&pgproto3.Execute{Portal: "ran", MaxRows: 1},
		&pgproto3.Bind{DestinationPortal: "inner", PreparedStatement: "gs"}, &pgproto3.Execute{Portal: "inner", MaxRows: 1},
		&pgproto3.Sync{})
	r.expect("D-1 E 22012 ZE", &pgproto3.Execute{Portal: "fails", MaxRows: 5}, &pgproto3.Sync{})
	r.run("1 2 n C ROLLBACK ZT", "ROLLBACK TO a")
	r.expect("D3 s ZT", &pgproto3.Execute{Portal: "ran", MaxRows: 1}, &pgproto3.Sync{})
	r.expect("E 55000 ZE", &pgproto3.Execute{Portal: "fails", MaxRows: 1}, &pgproto3.Sync{})
	r.run("1 2 n C ROLLBACK ZT", "ROLLBACK TO a")
	r.expect("E 34000 ZE", &pgproto3.Execute{Portal: "inner", MaxRows: 1}, &pgproto3.Sync{})
	r.run("1 2 n C ROLLBACK ZT", "ROLLBACK TO a")
	// A released savepoint's portal belongs to the enclosing level.
	r.expect("2 D1 s ZT",
		&pgproto3.Bind{DestinationPortal: "kept", PreparedStatement: "gs"}, &pgproto3.Execute{Portal: "kept", MaxRows: 1},
		&pgproto3.Sync{})
	r.run("1 2 n C RELEASE ZT", "RELEASE a")
	r.expect("D2 D3 D4 D5 C SELECT 4 ZT", &pgproto3.Execute{Portal: "kept"}, &pgproto3.Sync{})
	r.run("1 2 n C COMMIT ZI", "COMMIT")
	wantUsable(t, c)
}
