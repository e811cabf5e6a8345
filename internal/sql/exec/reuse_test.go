package exec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// TestReusableNodeFields is a tripwire for plan reuse: Reusable trusts
// these node kinds to reset all their execution state in Open. A new field
// fails this test; make sure Open resets it (or that it is plan-time
// data), then add it here.
func TestReusableNodeFields(t *testing.T) {
	want := []struct {
		node   any
		fields string
	}{
		{ModifyTable{}, "nodeBase Kind Rel Input NewRow Qual Sys TargetWidth Returning RetCols Conflict Alias Count hot inplace upserted checks domains viewChecks after SetCols trig trigLoaded afterWith done retRows retI deformer inh inhParent inhMember router routedFrom partCons partLoaded"},
		{IndexScan{}, "nodeBase Rel Alias Index Lower LowerIn Upper UpperIn Cond Qual Sys WithTID cur ix recheck keys def natts lastTID entries fetched"},
		{SeqScan{}, "nodeBase Rel Alias Qual Sys WithTID Parallel par parallelDiv reuseRow leadAttrs scan def row natts qualAttrs scratch pushed lastTID read"},
		{Project{}, "nodeBase Input Exprs Cols"},
		{Filter{}, "nodeBase Input Qual"},
		{Limit{}, "nodeBase Input Count Offset n off seen hasCount"},
		{Result{}, "nodeBase Exprs Names Qual done"},
		{Values{}, "nodeBase Rows Cols i"},
	}
	for _, w := range want {
		rt, fields := reflect.TypeOf(w.node), w.fields
		var got []string
		for i := 0; i < rt.NumField(); i++ {
			got = append(got, rt.Field(i).Name)
		}
		if strings.Join(got, " ") != fields {
			t.Errorf("%s has fields %q, plan reuse was checked against %q", rt.Name(), strings.Join(got, " "), fields)
		}
	}
}

func TestReusable(t *testing.T) {
	scan := &IndexScan{Lower: []expr.Expr{&expr.Param{N: 1, T: types.Int4}}}
	if !Reusable(&Project{Input: scan, Exprs: []expr.Expr{&expr.Var{Index: 0}}}) {
		t.Error("Project over IndexScan with a parameter: not reusable")
	}
	sub := &expr.SubPlan{Plan: &expr.SubqueryPlan{}}
	if Reusable(&Project{Input: scan, Exprs: []expr.Expr{sub}}) {
		t.Error("a subquery in the target list: reusable")
	}
	if Reusable(&Project{Input: &Sort{Input: scan}}) {
		t.Error("Sort: reusable")
	}
	if Reusable(&ModifyTable{Input: &NestLoop{}}) {
		t.Error("join below ModifyTable: reusable")
	}
	if !Reusable(&ModifyTable{Input: &Values{}}) {
		t.Error("INSERT … VALUES: not reusable")
	}
	if Reusable(&ModifyTable{Input: &Values{}, Conflict: &OnConflict{}}) {
		t.Error("INSERT … ON CONFLICT: reusable")
	}
}
