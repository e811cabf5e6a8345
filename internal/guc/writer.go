package guc

// The checkpointer's and background writer's parameters, with PostgreSQL
// 15's names, units, defaults and ranges (Linux defaults for the
// *_flush_after ones).
func init() {
	def(Def{Name: "checkpoint_completion_target", Kind: Real, Default: "0.9", Context: Sighup, FMin: 0, FMax: 1,
		Desc: "Time spent flushing dirty buffers during checkpoint, as fraction of checkpoint interval."})
	def(Def{Name: "checkpoint_flush_after", Kind: Int, Default: "32", Unit: "8kB", Context: Sighup, Min: 0, Max: 256,
		Desc: "Number of pages after which previously performed writes are flushed to disk."})
	def(Def{Name: "max_wal_size", Kind: Int, Default: "1024", Unit: "MB", Context: Sighup, Min: 2, Max: 2147483647,
		Desc: "Sets the WAL size that triggers a checkpoint."})
	def(Def{Name: "bgwriter_delay", Kind: Int, Default: "200", Unit: "ms", Context: Sighup, Min: 10, Max: 10000,
		Desc: "Background writer sleep time between rounds."})
	def(Def{Name: "bgwriter_lru_maxpages", Kind: Int, Default: "100", Context: Sighup, Min: 0, Max: 1073741823,
		Desc: "Background writer maximum number of LRU pages to flush per round."})
	def(Def{Name: "bgwriter_lru_multiplier", Kind: Real, Default: "2", Context: Sighup, FMin: 0, FMax: 10,
		Desc: "Multiple of the average buffer usage to free per round."})
	def(Def{Name: "bgwriter_flush_after", Kind: Int, Default: "64", Unit: "8kB", Context: Sighup, Min: 0, Max: 256,
		Desc: "Number of pages after which previously performed writes are flushed to disk."})
}
