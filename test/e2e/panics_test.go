package e2e

// A Go panic during a statement is an ERROR XX000 with the panic's
// message: the transaction is aborted as for any error (25P02 in a block,
// its row locks released), the session and the server go on. A panic that
// may have left a page lock or a storage mutex held is PANIC instead.

import (
	"strings"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/testutil"
)

func TestPanicIsAnError(t *testing.T) {
	s := testutil.Start(t, testutil.Options{OnPanic: func(err error) { t.Errorf("server PANIC: %v", err) }})
	s.Sessions.SetBeforeStatement(func(text string) {
		if strings.Contains(text, "/* panic */") {
			var m map[string]int
			m["boom"]++ // a runtime error, as a real bug gives
		}
	})
	c, other := connect(t, s.DSN()), connect(t, s.DSN())
	exec(t, c, "CREATE TABLE pn (id int PRIMARY KEY, n int)")
	exec(t, c, "INSERT INTO pn VALUES (1, 0)")

	_, err := execErr(c, "SELECT 1 /* panic */")
	if pe := wantState(t, "a panicking statement", err, "XX000"); pe.Message != "assignment to entry in nil map" || pe.Severity != "ERROR" {
		t.Errorf("%s %q", pe.Severity, pe.Message)
	}
	wantUsable(t, c)

	// In a block: the block is aborted and its row lock released at once.
	exec(t, c, "BEGIN")
	exec(t, c, "UPDATE pn SET n = 1 WHERE id = 1")
	_, err = execErr(c, "SELECT 1 /* panic */")
	wantState(t, "a panic in a block", err, "XX000")
	_, err = execErr(c, "SELECT 1")
	wantState(t, "after the panic in the block", err, "25P02")
	p := start(other, "UPDATE pn SET n = 2 WHERE id = 1")
	p.waitOK(t, "UPDATE 1")
	exec(t, c, "ROLLBACK")
	if got := query(t, c, "SELECT n FROM pn"); got != "2" {
		t.Errorf("n = %s: the panicking block's update survived or the other's was lost", got)
	}
	wantUsable(t, other)
}

func TestPanicInStorageCodeStopsTheServer(t *testing.T) {
	var mu sync.Mutex
	var panics []string
	s := testutil.Start(t, testutil.Options{OnPanic: func(err error) {
		mu.Lock()
		panics = append(panics, err.Error())
		mu.Unlock()
	}})
	s.Sessions.SetBeforeStatement(func(text string) {
		if strings.Contains(text, "/* storage panic */") {
			var p page.Page
			p.Item(1) // a panic raised inside storage code
		}
	})
	r := rawStartup(t, s.Addr)
	r.simpleQuery(t, "SELECT 1 /* storage panic */")
	if e := r.nextError(t); e.Severity != "PANIC" || e.Code != "XX000" || !strings.HasPrefix(e.Message, "runtime error: ") {
		t.Errorf("%s %s %q, want PANIC XX000", e.Severity, e.Code, e.Message)
	}
	r.wantClosed(t, "after a PANIC")
	mu.Lock()
	defer mu.Unlock()
	if len(panics) != 1 || !strings.Contains(panics[0], "storage/page.Page.Item") {
		t.Errorf("server PANICs: %q", panics)
	}
}
