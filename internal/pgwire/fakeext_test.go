package pgwire

import (
	"context"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// fakeExtSession adds a toy extended protocol to fakeSession: statements
// are "select 1", "big N" (N int4 rows) and "select $1" (one text param);
// anything else fails at Parse.
type fakeExtSession struct {
	*fakeSession
	stmts   map[string]string
	portals map[string]*fakePortal
	syncs   int
}

type fakePortal struct {
	query string
	param []byte
	next  int
	n     int
}

func (s *fakeExtSession) Parse(ctx context.Context, name, query string, oids []uint32) error {
	q := strings.ToLower(strings.TrimSpace(query))
	f := strings.Fields(q)
	switch {
	case q == "select 1", q == "select $1", q == "":
	case len(f) == 2 && f[0] == "big":
		if _, err := strconv.Atoi(f[1]); err != nil {
			return pgerr.Errorf(pgerr.SyntaxError, "bad count")
		}
	default:
		return pgerr.Errorf(pgerr.SyntaxError, "unknown statement %q", q)
	}
	if _, dup := s.stmts[name]; dup && name != "" {
		return pgerr.Errorf("42P05", "prepared statement \"%s\" already exists", name)
	}
	s.stmts[name] = q
	return nil
}

func (s *fakeExtSession) Bind(ctx context.Context, portal, stmt string, pf []int16, params [][]byte, rf []int16) error {
	q, ok := s.stmts[stmt]
	if !ok {
		return pgerr.Errorf("26000", "prepared statement \"%s\" does not exist", stmt)
	}
	want := 0
	if q == "select $1" {
		want = 1
	}
	if len(params) != want {
		return pgerr.Errorf(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", len(params), stmt, want)
	}
	p := &fakePortal{query: q}
	if want == 1 && params[0] != nil {
		p.param = append([]byte{}, params[0]...)
	}
	if f := strings.Fields(q); len(f) == 2 && f[0] == "big" {
		p.n, _ = strconv.Atoi(f[1])
	} else if q != "" {
		p.n = 1
	}
	s.portals[portal] = p
	return nil
}

func (s *fakeExtSession) cols(q string) []FieldDesc {
	switch {
	case q == "":
		return nil
	case q == "select $1":
		return []FieldDesc{{Name: "?column?", TypeOID: 25, TypeLen: -1, TypeMod: -1}}
	}
	return int4Col
}

func (s *fakeExtSession) DescribeStatement(name string) ([]uint32, []FieldDesc, error) {
	q, ok := s.stmts[name]
	if !ok {
		return nil, nil, pgerr.Errorf("26000", "prepared statement \"%s\" does not exist", name)
	}
	if q == "select $1" {
		return []uint32{25}, s.cols(q), nil
	}
	return nil, s.cols(q), nil
}

func (s *fakeExtSession) DescribePortal(name string) ([]FieldDesc, error) {
	p, ok := s.portals[name]
	if !ok {
		return nil, pgerr.Errorf("34000", "portal \"%s\" does not exist", name)
	}
	return s.cols(p.query), nil
}

func (s *fakeExtSession) Execute(ctx context.Context, name string, maxRows int, w ResultWriter) (bool, error) {
	p, ok := s.portals[name]
	if !ok {
		return false, pgerr.Errorf("34000", "portal \"%s\" does not exist", name)
	}
	if p.query == "" {
		return false, w.EmptyQuery()
	}
	sent := 0
	for p.next < p.n {
		if maxRows > 0 && sent == maxRows {
			return true, nil
		}
		v := []byte(strconv.Itoa(p.next + 1))
		if p.query == "select $1" {
			v = p.param
		}
		if err := w.DataRow([][]byte{v}); err != nil {
			return false, err
		}
		p.next++
		sent++
	}
	return false, w.CommandComplete("SELECT " + strconv.Itoa(p.n))
}

func (s *fakeExtSession) CloseStatement(name string) error { delete(s.stmts, name); return nil }
func (s *fakeExtSession) ClosePortal(name string) error    { delete(s.portals, name); return nil }
func (s *fakeExtSession) Sync() error {
	s.syncs++
	if s.TxStatus() == 'I' {
		s.portals = map[string]*fakePortal{}
	}
	return nil
}
