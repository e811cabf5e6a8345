package pgwire

import (
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

func encodeAll(msgs ...interface{ Encode([]byte) ([]byte, error) }) []byte {
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			panic(err)
		}
	}
	return b
}

// FuzzStartupAndMessages sends a valid startup packet followed by arbitrary
// bytes (or, when the input starts with 0xFF, only the arbitrary bytes, to
// fuzz the startup parser too), half-closes the connection and requires the
// server to answer and close it promptly without panicking.
func FuzzStartupAndMessages(f *testing.F) {
	f.Add(encodeAll(&pgproto3.Query{String: "select 1"}, &pgproto3.Terminate{}))
	f.Add(encodeAll(&pgproto3.Query{String: "select 1; bad; notice"}, &pgproto3.Query{String: ""}))
	f.Add(encodeAll(&pgproto3.Query{String: "begin; bad"}, &pgproto3.Query{String: "rollback"}))
	f.Add(encodeAll(&pgproto3.Parse{Query: "x"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}, &pgproto3.Query{String: "big 10"}))
	f.Add(encodeAll(&pgproto3.CopyData{Data: []byte("a")}, &pgproto3.FunctionCall{}, &pgproto3.Flush{}))
	f.Add(encodeAll(&pgproto3.Parse{Name: "s", Query: "big 5"}, &pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", ResultFormatCodes: []int16{1}}, &pgproto3.Describe{ObjectType: 'P', Name: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2}, &pgproto3.Execute{Portal: "p"}, &pgproto3.Close{ObjectType: 'P', Name: "p"}, &pgproto3.Sync{}))
	f.Add(encodeAll(&pgproto3.Parse{Query: "select $1"}, &pgproto3.Bind{ParameterFormatCodes: []int16{0}, Parameters: [][]byte{[]byte("x")}},
		&pgproto3.Execute{}, &pgproto3.Flush{}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}, &pgproto3.Sync{}))
	f.Add(encodeAll(&pgproto3.Query{String: "copy in"}, &pgproto3.CopyData{Data: []byte("1\n2\n")}, &pgproto3.Flush{}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "copy out"}))
	f.Add(encodeAll(&pgproto3.Query{String: "copy in"}, &pgproto3.CopyFail{Message: "no"}, &pgproto3.CopyData{Data: []byte("x")}))
	f.Add(encodeAll(&pgproto3.Query{String: "copy in"}, &pgproto3.Query{String: "select 1"}))
	f.Add([]byte{'D', 0, 0, 0, 6, 'X', 0, 'B', 0, 0, 0, 5, 0, 'S', 0, 0, 0, 4})
	f.Add([]byte("Zgarbage"))
	f.Add([]byte{'Q', 0x7f, 0xff, 0xff, 0xff, 'x'})
	f.Add([]byte{'Q', 0, 0, 0, 1})
	f.Add([]byte{'Q', 0, 0, 0, 9, 's', 'l', 'e', 'e', 'p'})
	f.Add([]byte{0xff, 0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f})                       // SSLRequest only
	f.Add([]byte{0xff, 0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 1, 0, 0, 0}) // CancelRequest
	f.Add([]byte{0xff, 0, 0, 0, 9, 0, 3, 0, 0, 0})
	f.Add([]byte{0xff, 0x7f, 0, 0, 0})

	eng := newFakeEngine()
	eng.sleepMax = 10 * time.Millisecond
	eng.noPanic = true
	eng.extended = true
	ts := startServer(f, eng, nil)
	var panics atomic.Int32
	hook := func(any) { panics.Add(1) }
	ts.srv.panicHook.Store(&hook)
	startup := encodeAll(startupMsg("user", "postgres", "database", "postgres"))

	f.Fuzz(func(t *testing.T, data []byte) {
		nc, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		payload := data
		if len(data) == 0 || data[0] != 0xff {
			payload = append(append([]byte(nil), startup...), data...)
		} else {
			payload = data[1:]
		}
		// The server may close early (FATAL); write errors are fine.
		readDone := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, nc)
			readDone <- err
		}()
		_, _ = nc.Write(payload)
		_ = nc.(*net.TCPConn).CloseWrite()
		if err := <-readDone; err != nil {
			var ne net.Error
			if ok := asNetError(err, &ne); ok && ne.Timeout() {
				t.Fatalf("server did not close the connection (input %q)", data)
			}
		}
		if err := waitNoConns(ts.srv, 2*time.Second); err != nil {
			t.Fatalf("%v (input %q)", err, data)
		}
		if n := panics.Load(); n > 0 {
			t.Fatalf("server panicked (input %q)", data)
		}
	})
}

func asNetError(err error, ne *net.Error) bool {
	e, ok := err.(net.Error)
	if ok {
		*ne = e
	}
	return ok
}

// waitNoConns waits until the server has no live connections.
func waitNoConns(s *Server, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d connections still open", n)
		}
		time.Sleep(time.Millisecond)
	}
}
