package types

import "github.com/tidal-db/tidal/internal/datum"

// The polymorphic and other pseudo-types that function declarations may
// name (CREATE FUNCTION … (anyelement) RETURNS anyarray, RETURNS
// trigger): they are never the type of a stored value. Resolution binds a
// call's polymorphic arguments to actual types (package routine); "any",
// record and void are in types.go.
// Their OIDs and physical descriptions are package datum's.
const (
	CstringOID            = datum.CstringOID
	AnyArrayOID           = datum.AnyArrayOID
	TriggerOID            = datum.TriggerOID
	InternalOID           = datum.InternalOID
	AnyElementOID         = datum.AnyElementOID
	AnyNonArrayOID        = datum.AnyNonArrayOID
	AnyCompatibleOID      = datum.AnyCompatibleOID
	AnyCompatibleArrayOID = datum.AnyCompatibleArrayOID
	AnyCompatibleNonArray = datum.AnyCompatibleNonArrayOID
)

var (
	AnyElement = datum.AnyElement
	AnyArray   = datum.AnyArray
)

var pseudoInfos = map[OID]*typeInfo{
	CstringOID:            {"cstring", "cstring", 'P', false},
	AnyArrayOID:           {"anyarray", "anyarray", 'P', false},
	TriggerOID:            {"trigger", "trigger", 'P', false},
	InternalOID:           {"internal", "internal", 'P', false},
	AnyElementOID:         {"anyelement", "anyelement", 'P', false},
	AnyNonArrayOID:        {"anynonarray", "anynonarray", 'P', false},
	AnyCompatibleOID:      {"anycompatible", "anycompatible", 'P', false},
	AnyCompatibleArrayOID: {"anycompatiblearray", "anycompatiblearray", 'P', false},
	AnyCompatibleNonArray: {"anycompatiblenonarray", "anycompatiblenonarray", 'P', false},
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
