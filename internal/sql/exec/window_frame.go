package exec

import (
	"math"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// PostgreSQL's FRAMEOPTION_* bits (parsenodes.h), as the parser sets them
// in WindowDef.FrameOptions.
const (
	frameNonDefault              int32 = 0x00001
	frameRange                   int32 = 0x00002
	frameRows                    int32 = 0x00004
	frameGroups                  int32 = 0x00008
	frameBetween                 int32 = 0x00010
	frameStartUnboundedPreceding int32 = 0x00020
	frameEndUnboundedFollowing   int32 = 0x00100
	frameStartCurrentRow         int32 = 0x00200
	frameEndCurrentRow           int32 = 0x00400
	frameStartOffsetPreceding    int32 = 0x00800
	frameEndOffsetPreceding      int32 = 0x01000
	frameStartOffsetFollowing    int32 = 0x02000
	frameEndOffsetFollowing      int32 = 0x04000
	frameExcludeCurrentRow       int32 = 0x08000
	frameExcludeGroup            int32 = 0x10000
	frameExcludeTies             int32 = 0x20000

	frameStartOffset = frameStartOffsetPreceding | frameStartOffsetFollowing
	frameEndOffset   = frameEndOffsetPreceding | frameEndOffsetFollowing
	frameExclusion   = frameExcludeCurrentRow | frameExcludeGroup | frameExcludeTies
	frameDefaults    = frameRange | frameStartUnboundedPreceding | frameEndCurrentRow
)

// frameOffset evaluates a frame offset once per scan, as PostgreSQL does;
// ROWS and GROUPS offsets must be non-null and non-negative (a RANGE
// offset's sign is checked by its comparison, row by row).
func (s *WindowSpec) frameOffset(c *Ctx, e expr.Expr, which string) (types.Datum, error) {
	if e == nil {
		return types.Null(), nil
	}
	d, err := e.Eval(c.Env, nil)
	if err != nil {
		return d, err
	}
	if d.IsNull() {
		return d, pgerr.Errorf(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
	}
	if s.Frame&(frameRows|frameGroups) != 0 && d.Int() < 0 {
		return d, pgerr.Errorf(pgerr.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
	}
	return d, nil
}

// frames computes every row's frame bounds (before exclusion). Heads and
// tails only move forward as the current row does, so RANGE offsets are
// found by scanning on from the previous row's bound.
func (w *WindowAgg) frames(c *Ctx, p *winPartition) error {
	n := len(p.rows)
	ngroups := len(p.gstart) - 1
	opts := w.Win.Frame
	p.head, p.tail = make([]int, n), make([]int, n)
	h, t := 0, 0
	for i := 0; i < n; i++ {
		if i%1024 == 0 {
			if err := c.checkCancel(); err != nil {
				return err
			}
		}
		g := p.group[i]
		switch {
		case opts&frameStartUnboundedPreceding != 0:
			p.head[i] = 0
		case opts&frameStartCurrentRow != 0:
			p.head[i] = p.gstart[g]
			if opts&frameRows != 0 {
				p.head[i] = i
			}
		case opts&frameRows != 0:
			p.head[i] = max(0, clampPos(i, w.startOff.Int(), opts&frameStartOffsetPreceding != 0, n))
		case opts&frameGroups != 0:
			p.head[i] = p.gstart[max(0, clampPos(g, w.startOff.Int(), opts&frameStartOffsetPreceding != 0, ngroups))]
		default:
			sub, less := opts&frameStartOffsetPreceding != 0, false
			for ; h < n; h++ {
				ok, err := w.rangeBound(c, p, w.Win.startRange, w.startOff, h, i, sub, less, true)
				if err != nil {
					return err
				}
				if ok {
					break
				}
			}
			p.head[i] = h
		}
		switch {
		case opts&frameEndUnboundedFollowing != 0:
			p.tail[i] = n
		case opts&frameEndCurrentRow != 0:
			p.tail[i] = p.gstart[g+1]
			if opts&frameRows != 0 {
				p.tail[i] = i + 1
			}
		case opts&frameRows != 0:
			p.tail[i] = clampPos(i, w.endOff.Int(), opts&frameEndOffsetPreceding != 0, n-1) + 1
		case opts&frameGroups != 0:
			last := clampPos(g, w.endOff.Int(), opts&frameEndOffsetPreceding != 0, ngroups-1)
			p.tail[i] = p.gstart[last+1]
		default:
			sub, less := opts&frameEndOffsetPreceding != 0, true
			for ; t < n; t++ {
				stop, err := w.rangeBound(c, p, w.Win.endRange, w.endOff, t, i, sub, less, false)
				if err != nil {
					return err
				}
				if stop {
					break
				}
			}
			p.tail[i] = t
		}
	}
	return nil
}

// clampPos is pos ∓ off (minus when preceding), limited to -1..max (the
// arithmetic cannot overflow: off may be as large as int64 allows).
func clampPos(pos int, off int64, preceding bool, max int) int {
	if preceding {
		if off > int64(pos) {
			return -1
		}
		return pos - int(off)
	}
	if off > int64(max-pos) {
		return max
	}
	return pos + int(off)
}

// rangeBound decides one step of a RANGE-offset frame bound for current
// row cur, as PostgreSQL's update_frameheadpos/update_frametailpos: for
// the head, whether row j is the first row of the frame (true stops the
// scan); for the tail, whether row j is past the frame's end.
func (w *WindowAgg) rangeBound(c *Ctx, p *winPartition, ro *rangeOffset, off types.Datum, j, cur int, sub, less, head bool) (bool, error) {
	key := w.Win.Order[0]
	if key.Desc {
		sub, less = !sub, !less
	}
	v, base := p.keys[j][0], p.keys[cur][0]
	if v.IsNull() || base.IsNull() {
		if head {
			if key.NullsFirst {
				return !v.IsNull() || base.IsNull(), nil
			}
			return v.IsNull() || !base.IsNull(), nil
		}
		if key.NullsFirst {
			return !v.IsNull(), nil
		}
		return !base.IsNull(), nil
	}
	in, err := ro.inRange(c, v, base, off, sub, less)
	if head {
		return in, err
	}
	return !in, err
}

// rangeOffset compares a row's ORDER BY value with the current row's
// plus or minus the RANGE offset, as PostgreSQL's in_range support
// functions: in_range(val, base, offset, sub, less) is val <= base±offset
// when less, else val >= base±offset (minus when sub).
type rangeOffset struct {
	keyT types.Type
	// plus/minus compute base ± offset over the row [base, offset] (types
	// other than integers and floats); sumT is their result type, toSum
	// converts val to it (a date compared with date ± interval).
	plus, minus expr.Expr
	sumT        types.Type
	toSum       expr.Expr
	zero        types.Datum // the offset type's zero (sign check)
}

func (ro *rangeOffset) negative(off types.Datum) bool {
	t := ro.keyT
	switch {
	case types.IsInteger(t):
		return off.Int() < 0
	case types.IsFloat(t):
		return math.IsNaN(off.Float()) || off.Float() < 0
	}
	if t.OID == types.NumericOID {
		sp, neg, _, _, _ := datum.NumericHeader(off.Str())
		return sp == datum.NumericNaN || neg
	}
	return types.Compare(types.Interval, off, ro.zero) < 0
}

func (ro *rangeOffset) inRange(c *Ctx, val, base, off types.Datum, sub, less bool) (bool, error) {
	if ro.negative(off) {
		return false, pgerr.Errorf(pgerr.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")
	}
	switch {
	case types.IsInteger(ro.keyT):
		return intInRange(val.Int(), base.Int(), off.Int(), sub, less), nil
	case types.IsFloat(ro.keyT):
		return floatInRange(val.Float(), base.Float(), off.Float(), sub, less), nil
	case ro.keyT.OID == types.TimeOID:
		// in_range_time_interval: only the offset's time part counts, and
		// the bound does not wrap around midnight as time + interval does
		return intInRange(val.Int(), base.Int(), types.IntervalOf(off).Micros, sub, less), nil
	}
	if ro.keyT.OID == types.NumericOID {
		if r, decided := numericInRangeSpecial(val, base, off, sub, less); decided {
			return r, nil
		}
	}
	sumE := ro.plus
	if sub {
		sumE = ro.minus
	}
	sum, err := sumE.Eval(c.Env, Row{base, off})
	if err != nil {
		return false, err
	}
	v, err := ro.toSum.Eval(c.Env, Row{val})
	if err != nil {
		return false, err
	}
	cmp := types.Compare(ro.sumT, v, sum)
	if less {
		return cmp <= 0, nil
	}
	return cmp >= 0, nil
}

// intInRange: base ± off overflowing means the bound is beyond every value.
func intInRange(val, base, off int64, sub, less bool) bool {
	if sub {
		off = -off
	}
	sum := base + off
	if (off > 0 && sum < base) || (off < 0 && sum > base) {
		if sub {
			return !less
		}
		return less
	}
	if less {
		return val <= sum
	}
	return val >= sum
}

// floatInRange follows in_range_float8_float8: NaN sorts after all other
// values, and an infinite offset from an infinite base of the "wrong"
// sign (whose sum would be NaN) admits every value.
func floatInRange(val, base, off float64, sub, less bool) bool {
	if math.IsNaN(val) {
		if math.IsNaN(base) {
			return true
		}
		return !less
	}
	if math.IsNaN(base) {
		return less
	}
	if math.IsInf(off, 0) && math.IsInf(base, 0) && ((sub && base > 0) || (!sub && base < 0)) {
		return true
	}
	sum := base + off
	if sub {
		sum = base - off
	}
	if less {
		return val <= sum
	}
	return val >= sum
}

// numericInRangeSpecial decides in_range_numeric_numeric's cases that
// involve NaN or an infinite offset (the offset is known non-negative).
func numericInRangeSpecial(val, base, off types.Datum, sub, less bool) (result, decided bool) {
	vs, _, _, _, _ := datum.NumericHeader(val.Str())
	bs, _, _, _, _ := datum.NumericHeader(base.Str())
	os, _, _, _, _ := datum.NumericHeader(off.Str())
	switch {
	case vs == datum.NumericNaN:
		return bs == datum.NumericNaN || !less, true
	case bs == datum.NumericNaN:
		return less, true
	case os != datum.NumericPInf:
		return false, false
	case (sub && bs == datum.NumericPInf) || (!sub && bs == datum.NumericNInf):
		return true, true // base ∓ inf would be NaN: every value is in range
	case sub:
		return !less || vs == datum.NumericNInf, true
	}
	return less || vs == datum.NumericPInf, true
}
