package session

import (
	"context"
	"github.com/tidal-db/tidal/internal/access/tableams"
	"io"
	"log"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/engine"
)

func testSession(t *testing.T) *Session {
	t.Helper()
	cfg := engine.DefaultConfig(filepath.Join(t.TempDir(), "data"))
	cfg.SharedBuffers = 8 << 20
	cfg.Logger = log.New(io.Discard, "", 0)
	cfg.AccessMethods = tableams.Builtin()
	eng, err := engine.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s := New(eng, map[string]string{"fsync": "off", "synchronous_commit": "off"})
	t.Cleanup(s.Close)
	return s
}

func mustSimple(t *testing.T, s *Session, sql string) string {
	t.Helper()
	w := &fuzzWriter{}
	if err := s.SimpleQuery(context.Background(), sql, w); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return w.last
}

// parseSync runs Parse (unnamed) and Sync, and returns the analysis the
// cache holds for the text afterwards.
func parseSync(t *testing.T, s *Session, sql string, oids []uint32) *analysis {
	t.Helper()
	if err := s.Parse(context.Background(), "", sql, oids); err != nil {
		t.Fatalf("Parse %s: %v", sql, err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	pt := s.stmts.texts[sql]
	if pt == nil || len(pt.analyses) == 0 {
		t.Fatalf("%s: no analysis kept", sql)
	}
	return pt.analyses[len(pt.analyses)-1]
}

// TestAnalysisReuseKeys: a kept parse analysis is reused only under the
// same catalog version, settings and declared parameter types.
func TestAnalysisReuseKeys(t *testing.T) {
	s := testSession(t)
	mustSimple(t, s, "CREATE TABLE t (id int, v text)")
	const q = "SELECT v FROM t WHERE id = $1"
	first := parseSync(t, s, q, nil)
	if again := parseSync(t, s, q, nil); again != first {
		t.Fatal("analysis not reused for the same text")
	}
	steps := []struct {
		what string
		do   func()
		oids []uint32
	}{
		{"SET search_path", func() { mustSimple(t, s, "SET search_path = other, public") }, nil},
		{"SET work_mem", func() { mustSimple(t, s, "SET work_mem = '8MB'") }, nil},
		{"RESET ALL", func() { mustSimple(t, s, "RESET ALL") }, nil},
		{"declared parameter type", func() {}, []uint32{20}},
		{"DDL", func() { mustSimple(t, s, "CREATE TABLE other (a int)") }, []uint32{20}},
	}
	prev := first
	for _, st := range steps {
		st.do()
		got := parseSync(t, s, q, st.oids)
		if got == prev {
			t.Errorf("after %s: the old analysis was reused", st.what)
		}
		if again := parseSync(t, s, q, st.oids); again != got {
			t.Errorf("after %s: the new analysis is not reused", st.what)
		}
		prev = got
	}
	if got := prev.paramTypes[0].OID; got != 20 {
		t.Errorf("declared int8 parameter analysed as OID %d", got)
	}
}

// TestSimpleTemplateServes: the third statement of a shape runs from the
// template, with its own literal values.
func TestSimpleTemplateServes(t *testing.T) {
	s := testSession(t)
	for i, want := range []string{"3", "7", "-12", "2147483647"} {
		q := []string{"SELECT 1 + 2", "SELECT 3 + 4", "SELECT -5 + -7", "SELECT 2147483646 + 1"}[i]
		if i == 2 {
			// A unary minus is part of the shape: a new shape, not yet cached.
			mustSimple(t, s, "SELECT -1 + -1")
			mustSimple(t, s, "SELECT -2 + -2")
		}
		if got := mustSimple(t, s, q); got != want {
			t.Fatalf("%s = %s, want %s", q, got, want)
		}
	}
	for key, e := range s.stmts.shapes {
		if e.tmpl == nil {
			t.Errorf("shape %q has no template after three texts", key)
		}
	}
}

// TestPlanKept: an unnamed statement parsed again from the same text runs
// the plan kept by its analysis, with its own parameters; DDL ends that.
func TestPlanKept(t *testing.T) {
	s := testSession(t)
	mustSimple(t, s, "CREATE TABLE t (id int, v text)")
	mustSimple(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	const q = "SELECT v FROM t WHERE id = $1"
	run := func(param string) (string, *analysis) {
		t.Helper()
		ctx := context.Background()
		if err := s.Parse(ctx, "", q, nil); err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if err := s.Bind(ctx, "", "", nil, [][]byte{[]byte(param)}, nil); err != nil {
			t.Fatalf("Bind: %v", err)
		}
		w := &fuzzWriter{}
		if _, err := s.Execute(ctx, "", 0, w); err != nil {
			t.Fatalf("Execute: %v", err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		return w.last, s.ext().stmts[""].an
	}
	v, an := run("1")
	if v != "a" || an == nil || an.plan == nil {
		t.Fatalf("first execution: %q, analysis %v", v, an)
	}
	plan := an.plan
	if plan.inUse {
		t.Error("plan still marked in use after its portal finished")
	}
	if v, an = run("2"); v != "b" || an.plan != plan {
		t.Fatalf("second execution: %q, plan reused: %v", v, an.plan == plan)
	}
	mustSimple(t, s, "CREATE INDEX t_id ON t (id)")
	if v, an = run("1"); v != "a" || an.plan == nil || an.plan == plan {
		t.Fatalf("after CREATE INDEX: %q, old plan reused: %v", v, an.plan == plan)
	}
}
