package btree

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// model is a sorted list of entries: the reference the index must match.
type model struct {
	typs    []datum.Type
	entries []entry
}

func (m *model) cmpCol(i int, a, b datum.Datum) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return 1
	case b.IsNull():
		return -1
	}
	return datum.DefaultComparator(m.typs[i]).Compare(a, b)
}

func (m *model) cmpPrefix(keys, bound []datum.Datum) int {
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

func randDatum(rng *rand.Rand, t datum.Type, nullPct int) datum.Datum {
	if rng.Intn(100) < nullPct {
		return datum.Null()
	}
	switch t.OID {
	case datum.Int4OID:
		return datum.Int(int64(rng.Intn(200) - 50))
	case datum.TextOID:
		n := rng.Intn(4)
		if rng.Intn(10) == 0 {
			n = 100 + rng.Intn(300)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.Intn(3))
		}
		return datum.Str(string(b))
	case datum.NumericOID:
		// equal values with different display scales, both header forms
		// (weight and dscale beyond the short form), NaN and infinities
		specials := []string{datum.NumericNaNPayload, datum.NumericPInfPayload, datum.NumericNInfPayload,
			datum.NumericPayload(false, 75, 0, []int16{1}),   // 1e300
			datum.NumericPayload(true, 75, 0, []int16{1}),    // -1e300
			datum.NumericPayload(false, -20, 80, []int16{1}), // 1e-80
			datum.NumericPayload(false, 0, 3, nil)}           // 0.000
		if rng.Intn(10) == 0 {
			return datum.StrOfKind(datum.KindNumeric, specials[rng.Intn(len(specials))])
		}
		scale := 1 + rng.Intn(3)
		frac := rng.Intn(min(20, []int{10, 100, 1000}[scale-1]))
		for i := scale; i < 4; i++ {
			frac *= 10 // as the first base-10000 fraction digit
		}
		return numericOf(rng.Intn(200)-100, frac, scale)
	}
	panic("type")
}

func randBound(rng *rand.Rand, typs []datum.Type) *Bound {
	if rng.Intn(5) == 0 {
		return nil
	}
	n := 1 + rng.Intn(len(typs))
	k := make([]datum.Datum, n)
	for i := range k {
		k[i] = randDatum(rng, typs[i], 5)
	}
	return &Bound{Key: k, Inclusive: rng.Intn(2) == 0}
}

// TestModel inserts random keys (duplicates, NULLs, wide text) and checks
// random range scans against the sorted model, for several key shapes.
func TestModel(t *testing.T) {
	shapes := [][]datum.Type{
		{datum.Int4},
		{datum.Text},
		{datum.Int4, datum.Text},
		{datum.Text, datum.Int4, datum.Int4},
		{datum.Numeric, datum.Int4},
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
				keys := make([]datum.Datum, len(typs))
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
					keys := make([]datum.Datum, len(typs))
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
	opt := Options{Name: "c", KeyTypes: []datum.Type{datum.Int4}}
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
				if err := ix.Insert(nil, uint32(w+2), []datum.Datum{datum.Int(int64(k))}, tid, nil); err != nil {
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
				c := ix.Scan(nil, &Bound{Key: []datum.Datum{datum.Int(int64(lo))}, Inclusive: true},
					&Bound{Key: []datum.Datum{datum.Int(int64(lo + rng.Intn(500)))}, Inclusive: false})
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
	opt := Options{Name: "u", KeyTypes: []datum.Type{datum.Int4}, Unique: true}
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
				err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(k))}, tid, func(page.ItemPointer) (UniqueVerdict, error) {
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
	opt := Options{Name: "cd", KeyTypes: []datum.Type{datum.Text}}
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
				if err := ix.Insert(nil, 2, []datum.Datum{datum.Str(k)}, tid, nil); err != nil {
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
			c := ix.Scan(nil, &Bound{Key: []datum.Datum{datum.Str("3")}, Inclusive: true}, &Bound{Key: []datum.Datum{datum.Str("6")}, Inclusive: true})
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

// numericOf is the numeric ±(|ip| + frac/10000) with display scale scale,
// normalized as PostgreSQL stores it (no leading or trailing zero digits).
func numericOf(ip, frac, scale int) datum.Datum {
	neg := ip < 0
	if neg {
		ip = -ip
	}
	digits, weight := []int16{int16(ip), int16(frac)}, 0
	if ip == 0 {
		digits, weight = digits[1:], -1
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		neg, weight = false, 0
	}
	return datum.StrOfKind(datum.KindNumeric, datum.NumericPayload(neg, weight, scale, digits))
}
