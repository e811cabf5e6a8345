package types

import (
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Func is a resolved operator or function.
//
// Args are the declared parameter types: the caller coerces each argument
// whose type differs to Args[i] (Cast with CastImplicit; skippable when
// BinaryCoercible). Strict functions must not be called with NULL
// arguments: the result is NULL. Fn may keep no reference to args.
type Func struct {
	Name     string
	Args     []Type
	Ret      Type
	Strict   bool // NULL if any argument is NULL; caller applies the rule
	Volatile bool // random(), clock_timestamp(): evaluate every time
	Stable   bool // now(): fixed within a statement; neither = immutable
	// NeedsTxnTime: the caller passes the transaction start time as one
	// extra trailing TimestampMicros argument (args has len(Args)+1 values).
	NeedsTxnTime bool
	Fn           func(args []Datum) (Datum, error)
	// FnWith, when set, is Fn for callers that have the session's
	// settings (the expression evaluator); Fn then runs it with the
	// defaults (TimeZone UTC).
	FnWith func(st *Settings, args []Datum) (Datum, error)

	variadicAny bool // concat/concat_ws: Args given are a prefix; rest "any"
	poly        func(actual []Type) *Func
	keepUnknown bool // poly sees unknown arguments as unknown, not text (pg_typeof)
	// polySlots marks one instance of a function PostgreSQL declares over
	// anyarray ('a') and anyelement ('e'); '_' is a fixed argument type.
	// polyElem is the element type of this instance (see polyFilter).
	polySlots string
	polyElem  OID
}

// polymorphic candidates use Any in Args; such a slot accepts any
// non-pseudo type with no coercion.

func canCoerceArg(from, to Type) bool {
	if to.OID == AnyOID {
		return from.OID != VoidOID && from.OID != RecordOID
	}
	if from.OID == to.OID {
		return true
	}
	c, ok := castContext(from.OID, to.OID)
	return ok && c == CastImplicit
}

// resolve picks the best candidate for the given argument types following
// PostgreSQL's func_select_candidate. It returns nil, false when nothing
// matches and nil, true when the choice is ambiguous.
func resolve(cands []*Func, in []Type, isOp bool) (*Func, bool) {
	nargs := len(in)
	// exact match
	for _, c := range cands {
		if len(c.Args) != nargs {
			continue
		}
		ok := true
		for i, t := range in {
			if c.Args[i].OID != t.OID {
				ok = false
				break
			}
		}
		if ok {
			return c, false
		}
	}
	// binary_oper_exact: one unknown operand adopts the other's type
	if isOp && nargs == 2 && (in[0].OID == UnknownOID) != (in[1].OID == UnknownOID) {
		known := in[0]
		if known.OID == UnknownOID {
			known = in[1]
		}
		for _, c := range cands {
			if len(c.Args) == 2 && c.Args[0].OID == known.OID && c.Args[1].OID == known.OID {
				return c, false
			}
		}
	}
	// candidates reachable by implicit coercion
	var list []*Func
	for _, c := range cands {
		if len(c.Args) != nargs {
			continue
		}
		ok := true
		for i, t := range in {
			if !canCoerceArg(t, c.Args[i]) {
				ok = false
				break
			}
		}
		if ok {
			list = append(list, c)
		}
	}
	list = polyFilter(list, in)
	if len(list) == 0 {
		return nil, false
	}
	if len(list) == 1 {
		return list[0], false
	}
	// most exact matches
	best, keep := -1, list[:0:0]
	for _, c := range list {
		n := 0
		for i, t := range in {
			if t.OID != UnknownOID && declared(c, i).OID == t.OID {
				n++
			}
		}
		if n > best {
			best, keep = n, keep[:0]
		}
		if n == best {
			keep = append(keep, c)
		}
	}
	list = keep
	if len(list) == 1 {
		return list[0], false
	}
	// exact or preferred types at the args needing coercion
	best, keep = -1, nil
	for _, c := range list {
		n := 0
		for i, t := range in {
			if t.OID != UnknownOID && (declared(c, i).OID == t.OID || (Category(declared(c, i)) == Category(t) && IsPreferred(declared(c, i)))) {
				n++
			}
		}
		if n > best {
			best, keep = n, keep[:0]
		}
		if n == best {
			keep = append(keep, c)
		}
	}
	list = keep
	if len(list) == 1 {
		return list[0], false
	}
	// resolve unknown inputs by category (string preferred)
	hasUnknown := false
	for _, t := range in {
		if t.OID == UnknownOID {
			hasUnknown = true
		}
	}
	if hasUnknown {
		cat := make([]byte, nargs)
		pref := make([]bool, nargs)
		resolved := true
		for i, t := range in {
			if t.OID != UnknownOID {
				continue
			}
			conflict := false
			for j, c := range list {
				cc, cp := Category(declared(c, i)), IsPreferred(declared(c, i))
				switch {
				case j == 0:
					cat[i], pref[i] = cc, cp
				case cc == cat[i]:
					pref[i] = pref[i] || cp
				case cc == 'S':
					cat[i], pref[i] = 'S', cp
				case cat[i] == 'S':
				default:
					conflict = true
				}
			}
			if conflict && cat[i] != 'S' {
				resolved = false
				break
			}
		}
		if resolved {
			keep = nil
			for _, c := range list {
				ok := true
				for i, t := range in {
					if t.OID != UnknownOID {
						continue
					}
					if Category(declared(c, i)) != cat[i] || (pref[i] && !IsPreferred(declared(c, i))) {
						ok = false
						break
					}
				}
				if ok {
					keep = append(keep, c)
				}
			}
			if len(keep) > 0 {
				list = keep
			}
			if len(list) == 1 {
				return list[0], false
			}
		}
		// last gasp: unknowns take the common known type
		var known Type
		same := true
		nknown := 0
		for _, t := range in {
			if t.OID == UnknownOID {
				continue
			}
			if nknown > 0 && t.OID != known.OID {
				same = false
			}
			known = t
			nknown++
		}
		if same && nknown > 0 {
			var found *Func
			n := 0
			for _, c := range list {
				ok := true
				for i := range in {
					if !canCoerceArg(known, c.Args[i]) {
						ok = false
					}
				}
				if ok {
					found = c
					n++
				}
			}
			if n == 1 {
				return found, false
			}
		}
	}
	return nil, true
}

// declared is the type a candidate declares for argument i: anyarray or
// anyelement at an instance's polymorphic slots (never an exact match, of
// the pseudo-type category), else its argument type.
func declared(c *Func, i int) Type {
	if i < len(c.polySlots) {
		switch c.polySlots[i] {
		case 'a':
			return AnyArray
		case 'e':
			return AnyElement
		}
	}
	return c.Args[i]
}

// polyFilter keeps, of the instances of polymorphic functions, those whose
// element type is what the known arguments at polymorphic slots make it
// (PostgreSQL's enforce_generic_type_consistency, with anycompatible's
// common type): an anyarray slot contributes its array's element type, an
// anyelement slot its own type; unknown arguments adopt the result.
func polyFilter(list []*Func, in []Type) []*Func {
	out := list[:0:0]
	for _, c := range list {
		if c.polySlots == "" {
			out = append(out, c)
			continue
		}
		elem, known, ok := Type{}, false, true
		for i, t := range in {
			if i >= len(c.polySlots) || t.OID == UnknownOID || c.polySlots[i] == '_' {
				continue
			}
			if c.polySlots[i] == 'a' {
				et, isArr := ElemType(t)
				if !isArr {
					if ok, et = t.OID == Int2VectorOID, Int2; !ok {
						break
					}
				}
				t = et
			}
			if !known {
				elem, known = t, true
			} else if elem, ok = CommonType(elem, t); !ok {
				break
			}
		}
		if ok && (!known || elem.OID == c.polyElem) {
			out = append(out, c)
		}
	}
	return out
}

// instantiate fills in polymorphic slots with the actual argument types
// (unknown becomes text).
func instantiate(f *Func, in []Type) *Func {
	if f.poly == nil {
		return f
	}
	actual := make([]Type, len(in))
	for i, t := range in {
		if f.Args[i].OID == AnyOID {
			if t.OID == UnknownOID && !f.keepUnknown {
				t = Text
			}
			actual[i] = t
		} else {
			actual[i] = f.Args[i]
		}
	}
	return f.poly(actual)
}

func argList(in []Type) string {
	var b strings.Builder
	for i, t := range in {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.BaseName())
	}
	return b.String()
}

func opSig(op string, left, right Type) string {
	if left.OID == 0 {
		return op + " " + right.BaseName()
	}
	return left.BaseName() + " " + op + " " + right.BaseName()
}

var (
	operators = map[string][]*Func{}
	functions = map[string][]*Func{}
)

// LookupOperator resolves a binary operator (or a prefix operator when
// left.OID == 0) as PostgreSQL does. "!=" means "<>". AND/OR/NOT are not
// operators here: the caller implements three-valued logic. Errors: 42883
// "operator does not exist: integer + boolean" (with PostgreSQL's hint),
// 42725 "operator is not unique: unknown + unknown".
func LookupOperator(op string, left, right Type) (*Func, error) {
	if op == "!=" {
		op = "<>"
	}
	var in []Type
	if left.OID == 0 {
		in = []Type{right}
	} else {
		in = []Type{left, right}
	}
	cands := operators[op]
	f, ambiguous := resolve(cands, in, true)
	if f != nil && allUnknown(in) && (op == "+" || op == "-" || op == "*" || op == "/") {
		// PostgreSQL also has date/time/interval/numeric variants of these,
		// so unknown-only operands cannot be resolved there.
		f, ambiguous = nil, true
	}
	if f == nil {
		if ambiguous {
			return nil, pgerr.Errorf(pgerr.AmbiguousFunction, "operator is not unique: %s", opSig(op, left, right)).
				WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
		}
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "operator does not exist: %s", opSig(op, left, right)).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	return instantiate(f, in), nil
}

// LookupFunction resolves a builtin scalar function by (lower-case) name and
// argument types as PostgreSQL does. Errors: 42883 "function foo(integer)
// does not exist" (with PostgreSQL's hint), 42725 "function foo(unknown) is
// not unique".
func LookupFunction(name string, args []Type) (*Func, error) {
	lname := strings.ToLower(name)
	if lname == "concat" || lname == "concat_ws" {
		if f := variadicConcat(lname, args); f != nil {
			return f, nil
		}
	}
	if lname == "format" {
		if f := variadicFormat(args); f != nil {
			return f, nil
		}
	}
	if f := variadicJSON(lname, args); f != nil {
		return f, nil
	}
	if f := variadicTextCall(lname, args); f != nil {
		return f, nil
	}
	if f := rowArrayJSONCall(lname, args); f != nil {
		return f, nil
	}
	f, ambiguous := resolve(functions[lname], args, false)
	if f == nil {
		return nil, funcErr(name, args, ambiguous)
	}
	return instantiate(f, args), nil
}

func funcErr(name string, args []Type, ambiguous bool) error {
	return funcErrSig(name, argList(args), ambiguous)
}

func funcErrSig(name, sig string, ambiguous bool) error {
	if ambiguous {
		return pgerr.Errorf(pgerr.AmbiguousFunction, "function %s(%s) is not unique", name, sig).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	return pgerr.Errorf(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, sig).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func addOp(op string, f *Func) {
	f.Name = op
	f.Strict = true
	operators[op] = append(operators[op], f)
}

func addFunc(name string, f *Func) {
	f.Name = name
	functions[name] = append(functions[name], f)
}

func allUnknown(in []Type) bool {
	for _, t := range in {
		if t.OID != UnknownOID {
			return false
		}
	}
	return true
}
