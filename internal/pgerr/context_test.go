package pgerr

import (
	"strings"
	"testing"
)

func TestAddContext(t *testing.T) {
	e := Errorf(SyntaxError, "x")
	var want []string
	for i := 0; i < 1000; i++ {
		line := strings.Repeat("l", i%7+1)
		e.AddContext(line)
		want = append(want, line)
	}
	if e.Where != strings.Join(want, "\n") {
		t.Fatal("lines lost or reordered")
	}
	// A copy appending must not change the original's text, nor the
	// original appending the copy's.
	c := *e
	before := e.Where
	c.AddContext("copy")
	e.AddContext("orig")
	if e.Where != before+"\norig" || c.Where != before+"\ncopy" {
		t.Fatalf("copies interfere: %q / %q", e.Where[len(before):], c.Where[len(before):])
	}
	// Where set directly is kept.
	e.Where = "set"
	e.AddContext("next")
	if e.Where != "set\nnext" {
		t.Fatalf("got %q", e.Where)
	}
}
