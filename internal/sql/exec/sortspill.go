package exec

import (
	"strconv"

	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
	"github.com/tidal-db/tidal/internal/tuplesort"
)

// settingKB reads an integer setting in kB (work_mem,
// maintenance_work_mem, temp_file_limit), def when unset or unreadable.
func (c *Ctx) settingKB(name string, def int64) int64 {
	if c.Setting == nil {
		return def
	}
	v, err := strconv.ParseInt(c.Setting(name), 10, 64)
	if err != nil {
		return def
	}
	return v
}

// tempSpace is the session's temporary-file space with this statement's
// temp_file_limit and log_temp_files, nil where there is none.
func (c *Ctx) tempSpace() *tempfile.Space {
	if c.TempFiles != nil {
		c.TempFiles.SetLimits(c.settingKB("temp_file_limit", -1), c.settingKB("log_temp_files", -1))
	}
	return c.TempFiles
}

// newTupleSort starts a sort bounded by memKB whose tuples hold key j's
// value in column cols[j]: the one sort every node that orders rows uses
// (Sort, and window partitions), spilling to the session's temporary
// files past the bound.
func (c *Ctx) newTupleSort(keys []SortKey, cols []int, memKB int64) *tuplesort.Sorter {
	cfg := tuplesort.Config{
		WorkMemKB: memKB,
		Compare: func(a, b tuplesort.Tuple) int {
			for j, k := range keys {
				if r := compareKey(k, a[cols[j]], b[cols[j]]); r != 0 {
					return r
				}
			}
			return 0
		},
		Usage: c.U(),
		Check: c.checkCancel,
	}
	if cfg.Space = c.tempSpace(); cfg.Space == nil {
		cfg.WorkMemKB = 1 << 40 // nowhere to spill
	}
	if len(keys) > 0 {
		k, col := keys[0], cols[0]
		t := k.Expr.Type()
		if _, ok := types.AbbrevKey(t, types.Int(0)); ok {
			cfg.Abbrev = func(tu tuplesort.Tuple) (uint64, bool) {
				if tu[col].IsNull() {
					return 0, false
				}
				key, _ := types.AbbrevKey(t, tu[col])
				if k.Desc {
					key = ^key
				}
				return key, true
			}
		}
	}
	return tuplesort.New(cfg)
}
