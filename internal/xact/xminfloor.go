package xact

// SetXminFloor makes the backend keep advertising an xmin no newer than
// floor (0: no floor) until it is changed again. A session sets it while it
// holds a snapshot across statements — an open cursor reads with the
// snapshot of its DECLARE — because the statements in between take newer
// snapshots, and without the floor the pruning horizon would move past
// rows the cursor must still see.
func (m *Manager) SetXminFloor(p *Proc, floor XID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p.xminFloor.Store(floor)
	if floor != 0 {
		if x := p.xmin.Load(); x == 0 || Follows(x, floor) {
			p.xmin.Store(floor)
		}
	}
}
