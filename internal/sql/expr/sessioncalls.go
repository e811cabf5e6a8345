package expr

import "github.com/tidal-db/tidal/internal/sql/types"

// The builtins that read or change the state of the session they run in
// (settings, the transaction's id, notifications). They compile as
// CatalogCalls; the executor hands them to the session (exec.SessionHooks).
var sessionCalls = map[string]bool{}

// nonStrictCalls are the CatalogCalls that receive NULL arguments instead
// of returning NULL for them (PostgreSQL's proisstrict = false).
var nonStrictCalls = map[string]bool{"set_config": true, "pg_notify": true}

// IsSessionCall reports whether a CatalogCall is answered by the session.
func IsSessionCall(name string) bool { return sessionCalls[name] }

func init() {
	add := func(name string, args []types.Type, min int, ret types.Type) {
		catalogCalls[name] = struct {
			args []types.Type
			min  int
			ret  types.Type
		}{args, min, ret}
		sessionCalls[name] = true
	}
	add("current_setting", []types.Type{types.Text, types.Boolean}, 1, types.Text)
	add("set_config", []types.Type{types.Text, types.Text, types.Boolean}, 3, types.Text)
	add("txid_current", nil, 0, types.Int8)
	add("txid_current_if_assigned", nil, 0, types.Int8)
	add("pg_current_xact_id", nil, 0, types.Int8)
	add("pg_current_xact_id_if_assigned", nil, 0, types.Int8)
	add("txid_status", []types.Type{types.Int8}, 1, types.Text)
	add("pg_xact_status", []types.Type{types.Int8}, 1, types.Text)
	add("txid_current_snapshot", nil, 0, types.Text)
	add("pg_current_snapshot", nil, 0, types.Text)
	add("pg_notify", []types.Type{types.Text, types.Text}, 2, types.Void)
	add("current_user", nil, 0, types.Name)
	add("session_user", nil, 0, types.Name)
}
