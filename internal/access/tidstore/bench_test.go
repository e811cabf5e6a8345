package tidstore

import "testing"

type benchBlock struct {
	blk  BlockNumber
	offs []OffsetNumber
}

// benchPatterns are the patterns the benchmarks run on.
var benchPatterns = []deadPattern{deadPatterns[0], deadPatterns[2]} // dense, sparse

func patternBlockList(rows int64, dead func(int64) bool) (blocks []benchBlock, tids int64) {
	patternBlocks(rows, dead, func(blk BlockNumber, offs []OffsetNumber) {
		blocks = append(blocks, benchBlock{blk, append([]OffsetNumber(nil), offs...)})
		tids += int64(len(offs))
	})
	return blocks, tids
}

// BenchmarkSetBlockOffsets measures one SetBlockOffsets call (one heap
// block) while filling a store with the N = 10 M row pattern; when the
// pattern is exhausted the store is Reset and refilled, as between index
// passes. ns/TID divides by the pattern's dead TIDs per block.
func BenchmarkSetBlockOffsets(b *testing.B) {
	for _, p := range benchPatterns {
		blocks, tids := patternBlockList(benchRows, p.dead)
		for _, kind := range kinds {
			b.Run(kind+"/"+p.name, func(b *testing.B) {
				var s Store
				if kind == KindArray {
					s = NewArray(1<<30, tableTIDs(benchRows))
				} else {
					s = NewRadix(1 << 30)
				}
				i := 0
				for b.Loop() {
					if i == len(blocks) {
						s.Reset()
						i = 0
					}
					s.SetBlockOffsets(blocks[i].blk, blocks[i].offs)
					i++
				}
				perBlock := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(perBlock*float64(len(blocks))/float64(tids), "ns/TID")
			})
		}
	}
}

// BenchmarkIsMember measures one bulk-delete callback against a store
// holding the N = 10 M row pattern. "seq" probes every row's TID in heap
// order (an index correlated with the heap, like t_id_idx); "random" probes
// rows in a scattered order.
func BenchmarkIsMember(b *testing.B) {
	for _, p := range benchPatterns {
		for _, kind := range kinds {
			var s Store
			if kind == KindArray {
				s = NewArray(1<<30, tableTIDs(benchRows))
			} else {
				s = NewRadix(1 << 30)
			}
			buildPattern(s, benchRows, p.dead)
			for _, order := range []string{"seq", "random"} {
				b.Run(kind+"/"+p.name+"/"+order, func(b *testing.B) {
					var id, step int64 = 0, 1
					if order == "random" {
						step = 7_368_787 // coprime with N: visits every row once per N probes
					}
					hits := 0
					b.ResetTimer()
					// A plain b.N loop: b.Loop's own per-iteration cost (a few
					// ns) would dominate a lookup this cheap.
					for range b.N {
						id += step
						if id >= benchRows {
							id -= benchRows
						}
						if s.IsMember(BlockNumber(id/tuplesPerPage), OffsetNumber(id%tuplesPerPage+1)) {
							hits++
						}
					}
					if hits == 0 && b.N > 1000 {
						b.Fatal("no hits")
					}
				})
			}
		}
	}
}
