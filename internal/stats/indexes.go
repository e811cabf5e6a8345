package stats

// IndexCounters are one index's counters (pg_stat_all_indexes): scans
// started, index entries returned, and live table rows fetched through
// them by plain index scans.
type IndexCounters struct {
	IdxScan, IdxTupRead, IdxTupFetch int64
}

// IndexScanned counts a scan of index oid that read entries index entries
// and fetched fetched table rows; the database's tup_returned and
// tup_fetched grow with them.
func (t *Tables) IndexScanned(oid uint32, entries, fetched int64) {
	t.mu.Lock()
	c := t.idx[oid]
	if c == nil {
		c = &IndexCounters{}
		t.idx[oid] = c
	}
	c.IdxScan++
	c.IdxTupRead += entries
	c.IdxTupFetch += fetched
	t.db.TupReturned += entries
	t.db.TupFetched += fetched
	t.mu.Unlock()
}

// Indexes copies every index's counters, by OID.
func (t *Tables) Indexes() map[uint32]IndexCounters {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[uint32]IndexCounters, len(t.idx))
	for k, v := range t.idx {
		out[k] = *v
	}
	return out
}
