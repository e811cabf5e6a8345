package routine

import (
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// CallArg is one actual argument of a call.
type CallArg struct {
	Type types.Type
	// Name is the parameter a named-notation argument (name => value)
	// is for; "" for a positional one.
	Name string
}

// Call describes a call site to resolve.
type Call struct {
	Name string
	Args []CallArg
	// Variadic: the last argument was written VARIADIC array.
	Variadic bool
	// Location is the call's position in the statement (0-based), for
	// errors.
	Location int32
}

// Candidate is one way a routine can take a call's arguments
// (PostgreSQL's FuncCandidateList entry).
type Candidate struct {
	// Proc is the user routine, or nil for Builtin.
	Proc    *catalog.Proc
	Builtin *types.Func
	// Types are the declared types of the parameters the actual
	// arguments go to, in call order, a variadic array's element type
	// repeated for each argument it collects.
	Types []types.Type
	// Slots[i] is the input parameter (0-based, among the routine's
	// input arguments) actual argument i goes to. Parameters no argument
	// fills take their defaults.
	Slots []int
	// VariadicFrom is the first actual argument collected into the
	// variadic array parameter, or -1 (no expansion).
	VariadicFrom int
	// rank orders namespaces by the search path: builtins (pg_catalog)
	// first.
	rank int
}

// UsesDefault reports whether input parameter i takes its default.
func (c *Candidate) UsesDefault(i int) bool {
	for _, s := range c.Slots {
		if s == i {
			return false
		}
	}
	if c.VariadicFrom >= 0 && i == len(c.Proc.ArgTypes)-1 {
		return false
	}
	return true
}

// Candidates lists the ways the routines procs can take call's
// arguments (FuncnameGetCandidates with defaults and variadic expansion,
// MatchNamedCall for named notation). rank gives each routine's
// namespace position in the search path.
func Candidates(procs []*catalog.Proc, call *Call, rank func(nsp uint32) int) []*Candidate {
	var out []*Candidate
	for _, p := range procs {
		if c := candidateFor(p, call); c != nil {
			c.rank = rank(p.Namespace)
			out = append(out, c)
		}
	}
	return out
}

func namedCount(args []CallArg) int {
	n := 0
	for _, a := range args {
		if a.Name != "" {
			n++
		}
	}
	return n
}

func candidateFor(p *catalog.Proc, call *Call) *Candidate {
	nin, nargs := len(p.ArgTypes), len(call.Args)
	decl := func(i int) types.Type { return types.Type{OID: p.ArgTypes[i], Typmod: -1} }
	c := &Candidate{Proc: p, VariadicFrom: -1}
	if namedCount(call.Args) > 0 {
		return namedCandidate(p, call, c)
	}
	if call.Variadic && p.Variadic == 0 {
		return nil
	}
	if p.Variadic != 0 && !call.Variadic && p.Variadic != types.AnyOID {
		// A variadic routine takes its trailing arguments one by one;
		// an array goes to the variadic parameter only after VARIADIC.
		if nargs < nin {
			return withDefaults(p, c, nargs, decl)
		}
		for i := 0; i < nargs; i++ {
			if i < nin-1 {
				c.Types = append(c.Types, decl(i))
				c.Slots = append(c.Slots, i)
			} else {
				c.Types = append(c.Types, types.Type{OID: p.Variadic, Typmod: -1})
				c.Slots = append(c.Slots, nin-1)
			}
		}
		c.VariadicFrom = nin - 1
		return c
	}
	if nargs > nin {
		return nil
	}
	return withDefaults(p, c, nargs, decl)
}

// withDefaults is the candidate that passes nargs positional arguments
// and takes the defaults of the remaining parameters, if they have them.
func withDefaults(p *catalog.Proc, c *Candidate, nargs int, decl func(int) types.Type) *Candidate {
	nin := len(p.ArgTypes)
	if nin-nargs > len(p.ArgDefaults) {
		return nil
	}
	for i := 0; i < nargs; i++ {
		c.Types = append(c.Types, decl(i))
		c.Slots = append(c.Slots, i)
	}
	if p.Variadic != 0 && nargs < nin {
		c.VariadicFrom = -1 // the variadic parameter takes its default
	}
	return c
}

// namedCandidate is MatchNamedCall: positional arguments fill the first
// parameters, each named one the input parameter of that name, and every
// parameter left must have a default.
func namedCandidate(p *catalog.Proc, call *Call, c *Candidate) *Candidate {
	names := p.InputArgNames()
	nin := len(p.ArgTypes)
	filled := make([]bool, nin)
	for i, a := range call.Args {
		slot := i
		if a.Name != "" {
			slot = -1
			for j, n := range names {
				if n == a.Name {
					slot = j
					break
				}
			}
		}
		if slot < 0 || slot >= nin || filled[slot] {
			return nil
		}
		filled[slot] = true
		c.Types = append(c.Types, types.Type{OID: p.ArgTypes[slot], Typmod: -1})
		c.Slots = append(c.Slots, slot)
	}
	firstDefault := nin - len(p.ArgDefaults)
	for i, f := range filled {
		if !f && i < firstDefault {
			return nil
		}
	}
	return c
}

// BuiltinCandidates are the builtin functions called name as candidates
// (positional calls only: builtins have no parameter names here).
func BuiltinCandidates(call *Call) []*Candidate {
	if namedCount(call.Args) > 0 || call.Variadic {
		return nil
	}
	var out []*Candidate
	for _, f := range types.FunctionCandidates(strings.ToLower(call.Name)) {
		if len(f.Args) != len(call.Args) {
			continue
		}
		c := &Candidate{Builtin: f, Types: f.Args, VariadicFrom: -1}
		for i := range f.Args {
			c.Slots = append(c.Slots, i)
		}
		out = append(out, c)
	}
	return out
}

// Select chooses the candidate for call, as PostgreSQL's func_get_detail:
// among routines with the same argument types the one earlier in the
// search path hides the others; then an exact match, else the best
// candidate by implicit coercion (types.SelectCandidate). Errors: 42883
// "function f(integer) does not exist", 42725 "… is not unique".
func Select(cands []*Candidate, call *Call) (*Candidate, error) {
	cands = hideShadowed(consistent(cands, call))
	shadows := make([]*types.Func, len(cands))
	byShadow := map[*types.Func]*Candidate{}
	for i, c := range cands {
		args := make([]types.Type, len(c.Types))
		for j, t := range c.Types {
			if types.IsPolymorphic(t) {
				t = types.Any
			}
			args[j] = t
		}
		shadows[i] = &types.Func{Name: call.Name, Args: args}
		byShadow[shadows[i]] = c
	}
	in := make([]types.Type, len(call.Args))
	for i, a := range call.Args {
		in[i] = a.Type
	}
	f, ambiguous := types.SelectCandidate(shadows, in)
	if f == nil {
		return nil, notFound(call, ambiguous)
	}
	best := byShadow[f]
	for _, c := range cands {
		if c != best && c.rank == best.rank && sameTypes(c.Types, best.Types) {
			return nil, notFound(call, true) // two routines take these arguments alike
		}
	}
	return best, nil
}

// consistent drops the candidates whose polymorphic parameters the
// arguments cannot bind alike (check_generic_type_consistency).
func consistent(cands []*Candidate, call *Call) []*Candidate {
	actual := make([]types.Type, len(call.Args))
	for i, a := range call.Args {
		actual[i] = a.Type
	}
	var out []*Candidate
	for _, c := range cands {
		if c.Proc == nil || Consistent(c.Types, actual) {
			out = append(out, c)
		}
	}
	return out
}

// hideShadowed drops the candidates a routine of an earlier namespace
// with the same argument types hides.
func hideShadowed(cands []*Candidate) []*Candidate {
	var out []*Candidate
	for _, c := range cands {
		hidden := false
		for _, o := range cands {
			if o.rank < c.rank && sameTypes(o.Types, c.Types) {
				hidden = true
				break
			}
		}
		if !hidden {
			out = append(out, c)
		}
	}
	return out
}

func sameTypes(a, b []types.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].OID != b[i].OID {
			return false
		}
	}
	return true
}

func notFound(call *Call, ambiguous bool) error {
	err := types.FuncNotFound(call.Name, Signature(call), ambiguous)
	if pe, ok := err.(*pgerr.Error); ok && call.Location >= 0 {
		pe.Position = call.Location + 1
	}
	return err
}

// Signature prints a call's arguments as PostgreSQL's error messages do:
// "integer, y => text", "VARIADIC integer[]".
func Signature(call *Call) string {
	var b strings.Builder
	for i, a := range call.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		if call.Variadic && i == len(call.Args)-1 {
			b.WriteString("VARIADIC ")
		}
		if a.Name != "" {
			b.WriteString(a.Name + " => ")
		}
		b.WriteString(a.Type.BaseName())
	}
	return b.String()
}
