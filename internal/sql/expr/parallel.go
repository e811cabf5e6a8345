package expr

// CloneForWorker returns a copy of e that a parallel worker can evaluate
// while the leader and other workers evaluate theirs, and whether e is
// parallel safe at all. A tree is evaluated by one goroutine at a time
// (nodes keep scratch buffers), so each participant gets its own copy.
// Only node kinds known to read nothing but their row, the statement's
// parameters and settings qualify; a volatile function (random(), and
// with it anything that writes or draws from a sequence), a sub-select,
// an outer reference or a user routine keeps the query serial, as
// PostgreSQL's parallel-restricted and -unsafe functions do.
func CloneForWorker(e Expr) (Expr, bool) {
	ok := true
	var cp func(e Expr) Expr
	list := func(es []Expr) []Expr {
		if es == nil {
			return nil
		}
		out := make([]Expr, len(es))
		for i, x := range es {
			out[i] = cp(x)
		}
		return out
	}
	cp = func(e Expr) Expr {
		if !ok {
			return nil
		}
		switch x := e.(type) {
		case nil:
			return nil
		case *Var, *Const, *Param:
			// Immutable leaves: sharing them is safe.
			return e
		case *Func:
			if x.Fn.Volatile {
				ok = false
				return nil
			}
			return &Func{Fn: x.Fn, Args: list(x.Args), Op: x.Op, Name: x.Name}
		case *BoolOp:
			return &BoolOp{Op: x.Op, Args: list(x.Args)}
		case *NullTest:
			return &NullTest{Arg: cp(x.Arg), Not: x.Not, Of: x.Of}
		case *Cast:
			return &Cast{Arg: cp(x.Arg), To: x.To, Ctx: x.Ctx}
		case *Like:
			return &Like{Arg: cp(x.Arg), Pattern: cp(x.Pattern), Not: x.Not, ICase: x.ICase}
		case *InList:
			return &InList{Arg: cp(x.Arg), Eqs: list(x.Eqs), Not: x.Not, Text: x.Text}
		case *Case:
			return &Case{Whens: list(x.Whens), Thens: list(x.Thens), Else: cp(x.Else), T: x.T}
		case *Coalesce:
			return &Coalesce{Args: list(x.Args), T: x.T, Name: x.Name}
		case *RowValue:
			return &RowValue{Fields: list(x.Fields)}
		case *RowCompare:
			return &RowCompare{Op: x.Op, Left: list(x.Left), Right: list(x.Right), Cmp: x.Cmp, Eq: x.Eq}
		}
		ok = false
		return nil
	}
	out := cp(e)
	if !ok {
		return nil, false
	}
	return out, true
}
