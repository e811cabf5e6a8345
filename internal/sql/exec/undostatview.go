package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// undoStatView is tidal_stat_undo: one row per table access method that
// keeps an undo log (tableam.UndoLogReporter). Byte counts since the
// server started, except retained and size, which are now.
var undoStatView = &systemView{
	cols: []Column{col("amname", types.Name),
		col("undo_bytes_written", types.Int8), col("undo_bytes_discarded", types.Int8),
		col("undo_bytes_retained", types.Int8), col("undo_size", types.Int8), col("undo_bytes_removed", types.Int8),
		col("insert_pos", types.Int8), col("discard_pos", types.Int8),
		col("oldest_xid", types.Xid), col("oldest_xid_age", types.Int4)},
	rows: func(c *Ctx) ([]Row, error) {
		var out []Row
		for _, am := range c.Eng.AMs.All() {
			r, ok := am.(tableam.UndoLogReporter)
			if !ok {
				continue
			}
			st, err := r.UndoLogStats()
			if err != nil {
				return nil, err
			}
			oldest, age := types.Null(), types.Null()
			if st.OldestXid != xact.InvalidXid {
				oldest = types.Int(int64(st.OldestXid))
				age = types.Int(int64(int32(c.Eng.Xact.NextXid() - st.OldestXid)))
			}
			out = append(out, Row{types.Str(am.Name()),
				types.Int(st.Written), types.Int(st.Discarded),
				types.Int(st.Retained), types.Int(st.Size), types.Int(st.Removed),
				types.Int(int64(st.InsertPos)), types.Int(int64(st.DiscardPos)),
				oldest, age})
		}
		return out, nil
	},
}
