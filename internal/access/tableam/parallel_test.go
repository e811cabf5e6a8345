package tableam

import (
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/storage/page"
)

// Every block is claimed exactly once, however many participants race.
func TestParallelScanClaimsEveryBlockOnce(t *testing.T) {
	for _, nblocks := range []page.BlockNumber{0, 1, 7, 100, 4425, 100000} {
		ps := NewParallelScan(nblocks)
		seen := make([]int32, nblocks)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					s, e, ok := ps.Claim()
					if !ok {
						return
					}
					if s >= e || e > nblocks {
						t.Errorf("nblocks %d: bad chunk [%d, %d)", nblocks, s, e)
						return
					}
					mu.Lock()
					for b := s; b < e; b++ {
						seen[b]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for b, n := range seen {
			if n != 1 {
				t.Fatalf("nblocks %d: block %d claimed %d times", nblocks, b, n)
			}
		}
	}
}

// Chunks grow with the table (few claims on a big one) and end in single
// blocks (participants finish together).
func TestParallelScanChunkSizes(t *testing.T) {
	ps := NewParallelScan(100000)
	s, e, _ := ps.Claim()
	if e-s != 64 {
		t.Errorf("first chunk of 100000 blocks is %d blocks, want 64", e-s)
	}
	var last page.BlockNumber
	for {
		s, e, ok := ps.Claim()
		if !ok {
			break
		}
		last = e - s
	}
	if last != 1 {
		t.Errorf("last chunk is %d blocks, want 1", last)
	}
}
