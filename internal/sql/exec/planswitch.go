package exec

// methodEnabled reports whether a planner method switch (enable_*, see
// internal/guc/planner.go) is on. As in PostgreSQL the switches only
// discourage a method: callers consult them where another plan exists,
// never to refuse a query.
func (p *Planner) methodEnabled(name string) bool {
	if p.C == nil || p.C.Setting == nil {
		return true
	}
	return p.C.Setting(name) != "off"
}

// indexPathsEnabled: tidal's Index Scan stands for both of PostgreSQL's
// index paths (index scan and bitmap heap scan), so it gives way to a
// sequential scan only when both are switched off.
func (p *Planner) indexPathsEnabled() bool {
	return p.methodEnabled("enable_indexscan") || p.methodEnabled("enable_bitmapscan")
}
