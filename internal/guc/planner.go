package guc

// plannerDefs are the planner's method switches and cost settings, with
// PostgreSQL 15's names, defaults and descriptions.
//
// PostgreSQL's enable_* settings never forbid a plan: they discourage a
// method, and a query that has no other way to run still uses it. tidal's
// planner follows that rule where it has a choice to make (see
// internal/sql/exec/planswitch.go): enable_indexscan and enable_bitmapscan
// (tidal's Index Scan stands for both of PostgreSQL's index paths),
// enable_tidscan and enable_hashjoin. The other switches name methods
// tidal's planner does not have an alternative for (merge join, memoize,
// incremental sort, …), so, as in PostgreSQL when no alternative exists,
// they change nothing. The cost settings are kept for SET/SHOW and
// pg_settings; tidal's planner does not weigh costs yet.
func plannerDefs() {
	for _, s := range []struct{ name, def, desc string }{
		{"enable_async_append", "on", "Enables the planner's use of async append plans."},
		{"enable_bitmapscan", "on", "Enables the planner's use of bitmap-scan plans."},
		{"enable_gathermerge", "on", "Enables the planner's use of gather merge plans."},
		{"enable_hashagg", "on", "Enables the planner's use of hashed aggregation plans."},
		{"enable_hashjoin", "on", "Enables the planner's use of hash join plans."},
		{"enable_incremental_sort", "on", "Enables the planner's use of incremental sort steps."},
		{"enable_indexonlyscan", "on", "Enables the planner's use of index-only-scan plans."},
		{"enable_indexscan", "on", "Enables the planner's use of index-scan plans."},
		{"enable_material", "on", "Enables the planner's use of materialization."},
		{"enable_memoize", "on", "Enables the planner's use of memoization."},
		{"enable_mergejoin", "on", "Enables the planner's use of merge join plans."},
		{"enable_nestloop", "on", "Enables the planner's use of nested-loop join plans."},
		{"enable_parallel_append", "on", "Enables the planner's use of parallel append plans."},
		{"enable_parallel_hash", "on", "Enables the planner's use of parallel hash plans."},
		{"enable_partitionwise_aggregate", "off", "Enables partitionwise aggregation and grouping."},
		{"enable_partitionwise_join", "off", "Enables partitionwise join."},
		{"enable_seqscan", "on", "Enables the planner's use of sequential-scan plans."},
		{"enable_sort", "on", "Enables the planner's use of explicit sort steps."},
		{"enable_tidscan", "on", "Enables the planner's use of TID scan plans."},
		{"geqo", "on", "Enables genetic query optimization."},
		{"jit_expressions", "on", "Allow JIT compilation of expressions."},
		{"jit_tuple_deforming", "on", "Allow JIT compilation of tuple deforming."},
		{"escape_string_warning", "on", "Warn about backslash escapes in ordinary string literals."},
	} {
		def(Def{Name: s.name, Kind: Bool, Default: s.def, Context: User, Desc: s.desc})
	}
	for _, s := range []struct {
		name, def, desc string
		min             int64
	}{
		{"cpu_index_tuple_cost", "0.005", "Sets the planner's estimate of the cost of processing each index entry during an index scan.", 0},
		{"cpu_operator_cost", "0.0025", "Sets the planner's estimate of the cost of processing each operator or function call.", 0},
		{"cpu_tuple_cost", "0.01", "Sets the planner's estimate of the cost of processing each tuple (row).", 0},
		{"random_page_cost", "4", "Sets the planner's estimate of the cost of a nonsequentially fetched disk page.", 0},
		{"seq_page_cost", "1", "Sets the planner's estimate of the cost of a sequentially fetched disk page.", 0},
		{"jit_above_cost", "100000", "Perform JIT compilation if query is more expensive.", -1},
		{"jit_inline_above_cost", "500000", "Perform JIT inlining if query is more expensive.", -1},
		{"jit_optimize_above_cost", "500000", "Optimize JIT-compiled functions if query is more expensive.", -1},
	} {
		def(Def{Name: s.name, Kind: Real, Default: s.def, Context: User, Min: s.min, Desc: s.desc})
	}
	def(Def{Name: "cursor_tuple_fraction", Kind: Real, Default: "0.1", Context: User, FMin: 0, FMax: 1, Desc: "Sets the planner's estimate of the fraction of a cursor's rows that will be retrieved."})
	def(Def{Name: "effective_cache_size", Kind: Int, Default: "524288", Unit: "8kB", Context: User, Min: 1, Max: intMax, Desc: "Sets the planner's assumption about the total size of the data caches."})
	def(Def{Name: "from_collapse_limit", Kind: Int, Default: "8", Context: User, Min: 1, Max: intMax, Desc: "Sets the FROM-list size beyond which subqueries are not collapsed."})
	def(Def{Name: "join_collapse_limit", Kind: Int, Default: "8", Context: User, Min: 1, Max: intMax, Desc: "Sets the FROM-list size beyond which JOIN constructs are not flattened."})
	// tidal plans each execution of a prepared statement afresh (a custom
	// plan every time), so plan_cache_mode is kept for SET/SHOW and
	// EXPLAIN (SETTINGS) only.
	def(Def{Name: "plan_cache_mode", Kind: Enum, Default: "auto", Context: User, Enum: []string{"auto", "force_generic_plan", "force_custom_plan"}, Desc: "Controls the planner's selection of custom or generic plan."})
	def(Def{Name: "geqo_threshold", Kind: Int, Default: "12", Context: User, Min: 2, Max: intMax, Desc: "Sets the threshold of FROM items beyond which GEQO is used."})
}
