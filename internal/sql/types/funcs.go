package types

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

const (
	errInvalidArgumentForPower = "2201F"
	errSubstring               = "22011"
	maxAllocLen                = 1<<30 - 1 // PostgreSQL's MaxAllocSize
	varHeader                  = 4         // VARHDRSZ
)

func fn(name string, args []Type, ret Type, f func([]Datum) (Datum, error)) {
	addFunc(name, &Func{Args: args, Ret: ret, Strict: true, Fn: f})
}

func f1(name string, f func(float64) (Datum, error)) {
	fn(name, []Type{Float8}, Float8, func(a []Datum) (Datum, error) { return f(a[0].Float()) })
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func charLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// byteOffset returns the byte offset of character n (clamped to len(s)).
func byteOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, sz := utf8.DecodeRuneInString(s[i:])
			i += sz
		}
	}
	return i
}

func checkFloatResult(r float64, inInf bool, zeroOK bool) (Datum, error) {
	if math.IsInf(r, 0) && !inInf {
		return Datum{}, overflowErr()
	}
	if r == 0 && !zeroOK {
		return Datum{}, underflowErr()
	}
	return Float(r), nil
}

func logCheck(x float64) error {
	if x == 0 {
		return pgerr.Errorf(pgerr.InvalidArgumentForLog, "cannot take logarithm of zero")
	}
	if x < 0 {
		return pgerr.Errorf(pgerr.InvalidArgumentForLog, "cannot take logarithm of a negative number")
	}
	return nil
}

func fSqrt(x float64) (Datum, error) {
	if x < 0 {
		return Datum{}, pgerr.Errorf(errInvalidArgumentForPower, "cannot take square root of a negative number")
	}
	return Float(math.Sqrt(x)), nil
}

// fPow is dpow.
func fPow(x, y float64) (Datum, error) {
	if x != x {
		if y != y || y != 0 {
			return Float(x), nil
		}
		return Float(1), nil
	}
	if y != y {
		if x != 1 {
			return Float(y), nil
		}
		return Float(1), nil
	}
	if x == 0 && y < 0 {
		return Datum{}, pgerr.Errorf(errInvalidArgumentForPower, "zero raised to a negative power is undefined")
	}
	if x < 0 && math.Floor(y) != y {
		return Datum{}, pgerr.Errorf(errInvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
	}
	r := math.Pow(x, y)
	inf := math.IsInf(x, 0) || math.IsInf(y, 0)
	if math.IsInf(r, 0) && !inf {
		return Datum{}, overflowErr()
	}
	if r == 0 && x != 0 && !inf {
		return Datum{}, underflowErr()
	}
	return Float(r), nil
}

func rangeErr() error {
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "input is out of range")
}

func trig(name string, f func(float64) float64, domain func(float64) bool) {
	f1(name, func(x float64) (Datum, error) {
		if x != x {
			return Float(x), nil
		}
		if !domain(x) {
			return Datum{}, rangeErr()
		}
		r := f(x)
		if math.IsInf(r, 0) {
			return Datum{}, overflowErr()
		}
		return Float(r), nil
	})
}

func finite(x float64) bool    { return !math.IsInf(x, 0) }
func unitRange(x float64) bool { return x >= -1 && x <= 1 }

func trimSet(s, set string, left, right bool) string {
	if set == " " || isASCII(set) {
		if left {
			i := 0
			for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
				i++
			}
			s = s[i:]
		}
		if right {
			j := len(s)
			for j > 0 && strings.IndexByte(set, s[j-1]) >= 0 {
				j--
			}
			s = s[:j]
		}
		return s
	}
	in := func(r rune) bool { return strings.ContainsRune(set, r) }
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

func substr(s string, start int64, length int64, hasLen bool) (Datum, error) {
	s1 := start
	if s1 < 1 {
		s1 = 1
	}
	if !hasLen {
		if s1-1 >= int64(len(s)) {
			return Str(""), nil
		}
		return Str(s[byteOffset(s, int(s1-1)):]), nil
	}
	if length < 0 {
		return Datum{}, pgerr.Errorf(errSubstring, "negative substring length not allowed")
	}
	e := start + length
	if e < 1 {
		return Str(""), nil
	}
	l := e - s1
	if s1-1 >= int64(len(s)) {
		return Str(""), nil
	}
	b := byteOffset(s, int(s1-1))
	rest := s[b:]
	if l >= int64(len(rest)) {
		return Str(rest), nil
	}
	return Str(rest[:byteOffset(rest, int(l))]), nil
}

func tooLarge() error {
	return pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested length too large")
}

func pad(st *Settings, s string, n int64, fill string, left bool) (Datum, error) {
	if n < 0 {
		n = 0
	}
	// PostgreSQL sizes the result for the encoding's longest character
	// (4 bytes in UTF8) and a varlena header before filling it.
	if n*utf8.UTFMax > maxAllocLen-varHeader {
		return Datum{}, tooLarge()
	}
	slen := int64(charLen(s))
	if slen > n {
		slen = n
		s = s[:byteOffset(s, int(n))]
	}
	if fill == "" || slen == n {
		return Str(s), nil
	}
	need := int(n - slen)
	var b strings.Builder
	if !left {
		b.WriteString(s)
	}
	fl := charLen(fill)
	b.Grow(len(s) + need/fl*len(fill) + len(fill))
	if err := appendRepeated(st, &b, fill, need/fl); err != nil {
		return Datum{}, err
	}
	b.WriteString(fill[:byteOffset(fill, need%fl)])
	if left {
		b.WriteString(s)
	}
	return Str(b.String()), nil
}

// initcap, upper and lower follow PostgreSQL in the C locale (lc_ctype C,
// matching the C collation used for comparisons): only ASCII letters
// change case and only ASCII letters and digits form words.
func initcap(s string) string {
	b := []byte(s)
	prevAlnum := false
	for i, c := range b {
		lc := c | 0x20
		if prevAlnum {
			if c >= 'A' && c <= 'Z' {
				b[i] = lc
			}
		} else if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
		prevAlnum = (lc >= 'a' && lc <= 'z') || (c >= '0' && c <= '9')
	}
	return string(b)
}

func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'a' && c <= 'z' {
					b[j] = c - 32
				}
			}
			return string(b)
		}
	}
	return s
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 32
				}
			}
			return string(b)
		}
	}
	return s
}

func txnTime(a []Datum) (Datum, error) { return TimestampMicros(a[len(a)-1].Int()), nil }

func randomInt(a []Datum) (Datum, error) {
	lo, hi := a[0].Int(), a[1].Int()
	if lo > hi {
		return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "lower bound must be less than or equal to upper bound")
	}
	span := uint64(hi - lo)
	if span == math.MaxUint64 {
		return Int(int64(rand.Uint64())), nil
	}
	return Int(lo + int64(rand.Uint64N(span+1))), nil
}

func init() {
	// math
	f1("log", func(x float64) (Datum, error) {
		if err := logCheck(x); err != nil {
			return Datum{}, err
		}
		return Float(math.Log10(x)), nil
	})
	f1("log10", func(x float64) (Datum, error) {
		if err := logCheck(x); err != nil {
			return Datum{}, err
		}
		return Float(math.Log10(x)), nil
	})
	f1("ln", func(x float64) (Datum, error) {
		if err := logCheck(x); err != nil {
			return Datum{}, err
		}
		return Float(math.Log(x)), nil
	})
	// log(b, x) exists only for numeric in PostgreSQL (numeric_log.go).
	f1("exp", func(x float64) (Datum, error) {
		if x != x {
			return Float(x), nil
		}
		if math.IsInf(x, 0) {
			if x > 0 {
				return Float(x), nil
			}
			return Float(0), nil
		}
		r := math.Exp(x)
		if math.IsInf(r, 0) {
			return Datum{}, overflowErr()
		}
		if r == 0 {
			return Datum{}, underflowErr()
		}
		return Float(r), nil
	})
	f1("sqrt", fSqrt)
	f1("cbrt", func(x float64) (Datum, error) { return Float(math.Cbrt(x)), nil })
	for _, name := range []string{"power", "pow"} {
		fn(name, []Type{Float8, Float8}, Float8, func(a []Datum) (Datum, error) { return fPow(a[0].Float(), a[1].Float()) })
	}
	f1("round", func(x float64) (Datum, error) { return Float(math.RoundToEven(x)), nil })
	f1("floor", func(x float64) (Datum, error) { return Float(math.Floor(x)), nil })
	f1("ceil", func(x float64) (Datum, error) { return Float(math.Ceil(x)), nil })
	f1("ceiling", func(x float64) (Datum, error) { return Float(math.Ceil(x)), nil })
	f1("trunc", func(x float64) (Datum, error) { return Float(math.Trunc(x)), nil })
	f1("sign", func(x float64) (Datum, error) {
		switch {
		case x > 0:
			return Float(1), nil
		case x < 0:
			return Float(-1), nil
		}
		return Float(0), nil
	})
	f1("degrees", func(x float64) (Datum, error) { return checkFloatResult(x*(180/math.Pi), math.IsInf(x, 0), true) })
	f1("radians", func(x float64) (Datum, error) { return checkFloatResult(x*(math.Pi/180), math.IsInf(x, 0), true) })
	fn("pi", nil, Float8, func([]Datum) (Datum, error) { return Float(math.Pi), nil })
	trig("sin", math.Sin, finite)
	trig("cos", math.Cos, finite)
	trig("tan", math.Tan, finite)
	trig("cot", func(x float64) float64 { return 1 / math.Tan(x) }, finite)
	trig("asin", math.Asin, unitRange)
	trig("acos", math.Acos, unitRange)
	trig("atan", math.Atan, func(float64) bool { return true })
	fn("atan2", []Type{Float8, Float8}, Float8, func(a []Datum) (Datum, error) { return Float(math.Atan2(a[0].Float(), a[1].Float())), nil })
	for _, t := range intTypes {
		t := t
		fn("abs", []Type{t}, t, func(a []Datum) (Datum, error) { return intAbs(a[0].Int(), t.OID) })
		fn("mod", []Type{t, t}, t, intMod)
	}
	for _, t := range []Type{Float4, Float8} {
		fn("abs", []Type{t}, t, func(a []Datum) (Datum, error) { return Float(math.Abs(a[0].Float())), nil })
	}
	addFunc("random", &Func{Ret: Float8, Strict: true, Volatile: true, Fn: func([]Datum) (Datum, error) { return Float(rand.Float64()), nil }})
	addFunc("random", &Func{Args: []Type{Int4, Int4}, Ret: Int4, Strict: true, Volatile: true, Fn: randomInt})
	addFunc("random", &Func{Args: []Type{Int8, Int8}, Ret: Int8, Strict: true, Volatile: true, Fn: randomInt})

	// time: now(), current_date, … are registered in datetime_funcs.go

	// strings
	fn("md5", []Type{Text}, Text, func(a []Datum) (Datum, error) {
		sum := md5.Sum([]byte(a[0].Str()))
		return Str(hex.EncodeToString(sum[:])), nil
	})
	fn("md5", []Type{Bytea}, Text, func(a []Datum) (Datum, error) {
		sum := md5.Sum([]byte(a[0].Str()))
		return Str(hex.EncodeToString(sum[:])), nil
	})
	for _, name := range []string{"length", "char_length", "character_length"} {
		fn(name, []Type{Text}, Int4, func(a []Datum) (Datum, error) { return Int(int64(charLen(a[0].Str()))), nil })
		fn(name, []Type{BpcharAny}, Int4, func(a []Datum) (Datum, error) {
			return Int(int64(charLen(TrimBlankPadding(a[0].Str())))), nil
		})
	}
	fn("length", []Type{Bytea}, Int4, func(a []Datum) (Datum, error) { return Int(int64(len(a[0].Str()))), nil })
	for _, t := range []Type{Text, BpcharAny, Bytea} {
		fn("octet_length", []Type{t}, Int4, func(a []Datum) (Datum, error) { return Int(int64(len(a[0].Str()))), nil })
	}
	fn("bit_length", []Type{Text}, Int4, func(a []Datum) (Datum, error) { return Int(int64(8 * len(a[0].Str()))), nil })
	fn("upper", []Type{Text}, Text, func(a []Datum) (Datum, error) { return Str(upper(a[0].Str())), nil })
	fn("lower", []Type{Text}, Text, func(a []Datum) (Datum, error) { return Str(lower(a[0].Str())), nil })
	fn("initcap", []Type{Text}, Text, func(a []Datum) (Datum, error) { return Str(initcap(a[0].Str())), nil })
	for _, name := range []string{"substr", "substring"} {
		fn(name, []Type{Text, Int4}, Text, func(a []Datum) (Datum, error) { return substr(a[0].Str(), a[1].Int(), 0, false) })
		fn(name, []Type{Text, Int4, Int4}, Text, func(a []Datum) (Datum, error) { return substr(a[0].Str(), a[1].Int(), a[2].Int(), true) })
	}
	fnLong("repeat", []Type{Text, Int4}, Text, func(st *Settings, a []Datum) (Datum, error) {
		n := a[1].Int()
		if n <= 0 || a[0].Str() == "" {
			return Str(""), nil
		}
		if n*int64(len(a[0].Str())) > maxAllocLen-varHeader {
			return Datum{}, tooLarge()
		}
		var b strings.Builder
		b.Grow(int(n) * len(a[0].Str()))
		if err := appendRepeated(st, &b, a[0].Str(), int(n)); err != nil {
			return Datum{}, err
		}
		return Str(b.String()), nil
	})
	fn("left", []Type{Text, Int4}, Text, func(a []Datum) (Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		if n < 0 {
			n = int64(charLen(s)) + n
			if n <= 0 {
				return Str(""), nil
			}
		}
		if n >= int64(len(s)) {
			return Str(s), nil
		}
		return Str(s[:byteOffset(s, int(n))]), nil
	})
	fn("right", []Type{Text, Int4}, Text, func(a []Datum) (Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		l := int64(charLen(s))
		var skip int64
		if n < 0 {
			skip = -n
		} else {
			skip = l - n
		}
		if skip <= 0 {
			return Str(s), nil
		}
		if skip >= l {
			return Str(""), nil
		}
		return Str(s[byteOffset(s, int(skip)):]), nil
	})
	trims := []struct {
		name        string
		left, right bool
	}{{"btrim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}}
	for _, tr := range trims {
		tr := tr
		fn(tr.name, []Type{Text}, Text, func(a []Datum) (Datum, error) { return Str(trimSet(a[0].Str(), " ", tr.left, tr.right)), nil })
		fn(tr.name, []Type{Text, Text}, Text, func(a []Datum) (Datum, error) {
			return Str(trimSet(a[0].Str(), a[1].Str(), tr.left, tr.right)), nil
		})
	}
	fnLong("replace", []Type{Text, Text, Text}, Text, func(st *Settings, a []Datum) (Datum, error) {
		if a[1].Str() == "" {
			return a[0], nil
		}
		r, err := replaceAll(st, a[0].Str(), a[1].Str(), a[2].Str())
		return Str(r), err
	})
	for _, name := range []string{"strpos", "position"} {
		fn(name, []Type{Text, Text}, Int4, func(a []Datum) (Datum, error) {
			i := strings.Index(a[0].Str(), a[1].Str())
			if i < 0 {
				return Int(0), nil
			}
			return Int(int64(charLen(a[0].Str()[:i]) + 1)), nil
		})
	}
	fn("starts_with", []Type{Text, Text}, Boolean, func(a []Datum) (Datum, error) {
		return Bool(strings.HasPrefix(a[0].Str(), a[1].Str())), nil
	})
	fn("reverse", []Type{Text}, Text, func(a []Datum) (Datum, error) {
		s := a[0].Str()
		b := make([]byte, len(s))
		for i := 0; i < len(s); {
			_, sz := utf8.DecodeRuneInString(s[i:])
			copy(b[len(s)-i-sz:], s[i:i+sz])
			i += sz
		}
		return Str(string(b)), nil
	})
	fnLong("lpad", []Type{Text, Int4}, Text, func(st *Settings, a []Datum) (Datum, error) { return pad(st, a[0].Str(), a[1].Int(), " ", true) })
	fnLong("lpad", []Type{Text, Int4, Text}, Text, func(st *Settings, a []Datum) (Datum, error) { return pad(st, a[0].Str(), a[1].Int(), a[2].Str(), true) })
	fnLong("rpad", []Type{Text, Int4}, Text, func(st *Settings, a []Datum) (Datum, error) { return pad(st, a[0].Str(), a[1].Int(), " ", false) })
	fnLong("rpad", []Type{Text, Int4, Text}, Text, func(st *Settings, a []Datum) (Datum, error) {
		return pad(st, a[0].Str(), a[1].Int(), a[2].Str(), false)
	})
	fn("split_part", []Type{Text, Text, Int4}, Text, func(a []Datum) (Datum, error) {
		s, sep, n := a[0].Str(), a[1].Str(), a[2].Int()
		if n == 0 {
			return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "field position must not be zero")
		}
		if s == "" {
			return Str(""), nil
		}
		if sep == "" {
			if n == 1 || n == -1 {
				return Str(s), nil
			}
			return Str(""), nil
		}
		parts := strings.Split(s, sep)
		if n < 0 {
			n = int64(len(parts)) + n + 1
		}
		if n < 1 || n > int64(len(parts)) {
			return Str(""), nil
		}
		return Str(parts[n-1]), nil
	})
	fnLong("translate", []Type{Text, Text, Text}, Text, func(st *Settings, a []Datum) (Datum, error) {
		from, to := []rune(a[1].Str()), []rune(a[2].Str())
		var b strings.Builder
		for i, r := range a[0].Str() {
			if i&(checkEveryBytes-1) < utf8.UTFMax {
				if err := st.checkInterrupts(); err != nil {
					return Datum{}, err
				}
			}
			k := -1
			for i, f := range from {
				if f == r {
					k = i
					break
				}
			}
			switch {
			case k < 0:
				b.WriteRune(r)
			case k < len(to):
				b.WriteRune(to[k])
			}
		}
		return Str(b.String()), nil
	})
	fn("ascii", []Type{Text}, Int4, func(a []Datum) (Datum, error) {
		if a[0].Str() == "" {
			return Int(0), nil
		}
		r, _ := utf8.DecodeRuneInString(a[0].Str())
		return Int(int64(r)), nil
	})
	fn("chr", []Type{Int4}, Text, func(a []Datum) (Datum, error) {
		c := a[0].Int()
		switch {
		case c == 0:
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "null character not permitted")
		case c < 0:
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "character number must be positive")
		case c > 0x10FFFF:
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
		case c >= 0xD800 && c <= 0xDFFF:
			return Datum{}, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", c)
		}
		return Str(string(rune(c))), nil
	})
	fn("to_hex", []Type{Int4}, Text, func(a []Datum) (Datum, error) {
		return Str(strconv.FormatUint(uint64(uint32(a[0].Int())), 16)), nil
	})
	fn("to_hex", []Type{Int8}, Text, func(a []Datum) (Datum, error) {
		return Str(strconv.FormatUint(uint64(a[0].Int()), 16)), nil
	})
}

// variadicConcat builds concat(VARIADIC "any") and concat_ws(text,
// VARIADIC "any"). Args are the actual argument types (concat_ws's first
// argument declared text); these functions are not strict: NULL arguments
// are skipped (concat_ws returns NULL when the separator is NULL).
func variadicConcat(name string, in []Type) *Func {
	if len(in) == 0 {
		return nil
	}
	types := make([]Type, len(in))
	copy(types, in)
	for _, t := range types {
		if t.OID == VoidOID || t.OID == RecordOID {
			return nil
		}
	}
	if name == "concat" {
		return &Func{Name: name, Args: types, Ret: Text, Stable: true, Fn: func(a []Datum) (Datum, error) {
			var buf []byte
			for i, d := range a {
				if d.Kind() != kNull {
					buf = AppendText(buf, types[i], d)
				}
			}
			return Str(string(buf)), nil
		}}
	}
	types[0] = Text
	return &Func{Name: name, Args: types, Ret: Text, Stable: true, Fn: func(a []Datum) (Datum, error) {
		if a[0].Kind() == kNull {
			return Datum{}, nil
		}
		var buf []byte
		first := true
		for i := 1; i < len(a); i++ {
			if a[i].Kind() == kNull {
				continue
			}
			if !first {
				buf = append(buf, a[0].Str()...)
			}
			first = false
			buf = AppendText(buf, types[i], a[i])
		}
		return Str(string(buf)), nil
	}}
}
