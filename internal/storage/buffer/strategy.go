package buffer

// StrategyKind names a buffer access strategy (BufferAccessStrategyType).
type StrategyKind int

const (
	BulkRead  StrategyKind = iota // large sequential scans: 256 KiB ring
	BulkWrite                     // COPY, CREATE TABLE AS: 16 MiB ring
	Vacuum                        // VACUUM: vacuum_buffer_usage_limit
)

func (k StrategyKind) String() string {
	switch k {
	case BulkRead:
		return "bulkread"
	case BulkWrite:
		return "bulkwrite"
	case Vacuum:
		return "vacuum"
	}
	return "normal"
}

// Strategy is a ring of frames a bulk operation recycles, so that it does
// not push the rest of the working set out of shared buffers. Frames that
// were already cached when the operation found them are not added to the
// ring (they are hits), just as PostgreSQL's rings only hold frames the
// operation itself brought in.
//
// A Strategy belongs to one backend and is not safe for concurrent use.
type Strategy struct {
	kind    StrategyKind
	ring    []int32 // frame ids, -1 empty
	current int
	lastPut bool
}

// NewStrategy makes a ring of ringBytes (at least one frame, at most an
// eighth of the pool, as GetAccessStrategyWithSize caps it).
func (p *Pool) NewStrategy(kind StrategyKind, ringBytes int) *Strategy {
	n := ringBytes / 8192
	if n < 1 {
		n = 1
	}
	if max := p.n / 8; n > max && max > 0 {
		n = max
	}
	s := &Strategy{kind: kind, ring: make([]int32, n), current: -1}
	for i := range s.ring {
		s.ring[i] = -1
	}
	return s
}

// Kind is the strategy's kind.
func (s *Strategy) Kind() StrategyKind { return s.kind }

// RingSize is the number of frames in the ring.
func (s *Strategy) RingSize() int { return len(s.ring) }

// next advances the ring and returns its frame pinned if it can be reused
// (unpinned, usage count ≤ 1), else -1 so the caller takes a frame from the
// clock sweep and puts it in this slot.
func (s *Strategy) next(p *Pool) int32 {
	s.current = (s.current + 1) % len(s.ring)
	id := s.ring[s.current]
	s.lastPut = false
	if id < 0 {
		return -1
	}
	d := &p.descs[id]
	d.hdr.Lock()
	if d.refcount == 0 && d.usage <= 1 {
		d.refcount = 1
		d.hdr.Unlock()
		return id
	}
	d.hdr.Unlock()
	return -1
}

func (s *Strategy) put(id int32) { s.ring[s.current] = id; s.lastPut = true }

// forget empties the current slot (its frame was rejected).
func (s *Strategy) forget() { s.ring[s.current] = -1 }
