package undo

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"strconv"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// seedUpdate runs seed 003's experiment on an undo table of n rows at the
// storage level: load, flush everything and begin a checkpoint, then
// `UPDATE boat SET name = 'trade winds' WHERE mod(id, 1000) = 1` as a scan
// and in-place updates. It returns the UPDATE's counters and the table's
// size in pages.
func seedUpdate(t testing.TB, n int) (stats.Usage, page.BlockNumber, int) {
	te := newTestEnv(t, 16384)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	for i := 1; i <= n; i++ {
		sum := md5.Sum([]byte(strconv.Itoa(i)))
		tup := boat.Form([]datum.Datum{datum.Int(int64(i)), datum.Str(hex.EncodeToString(sum[:])), datum.Float(math.Log10(float64(i)))})
		if _, err := tb.Insert(nil, w, tup); err != nil {
			t.Fatal(err)
		}
	}
	te.commit(t, w)
	if _, err := te.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	te.w.BeginCheckpoint()
	nb, _ := tb.NBlocks()

	var u stats.Usage
	up := te.begin(t)
	var targets []page.ItemPointer
	err := tb.Scan(bg, &u, up, func(tid page.ItemPointer, tup Tuple) bool {
		out := make([]datum.Datum, 1)
		boat.DeformUpTo(tup, out, 1)
		if out[0].Int()%1000 == 1 {
			targets = append(targets, tid)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tid := range targets {
		tup, err := tb.Fetch(&u, up, tid)
		if err != nil || tup == nil {
			t.Fatalf("fetch %v: %v", tid, err)
		}
		vals := make([]datum.Datum, 3)
		boat.Deform(tup, vals)
		vals[1] = datum.Str("trade winds")
		oc, err := tb.Update(bg, &u, up, tid, boat.Form(vals), false, false)
		if err != nil || oc.Result != Ok || !oc.InPlace {
			t.Fatalf("update %v: %+v %v", tid, oc, err)
		}
	}
	te.commit(t, up)
	return u, nb, len(targets)
}

// TestSeedUpdateCounts: the seed's UPDATE writes one WAL record per row,
// one full-page image per table page and at most one more for the undo
// page it continues, and dirties only those pages and the few undo pages
// it fills; the table holds 136 rows a page.
func TestSeedUpdateCounts(t *testing.T) {
	const n = 30000
	u, nb, rows := seedUpdate(t, n)
	if want := page.BlockNumber((n + 135) / 136); nb != want {
		t.Fatalf("table is %d pages, want %d", nb, want)
	}
	if rows != n/1000 {
		t.Fatalf("%d rows updated", rows)
	}
	r := int64(rows)
	undoPages := (r*88 + 8000) / 8168 // ~88 bytes of undo per row, maybe a page begun earlier
	if u.WAL.Records != r || u.WAL.FPI > r+1 || u.WAL.FPI < r {
		t.Fatalf("WAL records %d, FPI %d for %d rows", u.WAL.Records, u.WAL.FPI, rows)
	}
	if u.Buf.SharedDirtied > r+undoPages+1 {
		t.Fatalf("dirtied %d buffers for %d rows", u.Buf.SharedDirtied, rows)
	}
	if u.WAL.Bytes > (r+1)*8192+r*300 {
		t.Fatalf("WAL bytes %d for %d rows", u.WAL.Bytes, rows)
	}
}

// BenchmarkSeed003Update is seed 003 at full size (500,000 rows, 500
// updated); it reports the UPDATE's counters against issue 9's targets
// (dirtied ≤ 520, records ≤ 520, FPI ≤ 510, bytes ≤ 4.2 MB, table ≤ 3,750
// pages).
func BenchmarkSeed003Update(b *testing.B) {
	for i := 0; i < b.N; i++ {
		u, nb, _ := seedUpdate(b, 500000)
		b.ReportMetric(float64(u.Buf.SharedDirtied), "dirtied")
		b.ReportMetric(float64(u.WAL.Records), "walrecords")
		b.ReportMetric(float64(u.WAL.FPI), "fpi")
		b.ReportMetric(float64(u.WAL.Bytes), "walbytes")
		b.ReportMetric(float64(nb), "tablepages")
	}
}
