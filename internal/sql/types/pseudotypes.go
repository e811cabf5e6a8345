package types

// The polymorphic and other pseudo-types that function declarations may
// name (CREATE FUNCTION … (anyelement) RETURNS anyarray, RETURNS
// trigger): they are never the type of a stored value. Resolution binds a
// call's polymorphic arguments to actual types (package routine); "any",
// record and void are in types.go.
const (
	CstringOID            OID = 2275
	AnyArrayOID           OID = 2277
	TriggerOID            OID = 2279
	InternalOID           OID = 2281
	AnyElementOID         OID = 2283
	AnyNonArrayOID        OID = 2776
	AnyCompatibleOID      OID = 5077
	AnyCompatibleArrayOID OID = 5078
	AnyCompatibleNonArray OID = 5079
)

var (
	AnyElement = Type{AnyElementOID, -1}
	AnyArray   = Type{AnyArrayOID, -1}
)

var pseudoInfos = map[OID]*typeInfo{
	CstringOID:            {"cstring", "cstring", Layout{-2, 'c', false, 'p'}, 'P', false},
	AnyArrayOID:           {"anyarray", "anyarray", Layout{-1, 'd', false, 'x'}, 'P', false},
	TriggerOID:            {"trigger", "trigger", layInt4, 'P', false},
	InternalOID:           {"internal", "internal", layInt8, 'P', false},
	AnyElementOID:         {"anyelement", "anyelement", layInt4, 'P', false},
	AnyNonArrayOID:        {"anynonarray", "anynonarray", layInt4, 'P', false},
	AnyCompatibleOID:      {"anycompatible", "anycompatible", layInt4, 'P', false},
	AnyCompatibleArrayOID: {"anycompatiblearray", "anycompatiblearray", Layout{-1, 'd', false, 'x'}, 'P', false},
	AnyCompatibleNonArray: {"anycompatiblenonarray", "anycompatiblenonarray", layInt4, 'P', false},
}

func pseudoTypeInfo(oid OID) *typeInfo { return pseudoInfos[oid] }

func init() {
	for oid, ti := range pseudoInfos {
		typeNames[ti.typname] = oid
	}
}

// IsPolymorphic reports whether t is one of the polymorphic pseudo-types
// (anyelement, anyarray, anynonarray, anycompatible…).
func IsPolymorphic(t Type) bool {
	switch t.OID {
	case AnyElementOID, AnyArrayOID, AnyNonArrayOID, AnyCompatibleOID, AnyCompatibleArrayOID, AnyCompatibleNonArray:
		return true
	}
	return false
}

// IsPseudo reports whether t is a pseudo-type (typtype 'p').
func IsPseudo(t Type) bool { return Category(t) == 'P' || t.OID == UnknownOID }

// FunctionCandidates are the builtin scalar functions called name (lower
// case), for a resolver that weighs them against other candidates (user
// functions). The slice must not be changed.
func FunctionCandidates(name string) []*Func { return functions[name] }

// SelectCandidate picks among cands for arguments of types in as
// LookupFunction does (PostgreSQL's func_select_candidate); a candidate
// whose Args hold Any accepts any argument there. It returns nil, false
// when nothing matches and nil, true when the choice is ambiguous.
func SelectCandidate(cands []*Func, in []Type) (*Func, bool) { return resolve(cands, in, false) }

// Instantiate is the builtin f chosen by SelectCandidate for arguments of
// types in, with its polymorphic slots filled in.
func Instantiate(f *Func, in []Type) *Func { return instantiate(f, in) }

// FuncNotFound is the error for a call no function matches (42883), or
// several do equally well (42725), with PostgreSQL's hint; sig is the
// argument list as the message prints it ("integer, text").
func FuncNotFound(name, sig string, ambiguous bool) error {
	return funcErrSig(name, sig, ambiguous)
}
