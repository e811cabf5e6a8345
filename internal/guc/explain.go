package guc

// ExplainNames are the settings PostgreSQL 15 flags GUC_EXPLAIN: the ones
// EXPLAIN (SETTINGS) lists when they differ from their defaults, sorted
// by name as PostgreSQL lists them.
var ExplainNames = []string{
	"constraint_exclusion", "cpu_index_tuple_cost", "cpu_operator_cost", "cpu_tuple_cost",
	"cursor_tuple_fraction", "effective_cache_size", "effective_io_concurrency",
	"enable_async_append", "enable_bitmapscan", "enable_gathermerge", "enable_hashagg",
	"enable_hashjoin", "enable_incremental_sort", "enable_indexonlyscan", "enable_indexscan",
	"enable_material", "enable_memoize", "enable_mergejoin", "enable_nestloop",
	"enable_parallel_append", "enable_parallel_hash", "enable_partition_pruning",
	"enable_partitionwise_aggregate", "enable_partitionwise_join", "enable_seqscan",
	"enable_sort", "enable_tidscan", "force_parallel_mode", "from_collapse_limit", "geqo",
	"geqo_effort", "geqo_generations", "geqo_pool_size", "geqo_seed", "geqo_selection_bias",
	"geqo_threshold", "hash_mem_multiplier", "jit", "jit_above_cost", "jit_inline_above_cost",
	"jit_optimize_above_cost", "join_collapse_limit", "maintenance_io_concurrency",
	"max_parallel_workers", "max_parallel_workers_per_gather", "min_parallel_index_scan_size",
	"min_parallel_table_scan_size", "parallel_leader_participation", "parallel_setup_cost",
	"parallel_tuple_cost", "plan_cache_mode", "random_page_cost", "recursive_worktable_factor",
	"search_path", "seq_page_cost", "temp_buffers", "work_mem",
}
