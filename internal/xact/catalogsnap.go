package xact

import "sort"

// CatalogSnapshot takes a snapshot of the latest committed state for
// reading system catalogs (PostgreSQL's catalog snapshot). Unlike
// GetSnapshot it leaves p's advertised xmin alone: a repeatable-read
// transaction's horizon must stay where its transaction snapshot put it.
func (m *Manager) CatalogSnapshot(p *Proc) *Snapshot {
	m.mu.Lock()
	s := &Snapshot{Xmax: m.nextXid, Own: p.xid.Load()}
	xmin := s.Xmax
	for x := range m.running {
		if x != s.Own {
			s.Xip = append(s.Xip, x)
		}
		if Precedes(x, xmin) {
			xmin = x
		}
	}
	s.Xmin = xmin
	m.mu.Unlock()
	sort.Slice(s.Xip, func(i, j int) bool { return Precedes(s.Xip[i], s.Xip[j]) })
	return s
}
