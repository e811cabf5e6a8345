package guc

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestEnumAliases: an enum parameter's other spellings normalize to the
// value they stand for (wal_compression's on/true/1 are pglz, no/0 off,
// any case), and an unknown value lists the visible ones, in PostgreSQL's
// order.
func TestEnumAliases(t *testing.T) {
	d, err := Lookup("wal_compression")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"on": "pglz", "ON": "pglz", "true": "pglz", "yes": "pglz", "1": "pglz",
		"pglz": "pglz", "lz4": "lz4", "Zstd": "zstd", "off": "off", "false": "off", "NO": "off", "0": "off"} {
		got, err := d.Normalize(in)
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	_, err = d.Normalize("gzip")
	pe := pgerr.From(err)
	if pe == nil || pe.Code != pgerr.InvalidParameterValue || pe.Hint != "Available values: pglz, lz4, zstd, on, off." {
		t.Fatalf("gzip: %+v", pe)
	}
	if d.Context != Superuser {
		t.Fatalf("context %s", d.Context)
	}
}
