package btree

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// TestPostgresPageCounts checks index sizes measured on PostgreSQL 15.18
// (pg_relation_size / 8192), with and without deduplication:
//
//	create table t(i int, d text, c int) ... 400000 rows, i = 1..400000,
//	  d = md5(i::text), c = i % 100
//	create index on t(d)                                    -> 2886
//	create index on t(c) with (deduplicate_items=off)       -> 1101
//	create index on t(c)                                    -> 349
//	create index on s(i); insert 1..200000                  -> 551
//	create index on r(i); insert (i*7919 % 200003)          -> 589
//	create index on dd(i) with (deduplicate_items=off);
//	  insert i % 50                                         -> 555
//	create index on dd(i); insert i % 50 (PostgreSQL 15.20) -> 202
//
// Heap TIDs follow the tables' layouts (107 and 226 rows per page).
func TestPostgresPageCounts(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow; sizes do not depend on concurrency")
	}
	build := []struct {
		name  string
		typ   datum.Type
		key   func(i int) datum.Datum
		pages int
		noDup bool
	}{
		{"t_d", datum.Text, func(i int) datum.Datum {
			h := md5.Sum([]byte(strconv.Itoa(i)))
			return datum.Str(hex.EncodeToString(h[:]))
		}, 2886, false},
		{"t_c_nodedup", datum.Int4, func(i int) datum.Datum { return datum.Int(int64(i % 100)) }, 1101, true},
		{"t_c", datum.Int4, func(i int) datum.Datum { return datum.Int(int64(i % 100)) }, 349, false},
	}
	for _, tc := range build {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			te := newTestEnv(t, 64)
			b := NewBuilder(te.env, 1, Options{Name: tc.name, KeyTypes: []datum.Type{tc.typ}, NoDeduplicate: tc.noDup})
			for i := 1; i <= 400000; i++ {
				j := i - 1
				b.Add([]datum.Datum{tc.key(i)}, page.ItemPointer{Block: page.BlockNumber(j / 107), Offset: page.OffsetNumber(j%107 + 1)})
			}
			ix, err := b.Finish(nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			if st, _ := ix.Stats(nil); st.Pages != tc.pages {
				t.Fatalf("%d pages, PostgreSQL has %d", st.Pages, tc.pages)
			}
		})
	}
	ins := []struct {
		name  string
		key   func(i int) int64
		pages int
		noDup bool
	}{
		{"s_i", func(i int) int64 { return int64(i) }, 551, false},
		{"r_i", func(i int) int64 { return int64(i) * 7919 % 200003 }, 589, false},
		{"dd_i_nodedup", func(i int) int64 { return int64(i % 50) }, 555, true},
		{"dd_i", func(i int) int64 { return int64(i % 50) }, 202, false},
	}
	for _, tc := range ins {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			te := newTestEnv(t, 1024)
			opt := int4Opts(tc.name)
			opt.NoDeduplicate = tc.noDup
			ix := emptyIndex(t, te, 1, opt)
			key := make([]datum.Datum, 1)
			for i := 1; i <= 200000; i++ {
				j := i - 1
				key[0] = datum.Int(tc.key(i))
				if err := ix.Insert(nil, 2, key, page.ItemPointer{Block: page.BlockNumber(j / 226), Offset: page.OffsetNumber(j%226 + 1)}, nil); err != nil {
					t.Fatal(err)
				}
			}
			if st, _ := ix.Stats(nil); st.Pages != tc.pages {
				t.Fatalf("%d pages, PostgreSQL has %d", st.Pages, tc.pages)
			}
		})
	}
}
