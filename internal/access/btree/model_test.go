package btree

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// model is a sorted list of entries: the reference the index must match.
type model struct {
	typs    []types.Type
	entries []entry
}

func (m *model) cmpCol(i int, a, b types.Datum) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return 1
	case b.IsNull():
		return -1
	}
	return types.Compare(m.typs[i], a, b)
}

func (m *model) cmpPrefix(keys, bound []types.Datum) int {
	for i := range bound {
		if c := m.cmpCol(i, keys[i], bound[i]); c != 0 {
			return c
		}
	}
	return 0
}

func (m *model) less(a, b entry) bool {
	if c := m.cmpPrefix(a.keys, b.keys); c != 0 {
		return c < 0
	}
	return a.tid.Less(b.tid)
}

func (m *model) insert(e entry) {
	i := sort.Search(len(m.entries), func(i int) bool { return m.less(e, m.entries[i]) })
	m.entries = append(m.entries, entry{})
	copy(m.entries[i+1:], m.entries[i:])
	m.entries[i] = e
}

func (m *model) scan(lower, upper *Bound) []entry {
	var out []entry
	nc := 0
	for _, b := range []*Bound{lower, upper} {
		if b != nil {
			nc = max(nc, len(b.Key))
		}
	}
	for _, e := range m.entries {
		if lower != nil {
			c := m.cmpPrefix(e.keys, lower.Key)
			if c < 0 || (c == 0 && !lower.Inclusive) {
				continue
			}
		}
		if upper != nil {
			c := m.cmpPrefix(e.keys, upper.Key)
			if c > 0 || (c == 0 && !upper.Inclusive) {
				continue
			}
		}
		if lower != nil || upper != nil {
			rejected := false
			for i := 0; i < nc; i++ {
				if !e.keys[i].IsNull() {
					continue
				}
				nullBound := false
				for _, b := range []*Bound{lower, upper} {
					if b != nil && i < len(b.Key) && b.Key[i].IsNull() {
						nullBound = true
					}
				}
				if !nullBound {
					rejected = true
				}
			}
			if rejected {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func fmtEntries(es []entry) string {
	var sb strings.Builder
	for _, e := range es {
		fmt.Fprintf(&sb, "%v%v ", e.keys, e.tid)
	}
	return sb.String()
}

func sameEntries(m *model, got, want []entry) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %d entries, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].tid != want[i].tid || m.cmpPrefix(got[i].keys, want[i].keys) != 0 {
			return fmt.Errorf("entry %d: got %v %v, want %v %v", i, got[i].keys, got[i].tid, want[i].keys, want[i].tid)
		}
	}
	return nil
}

func randDatum(rng *rand.Rand, t types.Type, nullPct int) types.Datum {
	if rng.Intn(100) < nullPct {
		return types.Null()
	}
	switch t.OID {
	case types.Int4OID:
		return types.Int(int64(rng.Intn(200) - 50))
	case types.TextOID:
		n := rng.Intn(4)
		if rng.Intn(10) == 0 {
			n = 100 + rng.Intn(300)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.Intn(3))
		}
		return types.Str(string(b))
	case types.NumericOID:
		// equal values with different display scales, both header forms
		// (weight and dscale beyond the short form), NaN and infinities
		specials := []string{"NaN", "Infinity", "-Infinity", "1e300", "-1e300", "1e-80", "0.000"}
		if rng.Intn(10) == 0 {
			d, _ := types.ParseNumeric(specials[rng.Intn(len(specials))])
			return d
		}
		v := fmt.Sprintf("%d.%0*d", rng.Intn(200)-100, 1+rng.Intn(3), rng.Intn(20))
		d, err := types.ParseNumeric(v)
		if err != nil {
			panic(err)
		}
		return d
	}
	panic("type")
}

func randBound(rng *rand.Rand, typs []types.Type) *Bound {
	if rng.Intn(5) == 0 {
		return nil
	}
	n := 1 + rng.Intn(len(typs))
	k := make([]types.Datum, n)
	for i := range k {
		k[i] = randDatum(rng, typs[i], 5)
	}
	return &Bound{Key: k, Inclusive: rng.Intn(2) == 0}
}

// TestModel inserts random keys (duplicates, NULLs, wide text) and checks
// random range scans against the sorted model, for several key shapes.
func TestModel(t *testing.T) {
	shapes := [][]types.Type{
		{types.Int4},
		{types.Text},
		{types.Int4, types.Text},
		{types.Text, types.Int4, types.Int4},
		{types.Numeric, types.Int4},
	}
	for si, typs := range shapes {
		t.Run(fmt.Sprint(si), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(int64(si + 10)))
			te := newTestEnv(t, 200)
			opt := Options{Name: "m", KeyTypes: typs}
			m := &model{typs: typs}
			// start from a small bulk build, then insert
			b := NewBuilder(te.env, 20, opt)
			tidN := 0
			for i := 0; i < 500; i++ {
				keys := make([]types.Datum, len(typs))
				for j := range keys {
					keys[j] = randDatum(rng, typs[j], 10)
				}
				tidN++
				tid := page.ItemPointer{Block: page.BlockNumber(rng.Intn(1000)), Offset: page.OffsetNumber(tidN)}
				b.Add(keys, tid)
				m.insert(entry{keys, tid})
			}
			ix, err := b.Finish(nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			for round := 0; round < 4; round++ {
				for i := 0; i < 1500; i++ {
					keys := make([]types.Datum, len(typs))
					for j := range keys {
						keys[j] = randDatum(rng, typs[j], 10)
					}
					tidN++
					tid := page.ItemPointer{Block: page.BlockNumber(rng.Intn(1000)), Offset: page.OffsetNumber(tidN)}
					if err := ix.Insert(nil, 2, keys, tid, nil); err != nil {
						t.Fatal(err)
					}
					m.insert(entry{keys, tid})
				}
				mustCheck(t, ix)
				if err := sameEntries(m, scanAll(t, ix, ix.Scan(nil, nil, nil)), m.entries); err != nil {
					t.Fatalf("full scan: %v", err)
				}
				for q := 0; q < 80; q++ {
					lo, hi := randBound(rng, typs), randBound(rng, typs)
					if q%4 == 0 && lo != nil {
						hi = &Bound{Key: lo.Key, Inclusive: true}
						lo.Inclusive = true
					}
					got := scanAll(t, ix, ix.Scan(nil, lo, hi))
					if err := sameEntries(m, got, m.scan(lo, hi)); err != nil {
						t.Fatalf("scan %v..%v: %v\ngot  %s\nwant %s", lo, hi, err, fmtEntries(got), fmtEntries(m.scan(lo, hi)))
					}
				}
			}
			st, _ := ix.Stats(nil)
			t.Logf("shape %d: %+v", si, st)
		})
	}
}

// TestConcurrent runs inserters and scanners at once, then checks the
// result is complete and ordered.
func TestConcurrent(t *testing.T) {
	te := newTestEnv(t, 400)
	opt := Options{Name: "c", KeyTypes: []types.Type{types.Int4}}
	ix := emptyIndex(t, te, 30, opt)
	const writers, perWriter = 4, 4000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 16)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < perWriter; i++ {
				k := rng.Intn(3000)
				if w == 0 {
					k = 3000 + i // ascending: rightmost splits
				}
				tid := page.ItemPointer{Block: page.BlockNumber(w), Offset: page.OffsetNumber(i + 1)}
				if err := ix.Insert(nil, uint32(w+2), []types.Datum{types.Int(int64(k))}, tid, nil); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	var sw sync.WaitGroup
	for s := 0; s < 2; s++ {
		sw.Add(1)
		go func(s int) {
			defer sw.Done()
			rng := rand.New(rand.NewSource(int64(100 + s)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				lo := rng.Intn(7000)
				c := ix.Scan(nil, &Bound{Key: []types.Datum{types.Int(int64(lo))}, Inclusive: true},
					&Bound{Key: []types.Datum{types.Int(int64(lo + rng.Intn(500)))}, Inclusive: false})
				var prevK int64 = -1
				var prevT page.ItemPointer
				for {
					tid, tup, ok, err := c.Next()
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						break
					}
					k, _ := ix.Keys(tup, nil)
					kv := k[0].Int()
					if kv < prevK || (kv == prevK && !prevT.Less(tid)) {
						errs <- fmt.Errorf("scan out of order: %d%v after %d%v", kv, tid, prevK, prevT)
						return
					}
					prevK, prevT = kv, tid
				}
			}
		}(s)
	}
	wg.Wait()
	close(stop)
	sw.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustCheck(t, ix)
	got := scanAll(t, ix, ix.Scan(nil, nil, nil))
	if len(got) != writers*perWriter {
		t.Fatalf("%d entries, want %d", len(got), writers*perWriter)
	}
	seen := map[page.ItemPointer]bool{}
	for i, e := range got {
		seen[e.tid] = true
		if i > 0 {
			p := got[i-1]
			if p.keys[0].Int() > e.keys[0].Int() || (p.keys[0].Int() == e.keys[0].Int() && !p.tid.Less(e.tid)) {
				t.Fatalf("out of order at %d", i)
			}
		}
	}
	if len(seen) != writers*perWriter {
		t.Fatalf("%d distinct TIDs", len(seen))
	}
}

// TestConcurrentUnique: writers race to insert the same keys into a unique
// index; exactly one entry per key may win.
func TestConcurrentUnique(t *testing.T) {
	te := newTestEnv(t, 200)
	opt := Options{Name: "u", KeyTypes: []types.Type{types.Int4}, Unique: true}
	ix := emptyIndex(t, te, 31, opt)
	const writers, keys = 4, 3000
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := map[int64]int{}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for _, k := range rng.Perm(keys) {
				tid := page.ItemPointer{Block: page.BlockNumber(w), Offset: page.OffsetNumber(k + 1)}
				err := ix.Insert(nil, 2, []types.Datum{types.Int(int64(k))}, tid, func(page.ItemPointer) (UniqueVerdict, error) {
					return UniqueConflict, nil
				})
				if err == nil {
					mu.Lock()
					wins[int64(k)]++
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	for k := 0; k < keys; k++ {
		if wins[int64(k)] != 1 {
			t.Fatalf("key %d inserted %d times", k, wins[int64(k)])
		}
	}
	got := scanAll(t, ix, ix.Scan(nil, nil, nil))
	if len(got) != keys {
		t.Fatalf("%d entries", len(got))
	}
	mustCheck(t, ix)
}

// TestConcurrentDeep: concurrent inserters of wide keys build a tree of
// several levels, so internal-page and root splits race with each other
// and with readers.
func TestConcurrentDeep(t *testing.T) {
	te := newTestEnv(t, 300) // smaller than the index: evictions too
	opt := Options{Name: "cd", KeyTypes: []types.Type{types.Text}}
	ix := emptyIndex(t, te, 32, opt)
	const writers, perWriter = 4, 1200
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w + 40)))
			for i := 0; i < perWriter; i++ {
				// Random letters: long keys that inline compression
				// cannot shrink, so the tree gets deep.
				pad := make([]byte, 200+rng.Intn(600))
				for j := range pad {
					pad[j] = 'a' + byte(rng.Intn(26))
				}
				k := fmt.Sprintf("%05d", rng.Intn(100000)) + string(pad)
				tid := page.ItemPointer{Block: page.BlockNumber(w), Offset: page.OffsetNumber(i + 1)}
				if err := ix.Insert(nil, 2, []types.Datum{types.Str(k)}, tid, nil); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	var sw sync.WaitGroup
	sw.Add(1)
	go func() {
		defer sw.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			prev := ""
			c := ix.Scan(nil, &Bound{Key: []types.Datum{types.Str("3")}, Inclusive: true}, &Bound{Key: []types.Datum{types.Str("6")}, Inclusive: true})
			for {
				_, tup, ok, err := c.Next()
				if err != nil {
					errs <- err
					return
				}
				if !ok {
					break
				}
				k, _ := ix.Keys(tup, nil)
				if k[0].Str() < prev || k[0].Str() < "3" || k[0].Str() > "6" {
					errs <- fmt.Errorf("scan order/bounds violated")
					return
				}
				prev = k[0].Str()
			}
		}
	}()
	wg.Wait()
	close(stop)
	sw.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustCheck(t, ix)
	st, _ := ix.Stats(nil)
	t.Logf("%+v", st)
	if st.Levels < 4 || st.Tuples != writers*perWriter {
		t.Fatalf("stats %+v", st)
	}
	if got := scanAll(t, ix, ix.Scan(nil, nil, nil)); len(got) != writers*perWriter {
		t.Fatalf("%d entries", len(got))
	}
}
