package tuplesort

import (
	"errors"
	"github.com/tidal-db/tidal/internal/interrupt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

// Tuples are (key text, seq int, payload text): sorted by key only, so
// seq shows whether equal keys kept their input order.
func byKey(a, b Tuple) int { return strings.Compare(a[0].Str(), b[0].Str()) }

func prefix(t Tuple) (uint64, bool) {
	var k uint64
	s := t[0].Str()
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k, true
}

func randTuples(rng *rand.Rand, n int) []Tuple {
	out := make([]Tuple, n)
	for i := range out {
		key := make([]byte, rng.Intn(12))
		for j := range key {
			key[j] = "abc"[rng.Intn(3)] // few distinct keys: many ties
		}
		out[i] = Tuple{datum.Str(string(key)), datum.Int(int64(i)), datum.Str(strings.Repeat("p", rng.Intn(200)))}
	}
	return out
}

func sortAll(t *testing.T, cfg Config, in []Tuple) ([]Tuple, Stats) {
	t.Helper()
	s := New(cfg)
	defer s.Close()
	for _, tu := range in {
		if err := s.Put(tu); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Done(); err != nil {
		t.Fatal(err)
	}
	var out []Tuple
	for {
		tu, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tu == nil {
			return out, s.Stats()
		}
		out = append(out, tu)
	}
}

func TestSortMatchesStableSort(t *testing.T) {
	dir := t.TempDir()
	m, err := tempfile.NewManager(dir, tempfile.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	sp := m.NewSpace(1)
	rng := rand.New(rand.NewSource(1))
	for _, tc := range []struct {
		n      int
		memKB  int64
		method string
		abbrev bool
	}{
		{1000, 4096, "quicksort", true},
		{20000, 64, "external merge", true},  // many runs, more than one merge pass at 64 kB
		{20000, 64, "external merge", false}, // the same without abbreviated keys
		{0, 64, "quicksort", true},
	} {
		in := randTuples(rng, tc.n)
		want := slices.Clone(in)
		if tc.method == "quicksort" {
			// An in-memory sort is PostgreSQL's quicksort: ties in its order.
			if err := interrupt.QsortFunc(want, byKey, func() error { return nil }); err != nil {
				t.Fatal(err)
			}
		} else {
			slices.SortStableFunc(want, byKey)
		}
		var u stats.Usage
		cfg := Config{WorkMemKB: tc.memKB, Compare: byKey, Space: sp, Usage: &u}
		if tc.abbrev {
			cfg.Abbrev = prefix
		}
		got, st := sortAll(t, cfg, in)
		if st.Method != tc.method {
			t.Fatalf("n=%d mem=%dkB: method %q, want %q", tc.n, tc.memKB, st.Method, tc.method)
		}
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d tuples out", tc.n, len(got))
		}
		for i := range want {
			if got[i][1].Int() != want[i][1].Int() || got[i][2].Str() != want[i][2].Str() {
				t.Fatalf("n=%d mem=%dkB: tuple %d is input %d, want %d", tc.n, tc.memKB, i, got[i][1].Int(), want[i][1].Int())
			}
		}
		if tc.method == "external merge" && (u.Buf.TempWritten == 0 || u.Buf.TempRead == 0 || st.SpaceKB == 0) {
			t.Fatalf("spilled sort counted %+v, %d kB", u.Buf, st.SpaceKB)
		}
		if sp.OpenFiles() != 0 {
			t.Fatalf("%d temporary files left after Close", sp.OpenFiles())
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, tempfile.Dir)); len(ents) != 0 {
		t.Fatalf("%d files left in %s", len(ents), tempfile.Dir)
	}
}

func TestSortStopsOnInterrupt(t *testing.T) {
	m, _ := tempfile.NewManager(t.TempDir(), tempfile.Hooks{})
	sp := m.NewSpace(1)
	stop := errors.New("canceling statement due to user request")
	calls := 0
	check := func() error {
		if calls++; calls > 3 {
			return stop
		}
		return nil
	}
	s := New(Config{WorkMemKB: 64, Compare: byKey, Space: sp, Check: check})
	var err error
	for _, tu := range randTuples(rand.New(rand.NewSource(2)), 100000) {
		if err = s.Put(tu); err != nil {
			break
		}
	}
	if err == nil {
		err = s.Done()
	}
	if !errors.Is(err, stop) {
		t.Fatalf("got %v, want the interrupt", err)
	}
	s.Close()
	if sp.OpenFiles() != 0 {
		t.Fatalf("%d files left after an interrupted sort", sp.OpenFiles())
	}
}

func TestSpillRoundTrip(t *testing.T) {
	row := []datum.Datum{datum.Null(), datum.Int(-1 << 40), datum.Float(-2.5), datum.Bool(true), datum.Str(""),
		datum.Str("héllo"), datum.TimestampMicros(123), datum.Array([]datum.Datum{datum.Int(1), datum.Null(), datum.Str("x")})}
	b := datum.AppendSpill(nil, row)
	n, k := uvarint(b)
	got, err := datum.DecodeSpill(b[k : k+int(n)])
	if err != nil || k+int(n) != len(b) {
		t.Fatalf("decode: %v (len %d of %d)", err, k+int(n), len(b))
	}
	for i := range row {
		if got[i] != row[i] {
			t.Fatalf("datum %d: %#v, want %#v", i, got[i], row[i])
		}
	}
	if _, err := datum.DecodeSpill(b[k : k+int(n)-1]); err == nil {
		t.Fatal("a truncated row decoded")
	}
}

func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
