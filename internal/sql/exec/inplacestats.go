package exec

import "github.com/tidal-db/tidal/internal/access/tableam"

// inplaceCount counts a statement's in-place updates
// (pg_stat_user_tables.n_tup_inplace_upd); keyChanged of them changed an
// index key and so left a delete-marked entry for VACUUM (n_dead_tup).
type inplaceCount struct{ rows, keyChanged int64 }

func (n *inplaceCount) count(hint tableam.UpdateHint) {
	n.rows++
	if hint.ChangedIndexes != 0 {
		n.keyChanged++
	}
}
