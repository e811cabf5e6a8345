package types

import (
	"math"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// SRF is a set-returning function. Fn is called once per call site
// evaluation with arguments of the declared Args types (the caller coerces
// as for Func; SRFs here are strict: NULL arguments give no rows) and returns
// an iterator; the iterator returns (value, true, nil) per row and
// (_, false, nil) when done.
type SRF struct {
	Name string
	Args []Type
	Ret  Type
	Fn   func(args []Datum) (func() (Datum, bool, error), error)
	// FnWith, when set, is Fn given the session's settings (TimeZone).
	FnWith func(st *Settings, args []Datum) (func() (Datum, bool, error), error)
	// Cols, when set, describe a function returning rows of several
	// columns (jsonb_each: key, value); FnRows then produces them and Fn,
	// FnWith and Ret are unused.
	Cols   []SRFColumn
	FnRows func(args []Datum) (func() ([]Datum, bool, error), error)
	// FnRowsCtx, when set, is FnRows given the executor's context (for
	// functions of the catalog: pg_partition_tree).
	FnRowsCtx func(ctx any, args []Datum) (func() ([]Datum, bool, error), error)
	// FnSession, when set, is Fn given the session the statement runs in
	// (the executor's SessionHooks), for functions of session state.
	FnSession func(session any, args []Datum) (func() (Datum, bool, error), error)
	// Shape, when set, makes the SRF of a call (json_populate_record:
	// the columns of its first argument's row type); the planner calls
	// it and runs what it returns.
	Shape func(call SRFCall) (*SRF, error)
	// NonStrict: NULL arguments reach the function (they give no rows
	// otherwise).
	NonStrict bool
	// OutName, when set, names the single column in FROM whatever the
	// alias (PostgreSQL's OUT parameter: jsonb_array_elements' value).
	OutName string

	polySlots string // as Func's: an instance of a polymorphic function
	polyElem  OID
}

// RegisterSRF adds a set-returning function defined outside this package.
func RegisterSRF(f *SRF) {
	srfs[strings.ToLower(f.Name)] = append(srfs[strings.ToLower(f.Name)], f)
}

// SRFCall is what SRF.Shape knows of a call: the session's settings, the
// argument types, the column definition list, and whether the call is in
// a target list (where rows are records, so no definition list is needed
// for a record argument).
type SRFCall struct {
	Settings   *Settings
	Args       []Type
	ColDef     []SRFColumn
	TargetList bool
}

// SRFColumn is one output column of a multi-column set-returning function.
type SRFColumn struct {
	Name string
	Type Type
}

var srfs = map[string][]*SRF{}

func init() {
	for _, t := range []Type{Int4, Int8} {
		t := t
		maxv := int64(math.MaxInt64)
		minv := int64(math.MinInt64)
		if t.OID == Int4OID {
			maxv, minv = math.MaxInt32, math.MinInt32
		}
		gen := func(a []Datum) (func() (Datum, bool, error), error) {
			cur, stop, step := a[0].Int(), a[1].Int(), int64(1)
			if len(a) > 2 {
				step = a[2].Int()
			}
			if step == 0 {
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "step size cannot equal zero")
			}
			done := false
			return func() (Datum, bool, error) {
				if done || (step > 0 && cur > stop) || (step < 0 && cur < stop) {
					done = true
					return Datum{}, false, nil
				}
				v := cur
				next := cur + step
				if (step > 0 && (next < cur || next > maxv)) || (step < 0 && (next > cur || next < minv)) {
					done = true // the next value would overflow
				}
				cur = next
				return Int(v), true, nil
			}, nil
		}
		srfs["generate_series"] = append(srfs["generate_series"],
			&SRF{Name: "generate_series", Args: []Type{t, t}, Ret: t, Fn: gen},
			&SRF{Name: "generate_series", Args: []Type{t, t, t}, Ret: t, Fn: gen})
	}
}

// LookupSRF resolves a set-returning function (generate_series(int4, int4
// [, int4]) and the int8 variants) like LookupFunction.
func LookupSRF(name string, args []Type) (*SRF, error) {
	lname := strings.ToLower(name)
	if lname == "unnest" && len(args) > 1 {
		if f := multiUnnest(args); f != nil {
			return f, nil
		}
		return nil, funcErr(name, args, false)
	}
	list := srfs[lname]
	// reuse the scalar resolver on shadow Funcs
	shadow := make([]*Func, len(list))
	for i, s := range list {
		shadow[i] = &Func{Name: s.Name, Args: s.Args, Ret: s.Ret, polySlots: s.polySlots, polyElem: s.polyElem}
	}
	f, ambiguous := resolve(shadow, args, false)
	if f == nil {
		return nil, funcErr(name, args, ambiguous)
	}
	for i, s := range shadow {
		if s == f {
			return list[i], nil
		}
	}
	return nil, funcErr(name, args, false)
}

// ScalarAsSRF is a scalar builtin called in FROM (SELECT * FROM
// repeat('x', 3) s): a set of one row, NULL when a strict function gets
// a NULL argument.
func ScalarAsSRF(name string, args []Type) (*SRF, error) {
	f, err := LookupFunction(name, args)
	if err != nil {
		return nil, err
	}
	if f.NeedsTxnTime {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "function %s in FROM is not supported yet", name)
	}
	return &SRF{Name: name, Args: f.Args, Ret: f.Ret, NonStrict: true,
		FnWith: func(st *Settings, a []Datum) (func() (Datum, bool, error), error) {
			var d Datum
			var err error
			null := false
			for _, x := range a {
				null = null || x.IsNull()
			}
			switch {
			case f.Strict && null:
			case f.FnWith != nil:
				d, err = f.FnWith(st, a)
			default:
				d, err = f.Fn(a)
			}
			if err != nil {
				return nil, err
			}
			done := false
			return func() (Datum, bool, error) {
				if done {
					return Datum{}, false, nil
				}
				done = true
				return d, true, nil
			}, nil
		}}, nil
}
