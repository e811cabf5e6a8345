package expr

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// HashedExists is EXISTS (SELECT … FROM … WHERE inner = outer AND …) run as
// a hashed semi join, as PostgreSQL runs the semi and anti joins it makes of
// EXISTS and NOT EXISTS: the subquery without its correlated equalities
// (Plan, uncorrelated, whose rows are the inner key values) runs once per
// statement into a hash table, and each evaluation probes it with the
// outer key values (Keys, evaluated against the row). A NULL key matches
// nothing; the result is never NULL.
type HashedExists struct {
	Plan *SubqueryPlan
	Keys []Expr
	// Test is the equality of the keys, evaluated against
	// [outer keys…, inner keys…].
	Test Expr

	table *hashedTable // shared by the copies MapVars makes
}

type hashedTable struct {
	env  *Env
	rows map[uint64][][]types.Datum
}

// NewHashedExists makes the expression; Plan.Types are the inner keys'.
func NewHashedExists(plan *SubqueryPlan, keys []Expr, test Expr) *HashedExists {
	return &HashedExists{Plan: plan, Keys: keys, Test: test, table: &hashedTable{}}
}

func (h *HashedExists) Type() types.Type { return types.Boolean }
func (h *HashedExists) String() string {
	return fmt.Sprintf("(hashed SubPlan %d)", h.Plan.ID)
}

func hashKeys(ts []types.Type, vals []types.Datum) (uint64, bool) {
	var hv uint64 = 14695981039346656037
	for i, d := range vals {
		if d.IsNull() {
			return 0, false
		}
		hv = (hv ^ types.Hash(ts[i], d)) * 1099511628211
	}
	return hv, true
}

// build runs the subquery once per statement (env) into the table.
func (h *HashedExists) build(env *Env) error {
	t := h.table
	if t.env == env && t.rows != nil {
		return nil
	}
	rows := map[uint64][][]types.Datum{}
	err := h.Plan.Run(env, func(r []types.Datum) (bool, error) {
		keys := r[:len(h.Keys)]
		if hv, ok := hashKeys(h.Plan.Types, keys); ok {
			rows[hv] = append(rows[hv], append([]types.Datum(nil), keys...))
		}
		return len(h.Keys) > 0, nil // without keys, one row answers
	})
	if err != nil {
		return err
	}
	t.env, t.rows = env, rows
	return nil
}

func (h *HashedExists) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	if env == nil {
		env = &Env{}
	}
	probe := make([]types.Datum, len(h.Keys), 2*len(h.Keys))
	ts := make([]types.Type, len(h.Keys))
	for i, k := range h.Keys {
		d, err := k.Eval(env, row)
		if err != nil {
			return d, err
		}
		probe[i], ts[i] = d, k.Type()
	}
	hv, ok := hashKeys(ts, probe)
	if !ok {
		return types.Bool(false), nil
	}
	if err := h.build(env); err != nil {
		return types.Null(), err
	}
	for _, inner := range h.table.rows[hv] {
		match, err := IsTrue(env, h.Test, append(probe[:len(h.Keys)], inner...))
		if err != nil || match {
			return types.Bool(match), err
		}
	}
	return types.Bool(false), nil
}
