package guc

// pg_stat_statements' settings (PostgreSQL 15's names, defaults and
// contexts; the module is built in), and compute_query_id.
func init() {
	def(Def{Name: "pg_stat_statements.max", Kind: Int, Default: "5000", Context: Postmaster, Min: 100, Max: intMax / 2,
		Desc: "Sets the maximum number of statements tracked by pg_stat_statements."})
	def(Def{Name: "pg_stat_statements.track", Kind: Enum, Default: "top", Context: Superuser, Enum: []string{"none", "top", "all"},
		Desc: "Selects which statements are tracked by pg_stat_statements."})
	def(Def{Name: "pg_stat_statements.track_utility", Kind: Bool, Default: "on", Context: Superuser,
		Desc: "Selects whether utility commands are tracked by pg_stat_statements."})
	def(Def{Name: "pg_stat_statements.track_planning", Kind: Bool, Default: "off", Context: Superuser,
		Desc: "Selects whether planning duration is tracked by pg_stat_statements."})
	def(Def{Name: "compute_query_id", Kind: Enum, Default: "auto", Context: Superuser, Enum: []string{"auto", "regress", "on", "off"},
		Desc: "Enables in-core computation of query identifiers."})
}
