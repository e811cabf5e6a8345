package types

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

var intTypes = []Type{Int2, Int4, Int8}

func wider(a, b Type) Type {
	if a.OID == Int8OID || b.OID == Int8OID {
		return Int8
	}
	if a.OID == Int4OID || b.OID == Int4OID {
		return Int4
	}
	return Int2
}

func divZero() error { return pgerr.Errorf(pgerr.DivisionByZero, "division by zero") }

func overflowErr() error {
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}

func underflowErr() error {
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: underflow")
}

// Integer arithmetic. int2/int4 results are computed in int64 and range
// checked; int8 uses overflow detection.

func intAdd(ret OID) func([]Datum) (Datum, error) {
	if ret == Int8OID {
		return func(a []Datum) (Datum, error) {
			x, y := a[0].Int(), a[1].Int()
			r := x + y
			if (x^r)&(y^r) < 0 {
				return Datum{}, intRangeErr(Int8OID)
			}
			return Int(r), nil
		}
	}
	return func(a []Datum) (Datum, error) { return checkIntRange(a[0].Int()+a[1].Int(), ret) }
}

func intSub(ret OID) func([]Datum) (Datum, error) {
	if ret == Int8OID {
		return func(a []Datum) (Datum, error) {
			x, y := a[0].Int(), a[1].Int()
			r := x - y
			if (x^y)&(x^r) < 0 {
				return Datum{}, intRangeErr(Int8OID)
			}
			return Int(r), nil
		}
	}
	return func(a []Datum) (Datum, error) { return checkIntRange(a[0].Int()-a[1].Int(), ret) }
}

func intMul(ret OID) func([]Datum) (Datum, error) {
	if ret == Int8OID {
		return func(a []Datum) (Datum, error) {
			x, y := a[0].Int(), a[1].Int()
			r := x * y
			if x != 0 && (r/x != y || (x == -1 && y == math.MinInt64)) {
				return Datum{}, intRangeErr(Int8OID)
			}
			return Int(r), nil
		}
	}
	return func(a []Datum) (Datum, error) { return checkIntRange(a[0].Int()*a[1].Int(), ret) }
}

func intDiv(ret OID) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		x, y := a[0].Int(), a[1].Int()
		if y == 0 {
			return Datum{}, divZero()
		}
		if y == -1 {
			if ret == Int8OID && x == math.MinInt64 {
				return Datum{}, intRangeErr(Int8OID)
			}
			return checkIntRange(-x, ret)
		}
		return Int(x / y), nil
	}
}

func intMod(a []Datum) (Datum, error) {
	x, y := a[0].Int(), a[1].Int()
	if y == 0 {
		return Datum{}, divZero()
	}
	if y == -1 {
		return Int(0), nil
	}
	return Int(x % y), nil
}

// float arithmetic with PostgreSQL's overflow/underflow checks

func fAdd(x, y float64) (Datum, error) {
	r := x + y
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return Datum{}, overflowErr()
	}
	return Float(r), nil
}

func fSub(x, y float64) (Datum, error) {
	r := x - y
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return Datum{}, overflowErr()
	}
	return Float(r), nil
}

func fMul(x, y float64) (Datum, error) {
	r := x * y
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return Datum{}, overflowErr()
	}
	if r == 0 && x != 0 && y != 0 {
		return Datum{}, underflowErr()
	}
	return Float(r), nil
}

func fDiv(x, y float64) (Datum, error) {
	if y == 0 && x == x {
		return Datum{}, divZero()
	}
	r := x / y
	if math.IsInf(r, 0) && !math.IsInf(x, 0) {
		return Datum{}, overflowErr()
	}
	if r == 0 && x != 0 && !math.IsInf(y, 0) {
		return Datum{}, underflowErr()
	}
	return Float(r), nil
}

// f4 is float4 arithmetic, done in single precision.
func f4(op func(x, y float32) float32) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		x, y := float32(a[0].Float()), float32(a[1].Float())
		r := op(x, y)
		if math.IsInf(float64(r), 0) && !math.IsInf(float64(x), 0) && !math.IsInf(float64(y), 0) {
			return Datum{}, overflowErr()
		}
		return Float(float64(r)), nil
	}
}

func f8(op func(x, y float64) (Datum, error)) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) { return op(a[0].Float(), a[1].Float()) }
}

func boolRes(b bool) Datum { return Bool(b) }

// comparison operator builders from a three-way compare
func cmpOps(left, right Type, cmp func(a, b Datum) int) {
	addOp("=", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(cmp(a[0], a[1]) == 0), nil }})
	addOp("<>", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(cmp(a[0], a[1]) != 0), nil }})
	addOp("<", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(cmp(a[0], a[1]) < 0), nil }})
	addOp("<=", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(cmp(a[0], a[1]) <= 0), nil }})
	addOp(">", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(cmp(a[0], a[1]) > 0), nil }})
	addOp(">=", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(cmp(a[0], a[1]) >= 0), nil }})
}

func intOps(left, right Type) {
	addOp("=", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(a[0].Int() == a[1].Int()), nil }})
	addOp("<>", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(a[0].Int() != a[1].Int()), nil }})
	addOp("<", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(a[0].Int() < a[1].Int()), nil }})
	addOp("<=", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(a[0].Int() <= a[1].Int()), nil }})
	addOp(">", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(a[0].Int() > a[1].Int()), nil }})
	addOp(">=", &Func{Args: []Type{left, right}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(a[0].Int() >= a[1].Int()), nil }})
}

func strCmp(a, b Datum) int { return strings.Compare(a.Str(), b.Str()) }
func bpcharCmp(a, b Datum) int {
	return strings.Compare(TrimBlankPadding(a.Str()), TrimBlankPadding(b.Str()))
}
func floatCmp(a, b Datum) int    { return CompareFloat(a.Float(), b.Float()) }
func vecCmp(a, b Datum) int      { return datum.CompareInt2Vector(a.Str(), b.Str()) }
func intCmpDatum(a, b Datum) int { return cmpInt(a.Int(), b.Int()) }

func init() {
	// integer arithmetic and comparison, all nine int2/int4/int8 combinations
	for _, l := range intTypes {
		for _, r := range intTypes {
			ret := wider(l, r)
			addOp("+", &Func{Args: []Type{l, r}, Ret: ret, Fn: intAdd(ret.OID)})
			addOp("-", &Func{Args: []Type{l, r}, Ret: ret, Fn: intSub(ret.OID)})
			addOp("*", &Func{Args: []Type{l, r}, Ret: ret, Fn: intMul(ret.OID)})
			addOp("/", &Func{Args: []Type{l, r}, Ret: ret, Fn: intDiv(ret.OID)})
			intOps(l, r)
		}
	}
	for _, t := range intTypes {
		t := t
		addOp("%", &Func{Args: []Type{t, t}, Ret: t, Fn: intMod})
		addOp("-", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) {
			if t.OID == Int8OID && a[0].Int() == math.MinInt64 {
				return Datum{}, intRangeErr(Int8OID)
			}
			return checkIntRange(-a[0].Int(), t.OID)
		}})
		addOp("+", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return a[0], nil }})
		addOp("@", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return intAbs(a[0].Int(), t.OID) }})
		addOp("&", &Func{Args: []Type{t, t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return Int(a[0].Int() & a[1].Int()), nil }})
		addOp("|", &Func{Args: []Type{t, t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return Int(a[0].Int() | a[1].Int()), nil }})
		addOp("#", &Func{Args: []Type{t, t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return Int(a[0].Int() ^ a[1].Int()), nil }})
		addOp("~", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return Int(^a[0].Int()), nil }})
		bitsz := int64(16)
		switch t.OID {
		case Int4OID:
			bitsz = 32
		case Int8OID:
			bitsz = 64
		}
		addOp("<<", &Func{Args: []Type{t, Int4}, Ret: t, Fn: func(a []Datum) (Datum, error) {
			// C shift semantics on the type's width (count taken modulo width on x86)
			n := uint64(a[1].Int()) & uint64(bitsz-1)
			v := a[0].Int() << n
			switch bitsz {
			case 16:
				v = int64(int16(v))
			case 32:
				v = int64(int32(v))
			}
			return Int(v), nil
		}})
		addOp(">>", &Func{Args: []Type{t, Int4}, Ret: t, Fn: func(a []Datum) (Datum, error) {
			n := uint64(a[1].Int()) & uint64(bitsz-1)
			return Int(a[0].Int() >> n), nil
		}})
	}

	// float arithmetic
	addOp("+", &Func{Args: []Type{Float8, Float8}, Ret: Float8, Fn: f8(fAdd)})
	addOp("-", &Func{Args: []Type{Float8, Float8}, Ret: Float8, Fn: f8(fSub)})
	addOp("*", &Func{Args: []Type{Float8, Float8}, Ret: Float8, Fn: f8(fMul)})
	addOp("/", &Func{Args: []Type{Float8, Float8}, Ret: Float8, Fn: f8(fDiv)})
	for _, p := range [][2]Type{{Float4, Float8}, {Float8, Float4}} {
		addOp("+", &Func{Args: p[:], Ret: Float8, Fn: f8(fAdd)})
		addOp("-", &Func{Args: p[:], Ret: Float8, Fn: f8(fSub)})
		addOp("*", &Func{Args: p[:], Ret: Float8, Fn: f8(fMul)})
		addOp("/", &Func{Args: p[:], Ret: Float8, Fn: f8(fDiv)})
		cmpOps(p[0], p[1], floatCmp)
	}
	addOp("+", &Func{Args: []Type{Float4, Float4}, Ret: Float4, Fn: f4(func(x, y float32) float32 { return x + y })})
	addOp("-", &Func{Args: []Type{Float4, Float4}, Ret: Float4, Fn: f4(func(x, y float32) float32 { return x - y })})
	addOp("*", &Func{Args: []Type{Float4, Float4}, Ret: Float4, Fn: func(a []Datum) (Datum, error) {
		x, y := float32(a[0].Float()), float32(a[1].Float())
		r := x * y
		if math.IsInf(float64(r), 0) && !math.IsInf(float64(x), 0) && !math.IsInf(float64(y), 0) {
			return Datum{}, overflowErr()
		}
		if r == 0 && x != 0 && y != 0 {
			return Datum{}, underflowErr()
		}
		return Float(float64(r)), nil
	}})
	addOp("/", &Func{Args: []Type{Float4, Float4}, Ret: Float4, Fn: func(a []Datum) (Datum, error) {
		x, y := float32(a[0].Float()), float32(a[1].Float())
		if y == 0 && x == x {
			return Datum{}, divZero()
		}
		r := x / y
		if math.IsInf(float64(r), 0) && !math.IsInf(float64(x), 0) {
			return Datum{}, overflowErr()
		}
		if r == 0 && x != 0 && !math.IsInf(float64(y), 0) {
			return Datum{}, underflowErr()
		}
		return Float(float64(r)), nil
	}})
	for _, t := range []Type{Float4, Float8} {
		addOp("-", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return Float(-a[0].Float()), nil }})
		addOp("+", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return a[0], nil }})
		addOp("@", &Func{Args: []Type{t}, Ret: t, Fn: func(a []Datum) (Datum, error) { return Float(math.Abs(a[0].Float())), nil }})
		cmpOps(t, t, floatCmp)
	}
	addOp("^", &Func{Args: []Type{Float8, Float8}, Ret: Float8, Fn: func(a []Datum) (Datum, error) { return fPow(a[0].Float(), a[1].Float()) }})
	addOp("|/", &Func{Args: []Type{Float8}, Ret: Float8, Fn: func(a []Datum) (Datum, error) { return fSqrt(a[0].Float()) }})
	addOp("||/", &Func{Args: []Type{Float8}, Ret: Float8, Fn: func(a []Datum) (Datum, error) { return Float(math.Cbrt(a[0].Float())), nil }})

	// comparisons of the other types
	intOps(Boolean, Boolean)
	intOps(Oid, Oid)
	intOps(Char, Char)
	intOps(Timestamp, Timestamp)
	intOps(Timestamptz, Timestamptz)
	// timestamp vs timestamptz compares in the session's zone: date.go
	cmpOps(Text, Text, strCmp)
	cmpOps(Name, Name, strCmp)
	cmpOps(Name, Text, strCmp)
	cmpOps(Text, Name, strCmp)
	cmpOps(BpcharAny, BpcharAny, bpcharCmp)
	cmpOps(Bytea, Bytea, strCmp)
	cmpOps(Int2VectorType, Int2VectorType, vecCmp)
	_ = intCmpDatum

	// string concatenation
	addOp("||", &Func{Args: []Type{Text, Text}, Ret: Text, Fn: func(a []Datum) (Datum, error) { return Str(a[0].Str() + a[1].Str()), nil }})
	addOp("||", &Func{Args: []Type{Bytea, Bytea}, Ret: Bytea, Fn: func(a []Datum) (Datum, error) { return Str(a[0].Str() + a[1].Str()), nil }})
	addOp("||", &Func{Args: []Type{Text, Any}, Ret: Text, poly: func(actual []Type) *Func {
		rt := actual[1]
		return &Func{Name: "||", Args: actual, Ret: Text, Strict: true, Fn: func(a []Datum) (Datum, error) {
			t, err := Cast(a[1], rt, Text, CastExplicit)
			if err != nil {
				return Datum{}, err
			}
			return Str(a[0].Str() + t.Str()), nil
		}}
	}})
	addOp("||", &Func{Args: []Type{Any, Text}, Ret: Text, poly: func(actual []Type) *Func {
		lt := actual[0]
		return &Func{Name: "||", Args: actual, Ret: Text, Strict: true, Fn: func(a []Datum) (Datum, error) {
			t, err := Cast(a[0], lt, Text, CastExplicit)
			if err != nil {
				return Datum{}, err
			}
			return Str(t.Str() + a[1].Str()), nil
		}}
	}})

	// LIKE / ILIKE (backslash escape)
	for _, t := range []Type{Text, Name, BpcharAny} {
		t := t
		get := func(d Datum) string { return d.Str() } // bpchar LIKE sees the padding, as in PostgreSQL
		addOp("~~", &Func{Args: []Type{t, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
			return likeOp(get(a[0]), a[1].Str(), false, false)
		}})
		addOp("!~~", &Func{Args: []Type{t, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
			return likeOp(get(a[0]), a[1].Str(), false, true)
		}})
		addOp("~~*", &Func{Args: []Type{t, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
			return likeOp(get(a[0]), a[1].Str(), true, false)
		}})
		addOp("!~~*", &Func{Args: []Type{t, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
			return likeOp(get(a[0]), a[1].Str(), true, true)
		}})
	}
	addOp("~~", &Func{Args: []Type{Bytea, Bytea}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return likeOp(a[0].Str(), a[1].Str(), false, false)
	}})
	addOp("!~~", &Func{Args: []Type{Bytea, Bytea}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return likeOp(a[0].Str(), a[1].Str(), false, true)
	}})
}

func intAbs(v int64, t OID) (Datum, error) {
	if v < 0 {
		if t == Int8OID && v == math.MinInt64 {
			return Datum{}, intRangeErr(t)
		}
		return checkIntRange(-v, t)
	}
	return Int(v), nil
}

func likeOp(s, p string, fold, negate bool) (Datum, error) {
	if fold {
		s, p = lower(s), lower(p)
	}
	m, err := Like(s, p)
	if err != nil {
		return Datum{}, err
	}
	return boolRes(m != negate), nil
}

// Like reports whether s matches the SQL LIKE pattern p (% any string,
// _ any one character, backslash escapes the next character).
func Like(s, p string) (bool, error) {
	// iterative matcher with single backtrack point for '%'
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch c := p[pi]; c {
			case '%':
				for pi < len(p) && p[pi] == '%' {
					pi++
				}
				if pi == len(p) {
					return true, nil
				}
				starP, starS = pi, si
				continue
			case '_':
				_, sz := utf8.DecodeRuneInString(s[si:])
				si += sz
				pi++
				continue
			case '\\':
				if pi+1 >= len(p) {
					return false, pgerr.Errorf("22025", "LIKE pattern must not end with escape character")
				}
				_, psz := utf8.DecodeRuneInString(p[pi+1:])
				_, ssz := utf8.DecodeRuneInString(s[si:])
				if psz == ssz && p[pi+1:pi+1+psz] == s[si:si+ssz] {
					si += ssz
					pi += 1 + psz
					continue
				}
			default:
				_, psz := utf8.DecodeRuneInString(p[pi:])
				_, ssz := utf8.DecodeRuneInString(s[si:])
				if psz == ssz && p[pi:pi+psz] == s[si:si+ssz] {
					si += ssz
					pi += psz
					continue
				}
			}
		}
		if starP < 0 {
			return false, nil
		}
		_, sz := utf8.DecodeRuneInString(s[starS:])
		starS += sz
		si, pi = starS, starP
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p), nil
}
