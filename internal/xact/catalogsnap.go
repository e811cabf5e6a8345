package xact

// CatalogSnapshot takes a snapshot of the latest committed state for
// reading system catalogs (PostgreSQL's catalog snapshot). Unlike
// GetSnapshot it leaves p's advertised xmin alone: a repeatable-read
// transaction's horizon must stay where its transaction snapshot put it.
func (m *Manager) CatalogSnapshot(p *Proc) *Snapshot {
	m.mu.Lock()
	s := m.buildSnapshot(p)
	m.mu.Unlock()
	sortXids(s.Xip)
	return s
}
