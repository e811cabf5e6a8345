package wal

import (
	"os"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestControlRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := &Control{State: StateProduction, Checkpoint: 0x1_0000_0028, Redo: 0x1_0000_0000, NextXid: 1234, NextOid: 16500, Time: 1700000000, SystemID: 0xfeedface}
	if err := WriteControl(dir, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadControl(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Version = ControlVersion
	if *got != *c {
		t.Fatalf("%+v != %+v", got, c)
	}
	raw, _ := os.ReadFile(ControlPath(dir))
	if len(raw) != controlSize || string(raw[:8]) != ControlMagic {
		t.Fatalf("file of %d bytes", len(raw))
	}
	// Time 0 is replaced by now.
	c.Time = 0
	WriteControl(dir, c)
	if got, _ := ReadControl(dir); got.Time == 0 {
		t.Fatal("time not set")
	}
	if _, err := os.Stat(ControlPath(dir) + ".tmp"); err == nil {
		t.Fatal("temporary file left")
	}
}

// TestControlRefused: a missing, foreign, newer-format or damaged control
// file is refused with XX001, never silently accepted.
func TestControlRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadControl(dir); pgerr.Code(err) != pgerr.DataCorrupted {
		t.Fatalf("missing: %v", err)
	}
	if err := WriteControl(dir, &Control{State: StateShutdown, NextXid: 3}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(ControlPath(dir))
	cases := map[string]func(b []byte) []byte{
		"magic":     func(b []byte) []byte { b[0] = 'X'; return b },
		"version":   func(b []byte) []byte { b[8] = ControlVersion + 1; return b },
		"crc":       func(b []byte) []byte { b[20] ^= 1; return b },
		"truncated": func(b []byte) []byte { return b[:controlSize-1] },
	}
	for name, f := range cases {
		b := f(append([]byte(nil), good...))
		os.WriteFile(ControlPath(dir), b, 0o600)
		_, err := ReadControl(dir)
		if pgerr.Code(err) != pgerr.DataCorrupted {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}
