package buffer

import "github.com/tidal-db/tidal/internal/stats"

// flushRingRun writes the dirty victim id, which this backend has pinned
// from its BulkWrite ring, together with the dirty frames in the ring's
// next slots that hold the following blocks of the same fork, as one
// combined write. A bulk load fills its ring with consecutive blocks, so
// one system call cleans up to MaxCombine slots (at most half the ring)
// and the next ones are reused without a write. Every block written is charged to u and to
// buffers_backend, as the writes of evicted buffers are.
func (p *Pool) flushRingRun(u *stats.Usage, s *Strategy, id int32) error {
	d := &p.descs[id]
	d.hdr.Lock()
	run := []dirtyBuf{{d.tag, id}}
	d.hdr.Unlock()
	// Only the older half of the ring: the newest slots may hold the page
	// the load is still filling, which would just be dirtied again.
	for j := 1; j < MaxCombine && j < len(s.ring)/2; j++ {
		next := s.ring[(s.current+j)%len(s.ring)]
		if next < 0 {
			break
		}
		nd := &p.descs[next]
		nd.hdr.Lock()
		t, ok := nd.tag, nd.valid && nd.dirty && nd.refcount == 0
		nd.hdr.Unlock()
		prev := run[len(run)-1].tag
		if !ok || t.Rel != prev.Rel || t.Fork != prev.Fork || t.Block != prev.Block+1 {
			break
		}
		run = append(run, dirtyBuf{t, next})
	}
	w := newRunWriter(p)
	_, written, err := w.writeRun(run)
	if err != nil {
		return err
	}
	if u != nil {
		u.Buf.SharedWritten += int64(written)
	}
	p.counters.backendWritten.Add(int64(written))
	return nil
}
