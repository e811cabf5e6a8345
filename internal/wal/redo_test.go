package wal

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

const redoRel smgr.RelFileNumber = 5000

// workload makes random logged page changes with the page API, as access
// methods do: exclusive lock, change with a Delta, MarkDirty, insert the
// record, set the page LSN.
type workload struct {
	t    *testing.T
	r    *rand.Rand
	pool *buffer.Pool
	w    *WAL
	// touched after the last checkpoint
	touched map[page.BlockNumber]bool
	// text: tuples of words (compressible) instead of random bytes
	text bool
}

var workloadWords = []string{"trade ", "winds ", "boat ", "harbour ", "sail ", "anchor ", "keel ", "mast "}

// fill writes the workload's kind of tuple bytes into b.
func (wl *workload) fill(b []byte) {
	if !wl.text {
		wl.r.Read(b)
		return
	}
	for i := 0; i < len(b); {
		i += copy(b[i:], workloadWords[wl.r.Intn(len(workloadWords))])
	}
}

func (wl *workload) extend() {
	b, blk, err := wl.pool.Extend(nil, redoRel, smgr.MainFork, nil)
	if err != nil {
		wl.t.Fatal(err)
	}
	p := wl.pool.Page(b)
	var d page.Delta
	page.Init(p, 8, &d)
	wl.log(b, blk, &d, BlockStandard)
}

func (wl *workload) log(b buffer.Buffer, blk page.BlockNumber, d *page.Delta, flags uint8) {
	p := wl.pool.Page(b)
	rec := NewRecord(RmHeap, 0, 42)
	rec.AddBlock(buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: blk}, p, flags, d)
	rec.SetMain([]byte{byte(blk)})
	wl.pool.MarkDirty(nil, b)
	end, err := wl.w.Insert(nil, rec)
	if err != nil {
		wl.t.Fatal(err)
	}
	p.SetLSN(end)
	wl.pool.UnlockRelease(b, buffer.Exclusive)
	wl.touched[blk] = true
}

func (wl *workload) change(blk page.BlockNumber) {
	r := wl.r
	b, err := wl.pool.Read(nil, buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: blk}, nil)
	if err != nil {
		wl.t.Fatal(err)
	}
	wl.pool.Lock(b, buffer.Exclusive)
	p := wl.pool.Page(b)
	var d page.Delta
	n := p.MaxOffset()
	before := append(page.Page(nil), p...)
	op := r.Intn(5)
	defer func() {
		chk := append(page.Page(nil), before...)
		page.ApplyDelta(chk, false, d.Encode(nil, p))
		chk.SetLSN(p.LSN())
		if !bytes.Equal(chk, p) {
			for i := range chk {
				if chk[i] != p[i] {
					wl.t.Fatalf("op %d n %d: delta misses byte %d (lower %d upper %d)", op, n, i, p.Lower(), p.Upper())
				}
			}
		}
	}()
	switch {
	case op < 2 || n == 0:
		item := make([]byte, 10+r.Intn(300))
		wl.fill(item)
		if p.AddItem(item, page.OffsetNumber(1+r.Intn(int(n)+1)), true, false, 0, &d) == page.InvalidOffset {
			// full: delete half (leaves garbage in the hole)
			var offs []page.OffsetNumber
			for o := page.OffsetNumber(1); o <= n; o += 2 {
				offs = append(offs, o)
			}
			p.DeleteItems(offs, &d)
		}
	case op < 3:
		p.DeleteItems([]page.OffsetNumber{page.OffsetNumber(1 + r.Intn(int(n)))}, &d)
	case op < 4:
		o := page.OffsetNumber(1 + r.Intn(int(n)))
		nb := make([]byte, p.Item(o).Len)
		wl.fill(nb)
		p.Overwrite(o, nb, &d)
	default:
		r.Read(p.SpecialSpace())
		d.Mark(p.Special(), page.Size)
		p.SetPruneXid(r.Uint32(), &d)
	}
	wl.log(b, blk, &d, BlockStandard)
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	os.MkdirAll(to, 0o700)
	ents, _ := os.ReadDir(from)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(to, e.Name()), b, 0o600)
	}
}

// samePage compares two pages except where their bytes mean nothing, as
// PostgreSQL's wal_consistency_checking masks them: the hole between
// pd_lower and pd_upper (a page restored from an image has zeroes there,
// the original may hold old bytes), and the alignment padding after each
// tuple (AddItem copies the tuple, not its padding, so the padding keeps
// whatever the hole held).
func samePage(a, b page.Page) bool {
	lo, up := a.Lower(), a.Upper()
	if lo != b.Lower() || up != b.Upper() || lo > up {
		return bytes.Equal(a, b)
	}
	skip := make([]bool, page.Size)
	for i := lo; i < up; i++ {
		skip[i] = true
	}
	for o := page.OffsetNumber(1); o <= a.MaxOffset(); o++ {
		if it := a.Item(o); it.Flags == page.LPNormal {
			for i := it.Off + it.Len; i < it.Off+page.MaxAlignUp(it.Len); i++ {
				skip[i] = true
			}
		}
	}
	for i := range a[:page.Size] {
		if !skip[i] && a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReplayCrash simulates a crash: the data files as of a checkpoint
// (one page torn), plus the WAL written since, must replay to the pages
// the running system had. Replaying twice changes nothing (idempotence).
// Every change's delta is also checked on the spot: applied to the page as
// it was before, it must give the page after.
func TestReplayCrash(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		dir := t.TempDir()
		base := filepath.Join(dir, "base")
		sm, _ := smgr.Open(base)
		pool := buffer.New(sm, 64)
		w := openWAL(t, filepath.Join(dir, "wal"), FirstLSN, 0)
		pool.FlushWAL = w.Flush
		wl := &workload{t: t, r: rand.New(rand.NewSource(seed)), pool: pool, w: w, touched: map[page.BlockNumber]bool{}}
		const nblk = 12
		for i := 0; i < nblk; i++ {
			wl.extend()
		}
		for i := 0; i < 300; i++ {
			wl.change(page.BlockNumber(wl.r.Intn(nblk)))
		}
		// Checkpoint: redo point, then every dirty page written.
		redo := w.BeginCheckpoint()
		if _, err := pool.FlushAll(); err != nil {
			t.Fatal(err)
		}
		copyDir(t, base, filepath.Join(dir, "old"))
		wl.touched = map[page.BlockNumber]bool{}
		for i := 0; i < 600; i++ {
			wl.change(page.BlockNumber(wl.r.Intn(nblk)))
			if i%100 == 0 {
				wl.extend()
			}
		}
		// Some pages reach disk before the crash, others not.
		for i := 0; i < 30; i++ {
			wl.change(page.BlockNumber(wl.r.Intn(nblk)))
		}
		if err := w.Flush(w.InsertPos()); err != nil {
			t.Fatal(err)
		}
		nb, _ := sm.NBlocks(redoRel, smgr.MainFork)
		want := make([]page.Page, nb)
		for blk := range want {
			b, _ := pool.Read(nil, buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: page.BlockNumber(blk)}, nil)
			want[blk] = append(page.Page(nil), pool.Page(b)...)
			pool.Release(b)
		}
		w.Close()

		// Crash: the old copy, with a torn write on a page changed since.
		var torn page.BlockNumber
		for blk := range wl.touched {
			if blk < nblk {
				torn = blk
				break
			}
		}
		oldFile := filepath.Join(dir, "old", "5000")
		raw, _ := os.ReadFile(oldFile)
		wl.r.Read(raw[int(torn)*page.Size+page.Size/2 : int(torn+1)*page.Size])
		os.WriteFile(oldFile, raw, 0o600)

		sm2, _ := smgr.Open(filepath.Join(dir, "old"))
		pool2 := buffer.New(sm2, 64)
		pool2.FlushWAL = func(page.LSN) error { return nil }
		res, err := Replay(filepath.Join(dir, "wal"), pool2, redo)
		if err != nil {
			t.Fatal(err)
		}
		if res.Records == 0 || res.MaxXid != 42 {
			t.Fatalf("%+v", res)
		}
		check := func(what string) {
			for blk := range want {
				b, err := pool2.Read(nil, buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: page.BlockNumber(blk)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !samePage(want[blk], pool2.Page(b)) {
					a, g := want[blk], pool2.Page(b)
					t.Logf("want lower %d upper %d, got lower %d upper %d, lsn %x %x", a.Lower(), a.Upper(), g.Lower(), g.Upper(), a.LSN(), g.LSN())
					for i := range a {
						if a[i] != g[i] {
							t.Logf("first diff at %d", i)
							break
						}
					}
					t.Fatalf("seed %d %s: block %d differs after replay (torn %d)", seed, what, blk, torn)
				}
				pool2.Release(b)
			}
		}
		check("first replay")
		// Write everything out and replay again, from a fresh pool.
		if _, err := pool2.FlushAll(); err != nil {
			t.Fatal(err)
		}
		pool2.DropRelation(redoRel, smgr.MainFork, 0, true)
		res2, err := Replay(filepath.Join(dir, "wal"), pool2, redo)
		if err != nil || res2 != res {
			t.Fatalf("second replay: %+v %v", res2, err)
		}
		check("second replay")
		sm.Close()
		sm2.Close()
	}
}

// TestRedoRmgrCallback: Replay runs the record's resource manager after
// its blocks, and stops with an error when redo fails.
func TestRedoRmgrCallback(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	for i := 0; i < 5; i++ {
		w.Insert(nil, NewRecord(31, uint8(i), uint32(10+i)))
	}
	w.Close()
	var infos []uint8
	Register(31, Rmgr{Name: "T", Redo: func(d *Decoded) error { infos = append(infos, d.Info); return nil }})
	defer func() { rmgrMu.Lock(); rmgrs[31] = nil; rmgrMu.Unlock() }()
	sm, _ := smgr.Open(t.TempDir())
	defer sm.Close()
	pool := buffer.New(sm, 16)
	res, err := Replay(dir, pool, FirstLSN)
	if err != nil || res.Records != 5 || len(infos) != 5 || infos[4] != 4 || res.MaxXid != 14 {
		t.Fatalf("%+v %v %v", res, err, infos)
	}
	Register(31, Rmgr{Name: "T", Redo: func(d *Decoded) error {
		if d.Info == 2 {
			return io.ErrUnexpectedEOF
		}
		return nil
	}})
	if _, err := Replay(dir, pool, FirstLSN); err == nil {
		t.Fatal("redo error ignored")
	}
}

// TestRedoSkipsNewerPages: a delta is not applied to a page whose LSN
// already covers the record (the page reached disk before the crash).
func TestRedoSkipsNewerPages(t *testing.T) {
	dir := t.TempDir()
	sm, _ := smgr.Open(filepath.Join(dir, "base"))
	defer sm.Close()
	pool := buffer.New(sm, 16)
	w := openWAL(t, filepath.Join(dir, "wal"), FirstLSN, 0)
	pool.FlushWAL = w.Flush
	tag := buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: 0}
	b, _, _ := pool.Extend(nil, redoRel, smgr.MainFork, nil)
	p := pool.Page(b)
	logged := func(d *page.Delta) page.LSN {
		rec := NewRecord(RmHeap, 0, 7)
		rec.AddBlock(tag, p, BlockStandard, d)
		end, err := w.Insert(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		p.SetLSN(end)
		return end
	}
	var d page.Delta
	page.Init(p, 0, &d)
	logged(&d)
	start := w.InsertPos() // replay from after the init record
	d.Reset()
	d.PutUint32(p, 1000, 0xAAAAAAAA)
	logged(&d)
	d.Reset()
	d.PutUint32(p, 1000, 0xBBBBBBBB)
	end := logged(&d)
	// An unlogged change after the last record: if redo re-applied either
	// delta, it would be overwritten.
	p[1000] = 0xCC
	pool.MarkDirty(nil, b)
	pool.UnlockRelease(b, buffer.Exclusive)
	pool.FlushAll()
	w.Close()
	pool.DropRelation(redoRel, smgr.MainFork, 0, true)
	res, err := Replay(filepath.Join(dir, "wal"), pool, start)
	if err != nil || res.Records != 2 {
		t.Fatal(res, err)
	}
	b, _ = pool.Read(nil, tag, nil)
	defer pool.Release(b)
	if p := pool.Page(b); p.LSN() != end || p[1000] != 0xCC || pool.IsDirty(b) {
		t.Fatalf("lsn %x byte %x: a delta was applied to a newer page", p.LSN(), p[1000])
	}
}
