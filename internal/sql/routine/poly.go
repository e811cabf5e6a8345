package routine

import (
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Binding is what a call's actual argument types make of a routine's
// polymorphic types (PostgreSQL's enforce_generic_type_consistency):
// anyelement / anynonarray stand for Elem and anyarray for its array
// type; the anycompatible family for Compat.
type Binding struct {
	Elem, Compat types.Type
}

// Bind works out a binding from the declared parameter types (in call
// order, as Candidate.Types) and the actual argument types.
func Bind(declared, actual []types.Type) (Binding, error) {
	var b Binding
	var compat []types.Type
	var elemUnknown bool
	for i, d := range declared {
		a := actual[i]
		switch d.OID {
		case types.AnyElementOID, types.AnyNonArrayOID:
			if a.OID == types.UnknownOID {
				elemUnknown = true
				continue
			}
			if err := b.setElem(a); err != nil {
				return b, err
			}
		case types.AnyArrayOID:
			if a.OID == types.UnknownOID {
				elemUnknown = true
				continue
			}
			et, ok := types.ElemType(a)
			if !ok {
				return b, pgerr.Errorf(pgerr.DatatypeMismatch, "argument declared anyarray is not an array but type %s", a.BaseName())
			}
			if err := b.setElem(et); err != nil {
				return b, err
			}
		case types.AnyCompatibleOID, types.AnyCompatibleNonArray:
			if a.OID != types.UnknownOID {
				compat = append(compat, a)
			}
		case types.AnyCompatibleArrayOID:
			if a.OID == types.UnknownOID {
				continue
			}
			et, ok := types.ElemType(a)
			if !ok {
				return b, pgerr.Errorf(pgerr.DatatypeMismatch, "argument declared anycompatiblearray is not an array but type %s", a.BaseName())
			}
			compat = append(compat, et)
		}
	}
	_ = elemUnknown // unknown literals take the bound type, if any (Resolve)
	for i, d := range declared {
		if d.OID == types.AnyNonArrayOID && b.Elem.OID != 0 {
			if _, isArr := types.ElemType(b.Elem); isArr {
				return b, pgerr.Errorf(pgerr.DatatypeMismatch, "type matched to anynonarray is array type %s", actual[i].BaseName())
			}
		}
	}
	if len(compat) > 0 {
		t := compat[0]
		for _, c := range compat[1:] {
			ct, ok := types.CommonType(t, c)
			if !ok {
				return b, pgerr.Errorf(pgerr.DatatypeMismatch, "arguments declared \"anycompatible\" are not all alike").
					WithDetail("%s versus %s", t.BaseName(), c.BaseName())
			}
			t = ct
		}
		b.Compat = types.Type{OID: t.OID, Typmod: -1}
	}
	return b, nil
}

func (b *Binding) setElem(t types.Type) error {
	t = types.Type{OID: t.OID, Typmod: -1}
	if b.Elem.OID != 0 && b.Elem.OID != t.OID {
		return pgerr.Errorf(pgerr.DatatypeMismatch, "arguments declared \"anyelement\" are not all alike").
			WithDetail("%s versus %s", b.Elem.BaseName(), t.BaseName())
	}
	b.Elem = t
	return nil
}

// Consistent reports whether the arguments can bind the polymorphic
// parameters alike; arguments of unknown type bind nothing.
func Consistent(declared, actual []types.Type) bool {
	_, err := Bind(declared, actual)
	return err == nil
}

// Resolve is the actual type that declared type t stands for under the
// binding (t itself when it is not polymorphic).
func (b Binding) Resolve(t types.Type) (types.Type, error) {
	switch t.OID {
	case types.AnyElementOID, types.AnyNonArrayOID:
		return b.need(b.Elem, t)
	case types.AnyCompatibleOID, types.AnyCompatibleNonArray:
		return b.need(b.Compat, t)
	case types.AnyArrayOID, types.AnyCompatibleArrayOID:
		e := b.Elem
		if t.OID == types.AnyCompatibleArrayOID {
			e = b.Compat
		}
		if _, err := b.need(e, t); err != nil {
			return types.Type{}, err
		}
		at, ok := types.ArrayOf(e)
		if !ok {
			return types.Type{}, pgerr.Errorf(pgerr.UndefinedObject, "could not find array type for data type %s", e.BaseName())
		}
		return at, nil
	}
	return t, nil
}

func (b Binding) need(bound, t types.Type) (types.Type, error) {
	if bound.OID == 0 {
		return types.Type{}, pgerr.Errorf(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	return bound, nil
}
