package expr

import (
	"testing"

	"github.com/tidal-db/tidal/internal/sql/types"
)

func TestCloneForWorkerCopiesScratchHoldingNodes(t *testing.T) {
	plus := &types.Func{Name: "int4pl", Args: []types.Type{types.Int4, types.Int4}, Ret: types.Int4, Strict: true,
		Fn: func(a []types.Datum) (types.Datum, error) { return types.Int(a[0].Int() + a[1].Int()), nil }}
	v := &Var{Index: 0, T: types.Int4, Name: "a"}
	e := &BoolOp{Op: "AND", Args: []Expr{
		&NullTest{Arg: &Func{Fn: plus, Args: []Expr{v, &Const{Val: types.Int(1), T: types.Int4}}, Op: "+"}, Not: true},
	}}
	cp, ok := CloneForWorker(e)
	if !ok {
		t.Fatal("a safe expression was refused")
	}
	if cp.String() != e.String() {
		t.Fatalf("clone prints %s, original %s", cp, e)
	}
	orig := e.Args[0].(*NullTest).Arg.(*Func)
	clone := cp.(*BoolOp).Args[0].(*NullTest).Arg.(*Func)
	if orig == clone {
		t.Fatal("the Func node (it keeps a scratch buffer) is shared with the clone")
	}
	got, err := cp.Eval(nil, []types.Datum{types.Int(41)})
	if err != nil || !got.Bool() {
		t.Fatalf("clone evaluates to %v, %v", got, err)
	}
}

func TestCloneForWorkerRefusesUnsafe(t *testing.T) {
	random := &types.Func{Name: "random", Ret: types.Float8, Volatile: true,
		Fn: func([]types.Datum) (types.Datum, error) { return types.Float(0.5), nil }}
	for name, e := range map[string]Expr{
		"volatile function": &Func{Fn: random},
		"sub-select":        &SubPlan{Plan: &SubqueryPlan{}},
		"outer reference":   &BoolOp{Op: "NOT", Args: []Expr{&OuterVar{Depth: 1, Index: 0, T: types.Boolean}}},
	} {
		if _, ok := CloneForWorker(e); ok {
			t.Errorf("%s: cloned for a worker", name)
		}
	}
}
