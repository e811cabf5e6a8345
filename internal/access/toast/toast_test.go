package toast

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

type testEnv struct {
	x   *xact.Manager
	env *tableam.Env
	rel *Relation
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	sm, err := smgr.Open(filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	pool := buffer.New(sm, 512)
	w, err := wal.Open(filepath.Join(dir, "wal"), wal.FirstLSN, 0, wal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pool.FlushWAL = w.Flush
	x, err := xact.Open(filepath.Join(dir, "xact"), w, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); sm.Close() })
	env := &tableam.Env{Pool: pool, WAL: w, Xact: x}
	if err := sm.Create(100, smgr.MainFork); err != nil {
		t.Fatal(err)
	}
	ix, err := btree.NewBuilder(&btree.Env{Pool: pool, WAL: w, NextXid: func() uint32 { return uint32(x.NextXid()) }, OldestXmin: func() uint32 { return uint32(x.OldestXmin()) }}, 101, IndexOptions("pg_toast_1_index")).Finish(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	next := uint32(20000)
	rel := &Relation{OID: 100, Name: "pg_toast_1", Table: heap.AM{}.Open(env, tableam.RelSpec{File: 100, Name: "pg_toast_1", Types: ColumnTypes, FillFactor: 100}),
		Format: heap.AM{}.NewFormat(tableam.FormatSpec{Layout: ChunkLayout}), Index: ix,
		NewOid: func() (uint32, error) { next++; return next, nil }}
	return &testEnv{x: x, env: env, rel: rel}
}

func (te *testEnv) begin() *tableam.Txn {
	p := te.x.NewProc()
	xid, err := te.x.AssignXid(p)
	if err != nil {
		panic(err)
	}
	return &tableam.Txn{Proc: p, Xid: xid, Snap: te.x.GetSnapshot(p), Combo: &tableam.ComboCids{}}
}

func (te *testEnv) commit(t *testing.T, tx *tableam.Txn) {
	t.Helper()
	if _, err := te.x.Commit(nil, tx.Proc, xact.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	te.x.ReleaseProc(tx.Proc)
}

// incompressible is n hex characters of an md5 chain (pglz finds no
// 25 % in it).
func incompressible(n int, seed int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		s := md5.Sum([]byte(fmt.Sprint(seed, i)))
		b.WriteString(hex.EncodeToString(s[:]))
	}
	return b.String()[:n]
}

func TestSaveFetchDelete(t *testing.T) {
	te := newTestEnv(t)
	tx := te.begin()
	r := Reader{Rel: te.rel}
	for _, n := range []int{1, varatt.MaxChunkSize, varatt.MaxChunkSize + 1, 4 * varatt.MaxChunkSize, 100000} {
		v := incompressible(n, n)
		p, err := te.rel.Save(nil, nil, tx, datum.Str(v))
		if err != nil {
			t.Fatal(err)
		}
		if p.RawLen() != n || p.ExtSize() != n || p.Compressed() || p.ToastRelID != 100 {
			t.Fatalf("pointer for %d bytes: %+v", n, p)
		}
		got, err := r.Detoast(p)
		if err != nil || string(got) != v {
			t.Fatalf("%d bytes: fetched %d bytes, %v", n, len(got), err)
		}
	}
	// A compressed value is stored compressed and comes back decompressed.
	plain := strings.Repeat("compressible ", 10000)
	cv := varatt.Compress(varatt.PGLZ, []byte(plain))
	p, err := te.rel.Save(nil, nil, tx, datum.StoredVarlena(cv))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Compressed() || p.ExtSize() != len(cv)-varatt.HdrSz || p.RawLen() != len(plain) {
		t.Fatalf("compressed pointer %+v for %d bytes compressed to %d", p, len(plain), len(cv))
	}
	if got, err := r.Detoast(p); err != nil || string(got) != plain {
		t.Fatalf("compressed value: %v", err)
	}
	te.commit(t, tx)

	// Deleted by a committed transaction: still readable (toast
	// visibility ignores xmax), as old snapshots need.
	tx = te.begin()
	if err := te.rel.Delete(nil, nil, tx, p.ValueID); err != nil {
		t.Fatal(err)
	}
	te.commit(t, tx)
	if got, err := r.Detoast(p); err != nil || string(got) != plain {
		t.Fatalf("deleted value: %v", err)
	}
	// A pointer to chunks that are not there is corruption.
	missing := p
	missing.ValueID = 12345
	if _, err := r.Detoast(missing); pgerr.Code(err) != pgerr.DataCorrupted || !strings.Contains(err.Error(), "missing chunk number 0 for toast value 12345 in pg_toast_1") {
		t.Fatalf("missing value: %v", err)
	}
	wrong := p
	wrong.ToastRelID = 7
	if _, err := r.Detoast(wrong); pgerr.Code(err) != pgerr.DataCorrupted {
		t.Fatalf("pointer into another TOAST table: %v", err)
	}
}

// A table (id int4, x text EXTENDED, m text MAIN, e text EXTERNAL).
func newToaster(te *testEnv) *Toaster {
	ts := []datum.Type{datum.Int4, datum.Text, datum.Text, datum.Text}
	st := []byte{'p', 'x', 'm', 'e'}
	l := datum.NewDeformerStorage(ts, st)
	t := &Toaster{Rel: te.rel, Layout: l, Format: heap.AM{}.NewFormat(tableam.FormatSpec{Layout: l})}
	for i := range ts {
		t.Cols = append(t.Cols, Column{Varlena: i > 0, Storage: st[i]})
	}
	return t
}

func kinds(vals []datum.Datum) string {
	var b strings.Builder
	for _, v := range vals[1:] {
		switch {
		case v.IsNull():
			b.WriteString("-")
		case v.IsExternalStored():
			b.WriteString("E")
		case v.IsStored():
			b.WriteString("C")
		default:
			b.WriteString("p")
		}
	}
	return b.String()
}

func TestToasterRounds(t *testing.T) {
	te := newTestEnv(t)
	tx := te.begin()
	env := Env{Tx: tx, Default: varatt.PGLZ}
	tt := newToaster(te)
	comp := strings.Repeat("abcdefgh", 1000) // 8000 bytes, compresses
	null := datum.Null()
	for _, c := range []struct {
		x, m, e string
		isNull  [3]bool
		want    string
	}{
		{x: "small", m: "small", e: "small", want: "ppp"},
		{x: comp, m: "m", e: "e", want: "Cpp"},                                        // round 1 compresses x
		{x: incompressible(3000, 1), m: "m", e: "e", want: "Epp"},                     // still too big by itself: out at once
		{x: "x", m: "m", e: comp, want: "ppE"},                                        // EXTERNAL: moved out, not compressed
		{x: "x", m: comp, e: "e", want: "pCp"},                                        // round 3 compresses MAIN
		{x: "x", m: incompressible(6000, 2), e: "e", want: "ppp"},                     // MAIN stays inline below 8160
		{x: "x", m: incompressible(9000, 3), e: "e", want: "pEp"},                     // round 4 moves MAIN out
		{x: incompressible(1500, 4), m: incompressible(1500, 5), e: "e", want: "Epp"}, // EXTENDED goes before MAIN
		{x: comp, isNull: [3]bool{false, true, true}, want: "C--"},
	} {
		vals := []datum.Datum{datum.Int(1), datum.Str(c.x), datum.Str(c.m), datum.Str(c.e)}
		for i, n := range c.isNull {
			if n {
				vals[i+1] = null
			}
		}
		out, _, err := tt.Prepare(env, vals, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := kinds(out); got != c.want {
			t.Errorf("x=%d m=%d e=%d bytes: stored as %s, want %s", len(c.x), len(c.m), len(c.e), got, c.want)
		}
		// The tuple formed from them decodes back to the values.
		tup := heap.NewDeformerFrom(tt.Layout).Form(out)
		back := make([]datum.Datum, 4)
		if err := heap.NewDeformerFrom(tt.Layout).WithDetoaster(Reader{Rel: te.rel}).Deform(tup, back); err != nil {
			t.Fatal(err)
		}
		for i := range vals {
			if vals[i].IsNull() != back[i].IsNull() || vals[i].Str() != back[i].Str() {
				t.Fatalf("attribute %d changed through the toaster", i)
			}
		}
		if strings.Contains(c.want, "E") != tup.HasExternalValues() {
			t.Errorf("HEAP_HASEXTERNAL %v for %s", tup.HasExternalValues(), c.want)
		}
	}
	// Without a TOAST table nothing moves out.
	noToast := *tt
	noToast.Rel = nil
	out, _, err := noToast.Prepare(env, []datum.Datum{datum.Int(1), datum.Str(incompressible(9000, 6)), datum.Str("m"), datum.Str("e")}, nil)
	if err != nil || kinds(out) != "ppp" {
		t.Errorf("without a TOAST table: %s, %v", kinds(out), err)
	}
	// lz4 when the column or the default says so.
	out, _, _ = tt.Prepare(Env{Tx: tx, Default: varatt.LZ4}, []datum.Datum{datum.Int(1), datum.Str(comp), datum.Str("m"), datum.Str("e")}, nil)
	if !out[1].IsStored() || varatt.CompressedMethod(out[1].StoredBytes()) != varatt.LZ4 {
		t.Errorf("default_toast_compression lz4 not used")
	}
	tt.Cols[1].Compression = 'p'
	out, _, _ = tt.Prepare(Env{Tx: tx, Default: varatt.LZ4}, []datum.Datum{datum.Int(1), datum.Str(comp), datum.Str("m"), datum.Str("e")}, nil)
	if !out[1].IsStored() || varatt.CompressedMethod(out[1].StoredBytes()) != varatt.PGLZ {
		t.Errorf("the column's COMPRESSION pglz not used")
	}
}

// An UPDATE that keeps an external value reuses its pointer; one that
// replaces it deletes the old chunks.
func TestToasterUpdate(t *testing.T) {
	te := newTestEnv(t)
	tx := te.begin()
	env := Env{Tx: tx, Default: varatt.PGLZ}
	tt := newToaster(te)
	def := heap.NewDeformerFrom(tt.Layout).WithDetoaster(Reader{Rel: te.rel})
	big1, big2 := incompressible(5000, 1), incompressible(5000, 2)
	out, saved, err := tt.Prepare(env, []datum.Datum{datum.Int(1), datum.Str(big1), datum.Str("m"), datum.Str(big2)}, nil)
	if err != nil || len(saved) != 2 {
		t.Fatalf("insert: %v, saved %v", err, saved)
	}
	oldTup := def.Form(out)
	old := make([]datum.Datum, 4)
	if err := def.Deform(oldTup, old); err != nil {
		t.Fatal(err)
	}
	// New row: attribute 1 taken over from old, attribute 3 replaced.
	newRow := []datum.Datum{datum.Int(2), old[1], old[2], datum.Str(big2)}
	out2, saved2, err := tt.Prepare(env, newRow, old)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved2) != 1 || kinds(out2) != "EpE" {
		t.Fatalf("update stored %v, kinds %s", saved2, kinds(out2))
	}
	if !bytes.Equal(out2[1].StoredBytes(), out[1].StoredBytes()) {
		t.Fatalf("the unchanged value got a new pointer")
	}
	if err := tt.AfterUpdate(env, tableam.Tuple(oldTup), out2); err != nil {
		t.Fatal(err)
	}
	te.commit(t, tx)
	// The replaced value's chunks are deleted, the kept one's are not.
	for i, id := range saved {
		cur := te.rel.Index.ScanEqual(nil, []datum.Datum{datum.Int(int64(id))})
		tid, _, ok, err := cur.Next()
		cur.Close()
		if err != nil || !ok {
			t.Fatalf("value %d: no chunks", id)
		}
		_, _, found, err := te.rel.Table.Fetch(nil, te.begin(), tid)
		if err != nil {
			t.Fatal(err)
		}
		if deleted := !found; deleted != (i == 1) {
			t.Errorf("value %d (attribute %d): deleted=%v", id, i, deleted)
		}
	}
}

// TestTupleHeaderSize: the toaster's size judgement uses the heap's header.
func TestTupleHeaderSize(t *testing.T) {
	if TupleHeaderSize != heap.HeaderSize {
		t.Fatalf("TupleHeaderSize %d, heap.HeaderSize %d", TupleHeaderSize, heap.HeaderSize)
	}
}
