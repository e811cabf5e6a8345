package exec

import "github.com/tidal-db/tidal/internal/sql/types"

// sum(interval) and avg(interval): the running sum is kept in st.val (an
// interval datum), the row count in st.count.

func stepIntervalSum(st *aggState, d types.Datum) error {
	if !st.set {
		st.val, st.set = d, true
		return nil
	}
	sum, err := types.IntervalSum(st.val, d)
	if err != nil {
		return err
	}
	st.val = sum
	return nil
}

func finalIntervalSum(name string, st *aggState) (types.Datum, error) {
	if !st.set {
		return types.Null(), nil
	}
	if name == "avg" {
		return types.IntervalDivide(st.val, float64(st.count))
	}
	return st.val, nil
}
