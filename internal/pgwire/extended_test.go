package pgwire

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func describeExt(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.ParseComplete:
		return "1"
	case *pgproto3.BindComplete:
		return "2"
	case *pgproto3.CloseComplete:
		return "3"
	case *pgproto3.NoData:
		return "n"
	case *pgproto3.PortalSuspended:
		return "s"
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("t%v", m.ParameterOIDs)
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("G%d/%d", m.OverallFormat, len(m.ColumnFormatCodes))
	case *pgproto3.CopyOutResponse:
		return fmt.Sprintf("H%d/%d", m.OverallFormat, len(m.ColumnFormatCodes))
	case *pgproto3.CopyData:
		return "d " + string(m.Data)
	case *pgproto3.CopyDone:
		return "c"
	}
	return describe(m)
}

// untilExt is until() with the extended-protocol messages named.
func (c *rawClient) untilExt() []string {
	c.t.Helper()
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			return append(out, "EOF")
		}
		d := describeExt(m)
		if d == "S" {
			continue
		}
		out = append(out, d)
		if d[0] == 'Z' || d[0] == 'G' {
			return out
		}
	}
}

func (c *rawClient) expectExt(want ...string) {
	c.t.Helper()
	got := c.untilExt()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		c.t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestExtendedProtocolFlow(t *testing.T) {
	eng := newFakeEngine()
	eng.extended = true
	ts := startServer(t, eng, nil)
	c := dialRaw(t, ts)
	c.login()

	c.send(
		&pgproto3.Parse{Name: "s", Query: "big 5"},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s"},
		&pgproto3.Describe{ObjectType: 'P', Name: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p"},
		&pgproto3.Close{ObjectType: 'P', Name: "p"},
		&pgproto3.Close{ObjectType: 'S', Name: "s"},
		&pgproto3.Sync{},
	)
	c.expectExt("1", "t[]", "T 1", "2", "T 1", "D 1", "D 2", "s", "D 3", "D 4", "s", "D 5", "C SELECT 5", "3", "3", "Z I")

	// An error skips everything up to Sync, which answers.
	c.send(
		&pgproto3.Parse{Query: "nonsense"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Query{String: "select 1"},
		&pgproto3.Sync{},
		&pgproto3.Parse{Query: "select $1"},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("hi")}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	c.expectExt(`E ERROR 42601 unknown statement "nonsense"`, "Z I")
	c.expectExt("1", "2", "T 1", "D hi", "C SELECT 1", "Z I")

	// Flush sends what is buffered without ReadyForQuery.
	c.send(&pgproto3.Parse{Query: ""}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Flush{})
	for _, want := range []string{"1", "2", "n", "I"} {
		m, err := c.fe.Receive()
		if err != nil || describeExt(m) != want {
			t.Fatalf("after Flush: %v %v, want %s", describeExt(m), err, want)
		}
	}
	c.send(&pgproto3.Sync{})
	c.expectExt("Z I")

	// Bad Describe / Close subtypes are errors, not fatal.
	c.write([]byte{'D', 0, 0, 0, 6, 'X', 0})
	c.send(&pgproto3.Sync{})
	c.expectExt("E ERROR 08P01 invalid DESCRIBE message subtype 88", "Z I")
	c.write([]byte{'C', 0, 0, 0, 6, 'X', 0})
	c.send(&pgproto3.Sync{})
	c.expectExt("E ERROR 08P01 invalid CLOSE message subtype 88", "Z I")
	// A truncated Bind.
	c.write([]byte{'B', 0, 0, 0, 6, 0, 0})
	c.send(&pgproto3.Sync{})
	c.expectExt("E ERROR 08P01 invalid message format", "Z I")
	c.send(&pgproto3.Query{String: "select 1"})
	c.expectExt("T 1", "D 1", "C SELECT 1", "Z I")
}

func TestCopySubprotocol(t *testing.T) {
	eng := newFakeEngine()
	eng.extended = true
	ts := startServer(t, eng, nil)
	c := dialRaw(t, ts)
	c.login()

	// COPY IN: data in several messages, Flush/Sync ignored meanwhile.
	c.send(&pgproto3.Query{String: "copy in"})
	c.expectExt("G0/1")
	c.send(&pgproto3.CopyData{Data: []byte("1\n2")}, &pgproto3.Flush{}, &pgproto3.Sync{}, &pgproto3.CopyData{Data: []byte("\n3\n")}, &pgproto3.CopyDone{})
	c.expectExt("C COPY 3", "Z I")

	// CopyFail.
	c.send(&pgproto3.Query{String: "copy in"})
	c.expectExt("G0/1")
	c.send(&pgproto3.CopyData{Data: []byte("1\n")}, &pgproto3.CopyFail{Message: "client gave up"})
	c.expectExt("E ERROR 57014 COPY from stdin failed: client gave up", "Z I")

	// Another message during COPY IN fails the copy.
	c.send(&pgproto3.Query{String: "copy in"})
	c.expectExt("G0/1")
	c.send(&pgproto3.Query{String: "select 1"})
	c.expectExt("E ERROR 08P01 unexpected message type 0x51 during COPY from stdin", "Z I")
	// Copy data arriving after the failure is ignored.
	c.send(&pgproto3.CopyData{Data: []byte("x")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "select 1"})
	c.expectExt("T 1", "D 1", "C SELECT 1", "Z I")

	// COPY OUT.
	c.send(&pgproto3.Query{String: "copy out"})
	c.expectExt("H0/1", "d a\n", "d b\n", "c", "C COPY 2", "Z I")

	// EOF during COPY IN closes the connection.
	c.send(&pgproto3.Query{String: "copy in"})
	c.expectExt("G0/1")
	c.send(&pgproto3.CopyData{Data: []byte("1\n")})
	c.nc.(interface{ CloseWrite() error }).CloseWrite()
	c.expectExt("EOF")
}
