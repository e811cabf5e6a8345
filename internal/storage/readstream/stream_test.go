package readstream

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

const testRel = smgr.RelFileNumber(7001)

// setup writes nblocks blocks, each stamped with its number at byte 100,
// and returns a pool of nbuf frames over them.
func setup(t *testing.T, nblocks, nbuf int) (*buffer.Pool, *smgr.Manager) {
	t.Helper()
	m, err := smgr.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.Create(testRel, smgr.MainFork); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, page.Size)
	for b := 0; b < nblocks; b++ {
		binary.LittleEndian.PutUint32(buf[100:], uint32(b)^0xabcd)
		if err := m.Write(testRel, smgr.MainFork, page.BlockNumber(b), buf); err != nil {
			t.Fatal(err)
		}
	}
	p := buffer.New(m, nbuf)
	p.IO = stats.NewIO()
	return p, m
}

func stamp(p *buffer.Pool, b buffer.Buffer) uint32 {
	return binary.LittleEndian.Uint32(p.Page(b)[100:]) ^ 0xabcd
}

// sequence makes a callback order mixing sequential runs, jumps and
// repeats.
func sequence(r *rand.Rand, nblocks, n int) []page.BlockNumber {
	var seq []page.BlockNumber
	cur := r.IntN(nblocks)
	for len(seq) < n {
		switch r.IntN(10) {
		case 0, 1:
			cur = r.IntN(nblocks) // jump
		case 2:
			// repeat the current block
		default:
			cur = (cur + 1) % nblocks
		}
		seq = append(seq, page.BlockNumber(cur))
	}
	return seq
}

func callback(seq []page.BlockNumber) BlockFunc {
	i := 0
	return func() (page.BlockNumber, bool) {
		if i >= len(seq) {
			return 0, false
		}
		i++
		return seq[i-1], true
	}
}

// TestStreamProperty: whatever is cached, whatever the settings, the
// stream returns exactly the callback's blocks in order, with the right
// contents, every block counted once as a hit or a read, and no pin left
// behind.
func TestStreamProperty(t *testing.T) {
	const nblocks = 300
	for iter := 0; iter < 60; iter++ {
		r := rand.New(rand.NewPCG(uint64(iter), 42))
		p, _ := setup(t, nblocks, 64+r.IntN(200))
		for i := r.IntN(150); i > 0; i-- { // warm a random subset
			b, err := p.Read(nil, buffer.Tag{Rel: testRel, Fork: smgr.MainFork, Block: page.BlockNumber(r.IntN(nblocks))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p.Release(b)
		}
		u := &stats.Usage{IO: stats.IOSettings{Set: true, CombineLimit: 1 + r.IntN(32), Concurrency: r.IntN(12), MaintenanceConcurrency: r.IntN(12)}}
		var ring *buffer.Strategy
		if r.IntN(2) == 0 {
			ring = p.NewStrategy(buffer.BulkRead, 256<<10)
		}
		seq := sequence(r, nblocks, 1+r.IntN(600))
		stop := len(seq)
		if r.IntN(4) == 0 {
			stop = r.IntN(len(seq)) // the consumer gives up early
		}
		st := New(p, u, testRel, smgr.MainFork, callback(seq), Options{Strategy: ring, Maintenance: r.IntN(2) == 0})
		got := 0
		for got < stop {
			b, blk, ok, err := st.Next()
			if err != nil {
				t.Fatalf("iter %d: %v", iter, err)
			}
			if !ok {
				break
			}
			if blk != seq[got] || stamp(p, b) != uint32(seq[got]) {
				t.Fatalf("iter %d: item %d: got block %d stamped %d, want %d", iter, got, blk, stamp(p, b), seq[got])
			}
			p.Release(b)
			got++
		}
		if stop == len(seq) {
			if _, _, ok, err := st.Next(); ok || err != nil {
				t.Fatalf("iter %d: stream went on past the callback's end (%v)", iter, err)
			}
		}
		if got != stop {
			t.Fatalf("iter %d: got %d blocks, want %d", iter, got, stop)
		}
		st.Close()
		if _, _, pinned := p.Stats(); pinned != 0 {
			t.Fatalf("iter %d: %d buffers still pinned after Close", iter, pinned)
		}
		if stop == len(seq) {
			if n := u.Buf.SharedHit + u.Buf.SharedRead; n != int64(len(seq)) {
				t.Fatalf("iter %d: hits %d + reads %d, want %d blocks", iter, u.Buf.SharedHit, u.Buf.SharedRead, len(seq))
			}
		}
	}
}

// TestStreamCombines: a cold sequential stream reads io_combine_limit
// blocks per system call, counts blocks (not calls) as reads, and skips
// resident blocks without I/O.
func TestStreamCombines(t *testing.T) {
	p, _ := setup(t, 100, 1000)
	for _, blk := range []page.BlockNumber{40, 41} {
		b, err := p.Read(nil, buffer.Tag{Rel: testRel, Fork: smgr.MainFork, Block: blk}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Release(b)
	}
	p.IO.Reset()
	u := &stats.Usage{IO: stats.IOSettings{Set: true, CombineLimit: 16, Concurrency: 1, MaintenanceConcurrency: 10}}
	seq := make([]page.BlockNumber, 100)
	for i := range seq {
		seq[i] = page.BlockNumber(i)
	}
	st := New(p, u, testRel, smgr.MainFork, callback(seq), Options{})
	for i := 0; ; i++ {
		b, _, ok, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		p.Release(b)
	}
	st.Close()
	row := p.IO.Snapshot(stats.ClientBackend, stats.ObjRelation, stats.CtxNormal)
	if row.Counts[stats.OpRead] != 98 || row.Counts[stats.OpHit] != 2 || u.Buf.SharedRead != 98 || u.Buf.SharedHit != 2 {
		t.Fatalf("reads %d hits %d (usage %d/%d), want 98 and 2", row.Counts[stats.OpRead], row.Counts[stats.OpHit], u.Buf.SharedRead, u.Buf.SharedHit)
	}
	// Runs: 0..39 (distance still growing: 1, 2, 4, 8, then 16s), 42..99.
	// Far fewer calls than blocks, and at least ceil(98/16) = 7.
	if c := row.Calls[stats.CallRead]; c < 7 || c > 20 {
		t.Fatalf("%d read calls for 98 blocks, want between 7 and 20", c)
	}

	// Without combining and look-ahead, one call per block.
	p2, _ := setup(t, 100, 1000)
	u2 := &stats.Usage{IO: stats.IOSettings{Set: true, CombineLimit: 1, Concurrency: 0}}
	st2 := New(p2, u2, testRel, smgr.MainFork, callback(seq), Options{})
	for {
		b, _, ok, err := st2.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		p2.Release(b)
	}
	st2.Close()
	if c := p2.IO.Snapshot(stats.ClientBackend, stats.ObjRelation, stats.CtxNormal).Calls[stats.CallRead]; c != 100 {
		t.Fatalf("io_combine_limit = 1: %d read calls, want 100", c)
	}
}

// TestStreamDistanceRegimes: all cached keeps the distance at 1; cold
// sequential grows it to io_combine_limit; cold random with concurrency
// grows it to the pin limit.
func TestStreamDistanceRegimes(t *testing.T) {
	p, _ := setup(t, 400, 4096)
	u := &stats.Usage{IO: stats.IOSettings{Set: true, CombineLimit: 8, Concurrency: 16}}
	run := func(seq []page.BlockNumber) (maxDist int) {
		st := New(p, u, testRel, smgr.MainFork, callback(seq), Options{})
		defer st.Close()
		for {
			b, _, ok, err := st.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return
			}
			p.Release(b)
			maxDist = max(maxDist, st.Distance())
		}
	}
	var seqBlocks, random []page.BlockNumber
	for i := 0; i < 150; i++ {
		seqBlocks = append(seqBlocks, page.BlockNumber(i))
	}
	for i := 0; i < 100; i++ {
		random = append(random, page.BlockNumber(200+(i*37)%200))
	}
	if d := run(seqBlocks); d != 16 {
		t.Fatalf("cold sequential: distance reached %d, want twice io_combine_limit 8 (one run in flight, one consumed)", d)
	}
	uSync := &stats.Usage{IO: stats.IOSettings{Set: true, CombineLimit: 8, Concurrency: 0}}
	st0 := New(p, uSync, testRel, smgr.MainFork, callback(seqBlocks), Options{})
	st0.Close()
	if st0.MaxPinned() != 8 {
		t.Fatalf("effective_io_concurrency = 0: pin limit %d, want io_combine_limit 8", st0.MaxPinned())
	}
	if d := run(seqBlocks); d != 1 {
		t.Fatalf("all cached: distance reached %d, want 1", d)
	}
	st := New(p, u, testRel, smgr.MainFork, callback(random), Options{})
	want := st.MaxPinned()
	st.Close()
	if d := run(random); d != want || want <= 8 {
		t.Fatalf("cold random: distance reached %d, want the pin limit %d (> 8)", d, want)
	}
}

// TestStreamReadError: EIO or a short read in a streamed read fails the
// stream with PostgreSQL's message, after the blocks before it, and
// leaves no pin and no invalid block behind.
func TestStreamReadError(t *testing.T) {
	for _, fault := range []error{syscall.EIO, smgr.ErrShortRead} {
		p, m := setup(t, 64, 200)
		const bad = 37
		m.SetReadFault(func(rel smgr.RelFileNumber, f smgr.ForkNumber, blk page.BlockNumber) error {
			if blk == bad {
				return fault
			}
			return nil
		})
		seq := make([]page.BlockNumber, 64)
		for i := range seq {
			seq[i] = page.BlockNumber(i)
		}
		u := &stats.Usage{}
		st := New(p, u, testRel, smgr.MainFork, callback(seq), Options{})
		var gotErr error
		n := 0
		for {
			b, blk, ok, err := st.Next()
			if err != nil {
				gotErr = err
				break
			}
			if !ok {
				break
			}
			if blk != seq[n] || stamp(p, b) != uint32(blk) {
				t.Fatalf("block %d: wrong contents", blk)
			}
			p.Release(b)
			n++
		}
		st.Close()
		want := fmt.Sprintf("could not read block %d in file", bad)
		if gotErr == nil || !strings.Contains(gotErr.Error(), want) || n > bad {
			t.Fatalf("%v: after %d blocks got error %v, want %q", fault, n, gotErr, want)
		}
		if _, _, pinned := p.Stats(); pinned != 0 {
			t.Fatalf("%d buffers pinned after the failed stream", pinned)
		}
		if p.Cached(buffer.Tag{Rel: testRel, Fork: smgr.MainFork, Block: bad}) {
			t.Fatal("the block that failed to read stayed in the pool")
		}
		m.SetReadFault(nil)
		b, err := p.Read(nil, buffer.Tag{Rel: testRel, Fork: smgr.MainFork, Block: bad}, nil)
		if err != nil || stamp(p, b) != bad {
			t.Fatalf("reading block %d again: %v", bad, err)
		}
		p.Release(b)
	}
}
