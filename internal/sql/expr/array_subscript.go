package expr

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Array subscripting, as PostgreSQL's SubscriptingRef over arrays: a fetch
// (a[i][j], a[l:u]) and an assignment (UPDATE … SET a[i] = v, INSERT INTO
// t (a[l:u]) …). When any subscript is a slice, all are: a plain [i] then
// means [1:i]. An omitted slice bound ([:u], [l:]) is the array's own.

// subscripts are the compiled subscripts of one reference; Lower[k] and
// Upper[k] are nil when omitted (Lower is always nil when not Slice).
type subscripts struct {
	Lower, Upper []Expr
	Slice        bool
}

func (s subscripts) exprs() []Expr {
	var out []Expr
	for k := range s.Upper {
		if s.Lower[k] != nil {
			out = append(out, s.Lower[k])
		}
		if s.Upper[k] != nil {
			out = append(out, s.Upper[k])
		}
	}
	return out
}

func (s subscripts) with(args []Expr) (subscripts, []Expr) {
	out := subscripts{Lower: make([]Expr, len(s.Lower)), Upper: make([]Expr, len(s.Upper)), Slice: s.Slice}
	for k := range s.Upper {
		if s.Lower[k] != nil {
			out.Lower[k], args = args[0], args[1:]
		}
		if s.Upper[k] != nil {
			out.Upper[k], args = args[0], args[1:]
		}
	}
	return out, args
}

func (s subscripts) String() string {
	var b strings.Builder
	for k := range s.Upper {
		b.WriteByte('[')
		if s.Lower[k] != nil {
			b.WriteString(s.Lower[k].String())
		}
		if s.Slice {
			b.WriteByte(':')
		}
		if s.Upper[k] != nil {
			b.WriteString(s.Upper[k].String())
		}
		b.WriteByte(']')
	}
	return b.String()
}

// bound is one evaluated subscript; set is false when omitted.
type bound struct {
	v   int
	set bool
}

// eval evaluates the subscripts; null reports a NULL one.
func (s subscripts) eval(env *Env, row []types.Datum) (lo, hi []bound, null bool, err error) {
	lo, hi = make([]bound, len(s.Upper)), make([]bound, len(s.Upper))
	one := func(e Expr) (bound, error) {
		if e == nil {
			return bound{}, nil
		}
		d, err := e.Eval(env, row)
		if err != nil || d.IsNull() {
			null = null || err == nil
			return bound{}, err
		}
		return bound{v: int(d.Int()), set: true}, nil
	}
	for k := range s.Upper {
		if lo[k], err = one(s.Lower[k]); err != nil {
			return
		}
		if hi[k], err = one(s.Upper[k]); err != nil {
			return
		}
	}
	return
}

// compileSubscripts compiles a list of A_Indices.
func (c *Compiler) compileSubscripts(list []*pg.A_Indices) (subscripts, error) {
	var s subscripts
	for _, ai := range list {
		if ai.IsSlice {
			s.Slice = true
		}
	}
	if len(list) > types.MaxArrayDims {
		return s, pgerr.Errorf(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(list), types.MaxArrayDims)
	}
	sub := func(n *pg.Node) (Expr, error) {
		if n == nil {
			return nil, nil
		}
		e, err := c.Compile(n)
		if err != nil {
			return nil, err
		}
		out, err := Coerce(e, types.Int4, types.CastAssignment)
		if err != nil {
			return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "array subscript must have type integer")
		}
		return out, nil
	}
	for _, ai := range list {
		lo, err := sub(ai.Lidx)
		if err != nil {
			return s, err
		}
		hi, err := sub(ai.Uidx)
		if err != nil {
			return s, err
		}
		if s.Slice && !ai.IsSlice {
			lo = &Const{Val: types.Int(1), T: types.Int4}
		}
		s.Lower, s.Upper = append(s.Lower, lo), append(s.Upper, hi)
	}
	return s, nil
}

// Subscript is a fetch: arr[i]… (an element, or NULL when the number of
// subscripts is not the array's or one is out of range) or arr[l:u]… (a
// slice with lower bounds 1, empty when nothing is in range).
type Subscript struct {
	Arr  Expr
	Subs subscripts
	T    types.Type
}

func (s *Subscript) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	a, err := s.Arr.Eval(env, row)
	if err != nil || a.IsNull() {
		return types.Null(), err
	}
	lo, hi, null, err := s.Subs.eval(env, row)
	if err != nil || null {
		return types.Null(), err
	}
	arr := types.ArrayParts(a)
	if !s.Subs.Slice {
		return fetchElement(arr, hi), nil
	}
	return fetchSlice(arr, lo, hi), nil
}

func (s *Subscript) Type() types.Type { return s.T }
func (s *Subscript) String() string   { return s.Arr.String() + s.Subs.String() }

// ArgExprs and WithArgs make Subscript an ExternalNode (MapVars).
func (s *Subscript) ArgExprs() []Expr { return append([]Expr{s.Arr}, s.Subs.exprs()...) }
func (s *Subscript) WithArgs(args []Expr) Expr {
	subs, _ := s.Subs.with(args[1:])
	return &Subscript{Arr: args[0], Subs: subs, T: s.T}
}

// offsetOf is the row-major position of the element at idx, or -1 when
// idx is outside the array.
func offsetOf(a types.ArrayValue, idx []int) int {
	if len(idx) != len(a.Dims) {
		return -1
	}
	off := 0
	for k := range idx {
		i := idx[k] - a.Lbounds[k]
		if i < 0 || i >= a.Dims[k] {
			return -1
		}
		off = off*a.Dims[k] + i
	}
	return off
}

func fetchElement(a types.ArrayValue, hi []bound) types.Datum {
	idx := make([]int, len(hi))
	for k := range hi {
		idx[k] = hi[k].v
	}
	if off := offsetOf(a, idx); off >= 0 {
		return a.Elems[off]
	}
	return types.Null()
}

// sliceRange resolves the slice bounds against the array, clamped to it;
// ok is false when the slice is empty.
func sliceRange(a types.ArrayValue, lo, hi []bound) (from, to []int, ok bool) {
	n := len(a.Dims)
	if n == 0 || len(lo) > n {
		return nil, nil, false
	}
	from, to = make([]int, n), make([]int, n)
	for k := 0; k < n; k++ {
		from[k], to[k] = a.Lbounds[k], a.Lbounds[k]+a.Dims[k]-1
		if k < len(lo) {
			if lo[k].set && lo[k].v > from[k] {
				from[k] = lo[k].v
			}
			if hi[k].set && hi[k].v < to[k] {
				to[k] = hi[k].v
			}
		}
		if from[k] > to[k] {
			return nil, nil, false
		}
	}
	return from, to, true
}

// eachIndex calls f with every index from..to in row-major order.
func eachIndex(from, to []int, f func(idx []int)) {
	idx := append([]int(nil), from...)
	for {
		f(idx)
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k] < to[k] {
				idx[k]++
				break
			}
			idx[k] = from[k]
		}
		if k < 0 {
			return
		}
	}
}

func fetchSlice(a types.ArrayValue, lo, hi []bound) types.Datum {
	from, to, ok := sliceRange(a, lo, hi)
	if !ok {
		return types.Array(nil)
	}
	dims, lbs := make([]int, len(from)), make([]int, len(from))
	for k := range from {
		dims[k], lbs[k] = to[k]-from[k]+1, 1
	}
	var out []types.Datum
	eachIndex(from, to, func(idx []int) { out = append(out, a.Elems[offsetOf(a, idx)]) })
	return types.ArrayShaped(dims, lbs, out)
}

// compileIndices compiles the subscripts of ind (all A_Indices) applied to
// e, an array or int2vector.
func (c *Compiler) compileIndices(e Expr, list []*pg.A_Indices) (Expr, error) {
	t := e.Type()
	if t.OID == types.Int2VectorOID {
		at, _ := types.ArrayOf(types.Int2)
		var err error
		if e, err = Coerce(e, at, types.CastImplicit); err != nil {
			return nil, err
		}
		t = at
	}
	et, ok := types.ElemType(t)
	if !ok {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", t)
	}
	subs, err := c.compileSubscripts(list)
	if err != nil {
		return nil, err
	}
	if subs.Slice {
		return &Subscript{Arr: e, Subs: subs, T: types.Type{OID: t.OID, Typmod: t.Typmod}}, nil
	}
	et.Typmod = t.Typmod
	return &Subscript{Arr: e, Subs: subs, T: et}, nil
}
