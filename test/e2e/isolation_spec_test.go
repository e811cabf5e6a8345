package e2e

// A small isolation tester in the style of PostgreSQL's
// src/test/isolation/isolationtester: it reads spec files
// (testdata/isolation/*.spec, a subset of PostgreSQL's syntax: setup,
// teardown, sessions with setup/steps/teardown, explicit permutation lines),
// runs each permutation with one connection per session over the simple
// protocol, and prints the results in isolationtester's output format, which
// is compared with the expected testdata/isolation/*.out.
//
// A step that has not returned within blockedFor is taken to be blocked
// (isolationtester asks pg_locks instead): "<waiting ...>" is printed and
// the next step of the permutation runs; the blocked step's completion is
// printed later as "step X: <... completed>", as isolationtester does.
//
// The expected outputs are PostgreSQL 15's; check them against a real
// PostgreSQL (specs named tidal-*.spec describe tidal-specific behaviour and
// are skipped there):
//
//	TIDAL_E2E_REFERENCE_DSN='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test -run IsolationSpecs ./test/e2e/
//
// TIDAL_ISOLATION_ACCEPT=1 rewrites the .out files with the actual output.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5/pgconn"
)

type isoStep struct {
	name, sql string
	sess      *isoSession
}

type isoSession struct {
	name            string
	setup, teardown []string
	steps           []*isoStep
}

type isoSpec struct {
	setup, teardown []string
	sessions        []*isoSession
	steps           map[string]*isoStep
	permutations    [][]string
}

// parseIsoSpec parses the subset of isolationtester's spec syntax.
func parseIsoSpec(src string) (*isoSpec, error) {
	type tok struct {
		sql  bool
		text string
	}
	var toks []tok
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unterminated { block")
			}
			// Spaces and tabs next to the braces go, newlines stay: the
			// step is printed as specscanner.l reads it.
			toks = append(toks, tok{true, strings.Trim(src[i+1:i+end], " \t\r\f")})
			i += end + 1
		case unicode.IsSpace(rune(c)):
			i++
		default:
			j := i
			for j < len(src) && !unicode.IsSpace(rune(src[j])) && src[j] != '{' && src[j] != '#' {
				j++
			}
			toks = append(toks, tok{false, src[i:j]})
			i = j
		}
	}
	sp := &isoSpec{steps: map[string]*isoStep{}}
	var cur *isoSession
	block := func(i int) (string, error) {
		if i >= len(toks) || !toks[i].sql {
			return "", fmt.Errorf("expected { … } after %q", toks[i-1].text)
		}
		return toks[i].text, nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.sql {
			return nil, fmt.Errorf("unexpected { %s }", t.text)
		}
		switch t.text {
		case "setup", "teardown":
			sql, err := block(i + 1)
			if err != nil {
				return nil, err
			}
			i++
			switch {
			case cur == nil && t.text == "setup":
				sp.setup = append(sp.setup, sql)
			case cur == nil:
				sp.teardown = append(sp.teardown, sql)
			case t.text == "setup":
				cur.setup = append(cur.setup, sql)
			default:
				cur.teardown = append(cur.teardown, sql)
			}
		case "session":
			if i+1 >= len(toks) || toks[i+1].sql {
				return nil, fmt.Errorf("session without a name")
			}
			i++
			cur = &isoSession{name: toks[i].text}
			sp.sessions = append(sp.sessions, cur)
		case "step":
			if cur == nil || i+1 >= len(toks) || toks[i+1].sql {
				return nil, fmt.Errorf("step outside a session or without a name")
			}
			name := toks[i+1].text
			sql, err := block(i + 2)
			if err != nil {
				return nil, err
			}
			i += 2
			if sp.steps[name] != nil {
				return nil, fmt.Errorf("duplicate step name %q", name)
			}
			st := &isoStep{name: name, sql: sql, sess: cur}
			cur.steps = append(cur.steps, st)
			sp.steps[name] = st
		case "permutation":
			var p []string
			for i+1 < len(toks) && !toks[i+1].sql && !isoKeyword(toks[i+1].text) {
				i++
				if sp.steps[toks[i].text] == nil {
					return nil, fmt.Errorf("permutation: undefined step %q", toks[i].text)
				}
				p = append(p, toks[i].text)
			}
			sp.permutations = append(sp.permutations, p)
		default:
			return nil, fmt.Errorf("unexpected %q", t.text)
		}
	}
	if len(sp.permutations) == 0 {
		sp.permutations = allPermutations(sp.sessions)
	}
	return sp, nil
}

// allPermutations is every interleaving of the sessions' steps that keeps
// each session's order, in isolationtester's order
// (run_all_permutations_recurse: the earliest session's next step first).
func allPermutations(sessions []*isoSession) [][]string {
	var out [][]string
	next := make([]int, len(sessions))
	var cur []string
	var recurse func()
	recurse = func() {
		found := false
		for i, s := range sessions {
			if next[i] < len(s.steps) {
				found = true
				cur = append(cur, s.steps[next[i]].name)
				next[i]++
				recurse()
				next[i]--
				cur = cur[:len(cur)-1]
			}
		}
		if !found && len(cur) > 0 {
			out = append(out, append([]string(nil), cur...))
		}
	}
	recurse()
	return out
}

func isoKeyword(s string) bool {
	switch s {
	case "setup", "teardown", "session", "step", "permutation":
		return true
	}
	return false
}

// isoConn is one session's connection. Notices are added to the output of
// the step that is running.
type isoConn struct {
	name string
	pc   *pgconn.PgConn
	db   *sql.Conn // instead of pc: a session of the embedded driver
	mu   sync.Mutex
	out  *bytes.Buffer // where notices go
	run  *isoRun       // the step running on it, if any
}

// isoRun is a step sent to the server.
type isoRun struct {
	step *isoStep
	out  bytes.Buffer
	done chan struct{}
}

func isoConnect(t *testing.T, dsn, name string) *isoConn {
	t.Helper()
	if dir, ok := strings.CutPrefix(dsn, isoEmbeddedPrefix); ok {
		return isoConnectEmbedded(t, dir, name)
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ic := &isoConn{name: name}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		ic.mu.Lock()
		defer ic.mu.Unlock()
		// The control connection's notices are dropped, as
		// isolationtester's blackholeNoticeProcessor does.
		if ic.out != nil && name != "control" {
			fmt.Fprintf(ic.out, "%s: %s:  %s\n", name, n.Severity, n.Message)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	ic.pc, err = pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect %s: %v", name, err)
	}
	t.Cleanup(func() { ic.pc.Close(context.Background()) })
	return ic
}

// execInto runs sql and writes its results (and notices) to out the way
// isolationtester prints them, cancelling it after limit (stmtTimeout for
// steps, setupTimeout for setup and teardown blocks).
func (ic *isoConn) execInto(sql string, out *bytes.Buffer, limit time.Duration) {
	if ic.db != nil {
		ic.execEmbeddedInto(sql, out, limit)
		return
	}
	ic.mu.Lock()
	ic.out = out
	ic.mu.Unlock()
	defer func() {
		ic.mu.Lock()
		ic.out = nil
		ic.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	mrr := ic.pc.Exec(ctx, sql)
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		fds := rr.FieldDescriptions()
		var rows [][][]byte
		for rr.NextRow() {
			vals := rr.Values()
			row := make([][]byte, len(vals))
			for i, v := range vals {
				if v != nil {
					row[i] = append([]byte{}, v...)
				}
			}
			rows = append(rows, row)
		}
		if _, err := rr.Close(); err == nil && fds != nil {
			names := make([]string, len(fds))
			for i, f := range fds {
				names[i] = f.Name
			}
			ic.mu.Lock()
			out.WriteString(pqPrint(names, rows))
			ic.mu.Unlock()
		}
	}
	if err := mrr.Close(); err != nil {
		ic.mu.Lock()
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			fmt.Fprintf(out, "%s:  %s\n", pe.Severity, pe.Message)
		} else {
			fmt.Fprintf(out, "%v\n", err)
		}
		ic.mu.Unlock()
	}
}

// pqPrint formats a result as libpq's PQprint does with header, align and
// fieldSep "|" (what isolationtester uses): widths in bytes, a column is
// right-aligned when all its values look numeric, NULL prints as "".
func pqPrint(names []string, rows [][][]byte) string {
	n := len(names)
	width := make([]int, n)
	notNum := make([]bool, n)
	for j, name := range names {
		width[j] = len(name)
	}
	for _, r := range rows {
		for j, v := range r {
			width[j] = max(width[j], len(v))
			if notNum[j] {
				continue
			}
			ch := byte('0')
			for _, c := range v {
				ch = c
				if !(c >= '0' && c <= '9' || c == '.' || c == 'E' || c == 'e' || c == ' ' || c == '-') {
					notNum[j] = true
					break
				}
			}
			if len(v) > 0 && (v[0] == 'E' || v[0] == 'e') || !(ch >= '0' && ch <= '9') {
				notNum[j] = true
			}
		}
	}
	var b strings.Builder
	pad := func(s string, j int) {
		p := strings.Repeat(" ", max(0, width[j]-len(s)))
		if notNum[j] {
			b.WriteString(s + p)
		} else {
			b.WriteString(p + s)
		}
	}
	for j, name := range names {
		if j > 0 {
			b.WriteByte('|')
		}
		pad(name, j)
	}
	b.WriteByte('\n')
	for j := range names {
		if j > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strings.Repeat("-", width[j]))
	}
	b.WriteByte('\n')
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				b.WriteByte('|')
			}
			pad(string(v), j)
		}
		b.WriteByte('\n')
	}
	if len(rows) == 1 {
		b.WriteString("(1 row)\n\n")
	} else {
		fmt.Fprintf(&b, "(%d rows)\n\n", len(rows))
	}
	return b.String()
}

// runIsoSpec runs every permutation of sp and returns the output.
func runIsoSpec(t *testing.T, dsn string, sp *isoSpec) string {
	var out bytes.Buffer
	fmt.Fprintf(&out, "Parsed test spec with %d sessions\n", len(sp.sessions))
	control := isoConnect(t, dsn, "control")
	conns := map[*isoSession]*isoConn{}
	for _, s := range sp.sessions {
		conns[s] = isoConnect(t, dsn, s.name)
	}
	for _, perm := range sp.permutations {
		fmt.Fprintf(&out, "\nstarting permutation: %s\n", strings.Join(perm, " "))
		for _, q := range sp.setup {
			control.execInto(q, &out, setupTimeout)
		}
		for _, s := range sp.sessions {
			for _, q := range s.setup {
				conns[s].execInto(q, &out, setupTimeout)
			}
		}
		var waiting []*isoRun
		// complete prints a waiting step's completion and drops it from
		// the waiting list.
		complete := func(r *isoRun) {
			fmt.Fprintf(&out, "step %s: <... completed>\n", r.step.name)
			out.Write(r.out.Bytes())
			conns[r.step.sess].run = nil
			for i, w := range waiting {
				if w == r {
					waiting = append(waiting[:i], waiting[i+1:]...)
					break
				}
			}
		}
		for _, name := range perm {
			st := sp.steps[name]
			ic := conns[st.sess]
			if prev := ic.run; prev != nil {
				// The session is still blocked in an earlier step: wait
				// for it, as isolationtester does.
				select {
				case <-prev.done:
				case <-time.After(waitTimeout):
					t.Fatalf("step %s: session %s still blocked in step %s after %v", name, st.sess.name, prev.step.name, waitTimeout)
				}
				complete(prev)
			}
			r := &isoRun{step: st, done: make(chan struct{})}
			ic.run = r
			go func(r *isoRun) { // r: the variable is reset below
				defer close(r.done)
				ic.execInto(st.sql, &r.out, stmtTimeout)
			}(r)
			select {
			case <-r.done:
				fmt.Fprintf(&out, "step %s: %s\n", name, st.sql)
				out.Write(r.out.Bytes())
				ic.run = nil
			case <-time.After(blockedFor):
				fmt.Fprintf(&out, "step %s: %s <waiting ...>\n", name, st.sql)
				waiting = append(waiting, r)
				r = nil
			}
			// Steps that were waiting may have been released. One timer
			// for them all, which stays expired once it fires (a channel
			// of time.After delivers only once, and a second waiting step
			// would then wait for good).
			deadline, stop := context.WithTimeout(context.Background(), blockedFor)
			for _, w := range append([]*isoRun{}, waiting...) {
				if w == r || w.step == st {
					continue
				}
				select {
				case <-w.done:
					complete(w)
					continue
				default:
				}
				select {
				case <-w.done:
					complete(w)
				case <-deadline.Done():
				}
			}
			stop()
		}
		for len(waiting) > 0 {
			w := waiting[0]
			select {
			case <-w.done:
				complete(w)
			case <-time.After(waitTimeout):
				t.Fatalf("step %s still blocked at the end of the permutation after %v", w.step.name, waitTimeout)
			}
		}
		for _, s := range sp.sessions {
			for _, q := range s.teardown {
				conns[s].execInto(q, &out, setupTimeout)
			}
		}
		for _, q := range sp.teardown {
			control.execInto(q, &out, setupTimeout)
		}
	}
	return out.String()
}

func TestIsolationSpecs(t *testing.T) {
	specs, err := filepath.Glob("testdata/isolation/*.spec")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	runIsoSpecFiles(t, specs, target(t))
}

// runIsoSpecFiles runs each spec against dsn and compares its output with
// the spec's .out file.
func runIsoSpecFiles(t *testing.T, specs []string, dsn string) {
	reference := os.Getenv("TIDAL_E2E_REFERENCE_DSN") != ""
	for _, path := range specs {
		name := strings.TrimSuffix(filepath.Base(path), ".spec")
		t.Run(name, func(t *testing.T) {
			if reference && strings.HasPrefix(name, "tidal-") {
				t.Skip("tidal-specific behaviour")
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := parseIsoSpec(string(src))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got := runIsoSpec(t, dsn, sp)
			outPath := strings.TrimSuffix(path, ".spec") + ".out"
			if os.Getenv("TIDAL_ISOLATION_ACCEPT") != "" {
				if err := os.WriteFile(outPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				// Blocking is detected by timing: a loaded machine can make
				// a quick step look blocked. Give it a second chance.
				t.Logf("%s: output differs from %s, running it again; got:\n%s", path, outPath, got)
				got = runIsoSpec(t, dsn, sp)
			}
			if got != string(want) {
				t.Errorf("%s: output differs from %s\n--- got:\n%s\n--- want:\n%s", path, outPath, got, want)
			}
		})
	}
}

func TestIsoSpecParse(t *testing.T) {
	sp, err := parseIsoSpec("# c\nsetup { CREATE TABLE x (a int); }\nteardown{DROP TABLE x;}\nsession s1\nsetup { BEGIN; }\nstep a { SELECT '#'; }\nstep b {\n  SELECT 1;\n}\nsession s2 step c { COMMIT; } teardown { ROLLBACK; }\npermutation a c\npermutation b\n  a c")
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.sessions) != 2 || sp.steps["a"].sql != "SELECT '#';" || sp.steps["b"].sql != "\n  SELECT 1;\n" ||
		sp.sessions[1].teardown[0] != "ROLLBACK;" || len(sp.permutations) != 2 || len(sp.permutations[1]) != 3 {
		t.Fatalf("parsed %+v", sp)
	}
	if _, err := parseIsoSpec("session s1 step a { x; } permutation zz"); err == nil {
		t.Fatal("undefined step accepted")
	}
	gen, err := parseIsoSpec("session s1 step a { x; } step b { y; } session s2 step c { z; }")
	if err != nil || fmt.Sprint(gen.permutations) != "[[a b c] [a c b] [c a b]]" {
		t.Fatalf("generated permutations %v (%v)", gen.permutations, err)
	}
	got := pqPrint([]string{"a", "b", "yy", "n"}, [][][]byte{{[]byte("abcdefgh"), []byte("12"), []byte("+."), nil}, {[]byte("x"), []byte("-3.5e1"), []byte("1"), nil}})
	want := "a       |     b|yy|n\n--------+------+--+-\nabcdefgh|    12|+.| \nx       |-3.5e1|1 | \n(2 rows)\n\n"
	if got != want {
		t.Fatalf("pqPrint:\n%q\nwant\n%q", got, want)
	}
}
