package expr

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// ArrayAssign is the new value of an array column assigned through
// subscripts: base (the column's current value; NULL for INSERT) with
// base[…] := Src, as PostgreSQL's array_set_element / array_set_slice. A
// one-dimensional array grows to take a subscript outside it, NULLs
// filling the gap; a multidimensional one does not.
type ArrayAssign struct {
	Base Expr
	Subs subscripts
	Src  Expr
	T    types.Type
}

func (a *ArrayAssign) Type() types.Type { return a.T }
func (a *ArrayAssign) String() string {
	return a.Base.String() + a.Subs.String() + " := " + a.Src.String()
}

// ArgExprs and WithArgs make ArrayAssign an ExternalNode (MapVars).
func (a *ArrayAssign) ArgExprs() []Expr {
	return append([]Expr{a.Base, a.Src}, a.Subs.exprs()...)
}
func (a *ArrayAssign) WithArgs(args []Expr) Expr {
	subs, _ := a.Subs.with(args[2:])
	return &ArrayAssign{Base: args[0], Src: args[1], Subs: subs, T: a.T}
}

func (a *ArrayAssign) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	base, err := a.Base.Eval(env, row)
	if err != nil {
		return base, err
	}
	src, err := a.Src.Eval(env, row)
	if err != nil {
		return src, err
	}
	lo, hi, null, err := a.Subs.eval(env, row)
	if err != nil {
		return types.Null(), err
	}
	if null {
		return types.Null(), pgerr.Errorf(pgerr.NullValueNotAllowed, "array subscript in assignment must not be null")
	}
	arr := types.ArrayParts(base)
	if !a.Subs.Slice {
		return setElement(arr, hi, src)
	}
	if src.IsNull() {
		return base, nil
	}
	return setSlice(arr, lo, hi, types.ArrayParts(src))
}

func subscriptError(msg string) *pgerr.Error {
	return pgerr.Errorf(pgerr.ArraySubscriptError, "%s", msg)
}

func setElement(a types.ArrayValue, hi []bound, v types.Datum) (types.Datum, error) {
	idx := make([]int, len(hi))
	for k := range hi {
		idx[k] = hi[k].v
	}
	if len(a.Dims) == 0 {
		dims := make([]int, len(idx))
		for k := range dims {
			dims[k] = 1
		}
		return types.ArrayShaped(dims, idx, []types.Datum{v}), nil
	}
	if len(idx) != len(a.Dims) {
		return types.Null(), subscriptError("wrong number of array subscripts")
	}
	if off := offsetOf(a, idx); off >= 0 {
		a.Elems[off] = v
		return a.Datum(), nil
	}
	if len(a.Dims) > 1 {
		return types.Null(), subscriptError("array subscript out of range")
	}
	return growAndSet(a, idx[0], idx[0], []types.Datum{v})
}

// growAndSet writes vals at from..to of a one-dimensional array,
// extending it (NULL-filled) as needed.
func growAndSet(a types.ArrayValue, from, to int, vals []types.Datum) (types.Datum, error) {
	lb, ub := a.Lbounds[0], a.Lbounds[0]+a.Dims[0]-1
	nlb, nub := min(lb, from), max(ub, to)
	if err := types.CheckArraySize(int64(nub) - int64(nlb) + 1); err != nil {
		return types.Null(), err
	}
	out := make([]types.Datum, nub-nlb+1)
	copy(out[lb-nlb:], a.Elems)
	copy(out[from-nlb:], vals[:to-from+1])
	return types.ArrayShaped([]int{len(out)}, []int{nlb}, out), nil
}

func setSlice(a types.ArrayValue, lo, hi []bound, src types.ArrayValue) (types.Datum, error) {
	if len(a.Dims) == 0 {
		dims, lbs := make([]int, len(lo)), make([]int, len(lo))
		for k := range lo {
			if !lo[k].set || !hi[k].set {
				return types.Null(), subscriptError("array slice subscript must provide both boundaries").
					WithDetail("When assigning to a slice of an empty array value, slice boundaries must be fully specified.")
			}
			if hi[k].v < lo[k].v {
				return types.Null(), subscriptError("upper bound cannot be less than lower bound")
			}
			dims[k], lbs[k] = hi[k].v-lo[k].v+1, lo[k].v
		}
		n := 1
		for _, d := range dims {
			if n *= d; types.CheckArraySize(int64(n)) != nil || types.CheckArraySize(int64(d)) != nil {
				return types.Null(), types.CheckArraySize(-1)
			}
		}
		if len(src.Elems) < n {
			return types.Null(), subscriptError("source array too small")
		}
		return types.ArrayShaped(dims, lbs, src.Elems[:n]), nil
	}
	if len(lo) > len(a.Dims) {
		return types.Null(), subscriptError("wrong number of array subscripts")
	}
	n := len(a.Dims)
	from, to := make([]int, n), make([]int, n)
	count := 1
	for k := 0; k < n; k++ {
		from[k], to[k] = a.Lbounds[k], a.Lbounds[k]+a.Dims[k]-1
		if k < len(lo) {
			if lo[k].set {
				from[k] = lo[k].v
			}
			if hi[k].set {
				to[k] = hi[k].v
			}
		}
		if to[k] < from[k] {
			return types.Null(), subscriptError("upper bound cannot be less than lower bound")
		}
		if n > 1 && (from[k] < a.Lbounds[k] || to[k] >= a.Lbounds[k]+a.Dims[k]) {
			return types.Null(), subscriptError("array subscript out of range")
		}
		count *= to[k] - from[k] + 1
		if err := types.CheckArraySize(int64(to[k]) - int64(from[k]) + 1); err != nil {
			return types.Null(), err
		}
		if err := types.CheckArraySize(int64(count)); err != nil {
			return types.Null(), err
		}
	}
	if len(src.Elems) < count {
		return types.Null(), subscriptError("source array too small")
	}
	if n == 1 {
		return growAndSet(a, from[0], to[0], src.Elems)
	}
	i := 0
	eachIndex(from, to, func(idx []int) {
		a.Elems[offsetOf(a, idx)] = src.Elems[i]
		i++
	})
	return a.Datum(), nil
}

// AssignIndirection describes an assignment target col[…]: the type the
// assigned value must have (the element type, or for a slice the array
// type) and the compiled subscripts. Field selection (col.f) is refused.
type AssignIndirection struct {
	Col     string
	ColType types.Type
	Src     types.Type
	subs    subscripts
}

// CompileAssignIndirection compiles the indirection of an INSERT or
// UPDATE target column.
func (c *Compiler) CompileAssignIndirection(col string, colType types.Type, ind []*pg.Node) (*AssignIndirection, error) {
	var list []*pg.A_Indices
	for _, n := range ind {
		ai := n.GetAIndices()
		if ai == nil {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "assignment to a field of a column is not supported yet")
		}
		list = append(list, ai)
	}
	et, ok := types.ElemType(colType)
	if !ok {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", colType)
	}
	subs, err := c.compileSubscripts(list)
	if err != nil {
		return nil, err
	}
	src := colType
	if !subs.Slice {
		src = et
		src.Typmod = colType.Typmod
	}
	return &AssignIndirection{Col: col, ColType: colType, Src: src, subs: subs}, nil
}

// CoerceSource coerces (on assignment) an assigned value to ai.Src.
func (ai *AssignIndirection) CoerceSource(v Expr) (Expr, error) {
	if p, ok := v.(*Param); ok && p.T.OID == types.UnknownOID {
		p.Infer(ai.Src)
	}
	cv, err := Coerce(v, ai.Src, types.CastAssignment)
	if err != nil && pgerr.Code(err) != pgerr.DatatypeMismatch && pgerr.Code(err) != "42846" {
		return nil, err
	}
	if err != nil {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "subscripted assignment to \"%s\" requires type %s but expression is of type %s",
			ai.Col, ai.Src, v.Type()).WithHint("You will need to rewrite or cast the expression.")
	}
	return cv, nil
}

// Apply builds base[…] := v, coercing v to ai.Src.
func (ai *AssignIndirection) Apply(base, v Expr) (Expr, error) {
	cv, err := ai.CoerceSource(v)
	if err != nil {
		return nil, err
	}
	return &ArrayAssign{Base: base, Subs: ai.subs, Src: cv, T: ai.ColType}, nil
}
