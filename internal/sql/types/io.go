package types

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Parse is the type's input function (text format), including typmod
// enforcement as PostgreSQL's input functions do when given a typmod
// (COPY, INSERT of a literal): varchar(n)/char(n) raise 22001 when the value
// is too long unless the excess characters are spaces (which are dropped);
// char(n) values are blank-padded to n characters; timestamp(p) is rounded
// to p fractional digits; name is truncated to 63 bytes.
// Parsing an Unknown-typed value gives the string unchanged.
func Parse(t Type, s string) (Datum, error) { return ParseWith(nil, t, s) }

// ParseWith is Parse in a session's settings (timestamptz input without a
// zone is in the session's TimeZone).
func ParseWith(st *Settings, t Type, s string) (Datum, error) {
	if d, err, ok := parseNewType(st, t, s); ok {
		return d, err
	}
	if d, err, ok := parseUserType(st, t, s); ok {
		return d, err
	}
	switch t.OID {
	case Int4OID:
		v, err := parseInt(s, 32, "integer")
		return Int(v), err
	case Int8OID:
		v, err := parseInt(s, 64, "bigint")
		return Int(v), err
	case Int2OID:
		v, err := parseInt(s, 16, "smallint")
		return Int(v), err
	case TextOID, UnknownOID:
		return Str(s), nil
	case VarcharOID:
		if t.Typmod >= VarHdrSz {
			v, err := checkLength(s, int(t.Typmod-VarHdrSz), false, "character varying")
			return Str(v), err
		}
		return Str(s), nil
	case BpcharOID:
		if t.Typmod >= VarHdrSz {
			v, err := checkLength(s, int(t.Typmod-VarHdrSz), false, "character")
			return Str(v), err
		}
		return Str(s), nil
	case Float8OID:
		v, err := parseFloat(s, 64)
		return Float(v), err
	case Float4OID:
		v, err := parseFloat(s, 32)
		return Float(v), err
	case BoolOID:
		b, ok := parseBool(s)
		if !ok {
			return Datum{}, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type boolean: %q", s)
		}
		return Bool(b), nil
	case TimestampOID, TimestamptzOID:
		v, err := parseTimestampIn(st, s, t.OID == TimestamptzOID, t.Typmod)
		return TimestampMicros(v), err
	case NameOID:
		return Str(truncName(s)), nil
	case OidOID:
		v, err := parseOid(s)
		return Int(v), err
	case ByteaOID:
		b, err := parseBytea(s)
		return Str(b), err
	case CharOID:
		return Int(int64(parseChar(s))), nil
	case Int2VectorOID:
		return parseInt2Vector(s)
	case VoidOID:
		return Datum{}, nil
	case NumericOID:
		return parseNumeric(s, t.Typmod)
	case RegtypeOID:
		return parseRegtypeWith(st, s)
	}
	if IsArray(t) {
		return parseArray(st, t, s)
	}
	return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "input of type %s is not supported", t.String())
}

// ParseBool parses a boolean as PostgreSQL's boolin (prefixes of
// true/false/yes/no, on/off, 1/0; case-insensitive; surrounding whitespace).
func parseBool(s string) (bool, bool) {
	s = strings.TrimFunc(s, isSpaceRune)
	n := len(s)
	if n == 0 {
		return false, false
	}
	var buf [5]byte
	if n > len(buf) {
		return false, false
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	l := string(buf[:n]) // does not escape; compiler avoids allocation for comparisons
	switch buf[0] {
	case 't':
		return true, strings.HasPrefix("true", l)
	case 'f':
		return false, strings.HasPrefix("false", l)
	case 'y':
		return true, strings.HasPrefix("yes", l)
	case 'n':
		return false, strings.HasPrefix("no", l)
	case 'o':
		if n < 2 {
			return false, false
		}
		if strings.HasPrefix("on", l) {
			return true, true
		}
		return false, strings.HasPrefix("off", l)
	case '1':
		return true, n == 1
	case '0':
		return false, n == 1
	}
	return false, false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isSpaceRune(r rune) bool { return r < 0x80 && isSpace(byte(r)) }

var intLimits = [...]struct{ min, max int64 }{
	16: {math.MinInt16, math.MaxInt16},
	32: {math.MinInt32, math.MaxInt32},
	64: {math.MinInt64, math.MaxInt64},
}

// parseInt is PostgreSQL 16+'s pg_strtoint{16,32,64}: optional whitespace,
// sign, decimal digits or 0x/0o/0b prefixed digits, '_' between digits,
// optional whitespace.
func parseInt(s string, bits int, typname string) (int64, error) {
	// fast path: plain decimal digits
	if n := len(s); n > 0 && n < 19 {
		var v int64
		neg := false
		i := 0
		if s[0] == '-' {
			neg = true
			i = 1
		}
		if i < n {
			for ; i < n; i++ {
				c := s[i]
				if c < '0' || c > '9' {
					break
				}
				v = v*10 + int64(c-'0')
			}
			if i == n {
				if neg {
					v = -v
				}
				if v < intLimits[bits].min || v > intLimits[bits].max {
					return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, typname)
				}
				return v, nil
			}
		}
	}
	return parseIntSlow(s, bits, typname)
}

func parseIntSlow(s string, bits int, typname string) (int64, error) {
	p := 0
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	neg := false
	if p < len(s) && (s[p] == '-' || s[p] == '+') {
		neg = s[p] == '-'
		p++
	}
	base := uint64(10)
	if p+1 < len(s) && s[p] == '0' {
		switch s[p+1] {
		case 'x', 'X':
			base = 16
			p += 2
		case 'o', 'O':
			base = 8
			p += 2
		case 'b', 'B':
			base = 2
			p += 2
		}
	}
	var v uint64
	overflow := false
	ndig := 0
	for p < len(s) {
		c := s[p]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		case c == '_':
			// underscore must be between digits
			if ndig == 0 || p+1 >= len(s) || digitVal(s[p+1]) >= base {
				return 0, intSyntaxErr(s, typname)
			}
			p++
			continue
		default:
			d = 99
		}
		if d >= base {
			break
		}
		if v > (math.MaxUint64-d)/base {
			overflow = true
		} else {
			v = v*base + d
		}
		ndig++
		p++
	}
	if ndig == 0 {
		return 0, intSyntaxErr(s, typname)
	}
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return 0, intSyntaxErr(s, typname)
	}
	lim := intLimits[bits]
	if overflow || (!neg && v > uint64(lim.max)) || (neg && v > uint64(lim.max)+1) {
		return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, typname)
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

func digitVal(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}

func intSyntaxErr(s, typname string) error {
	return pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typname, s)
}

// parseOid is oidin: an unsigned 32-bit value; negative values down to
// -2147483648 are accepted and wrap, as PostgreSQL does.
func parseOid(s string) (int64, error) {
	v, err := parseIntSlow(s, 64, "oid")
	if err != nil {
		if pgerr.Code(err) == pgerr.NumericValueOutOfRange {
			return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value %q is out of range for type oid", s)
		}
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxUint32 {
		return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value %q is out of range for type oid", s)
	}
	return int64(uint32(v)), nil
}

// parseFloat is float8in/float4in.
func parseFloat(orig string, bits int) (float64, error) {
	typname := "double precision"
	if bits == 32 {
		typname = "real"
	}
	s := orig
	// fast path: no surrounding whitespace, plain number
	p, e := 0, len(s)
	for p < e && isSpace(s[p]) {
		p++
	}
	for e > p && isSpace(s[e-1]) {
		e--
	}
	s = s[p:e]
	if len(s) == 0 {
		return 0, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typname, orig)
	}
	if c := s[0]; !(c >= '0' && c <= '9') && c != '.' {
		t := s
		sign := 1.0
		if c == '-' || c == '+' {
			if c == '-' {
				sign = -1
			}
			t = s[1:]
		}
		switch strings.ToLower(t) {
		case "nan":
			return math.NaN(), nil
		case "infinity", "inf":
			return math.Inf(int(sign)), nil
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c == 'i' || c == 'I' || c == 'n' || c == 'N' {
			return 0, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typname, orig)
		}
	}
	v, err := strconv.ParseFloat(s, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, typname)
		}
		return 0, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typname, orig)
	}
	if v == 0 && hasNonzeroMantissa(s) {
		// strtod underflow to zero is an error in PostgreSQL
		return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, typname)
	}
	return v, nil
}

func hasNonzeroMantissa(s string) bool {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			return false
		}
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

// truncName truncates to NAMEDATALEN-1 bytes at a character boundary.
func truncName(s string) string {
	if len(s) < NameDataLen {
		return s
	}
	n := NameDataLen - 1
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// checkLength applies the length limit of varchar(n) / character(n)
// (typname "character varying" / "character"): explicit truncates silently,
// otherwise only spaces may be cut (22001 if anything else would be);
// character(n) values shorter than n are blank-padded.
func checkLength(s string, maxlen int, explicit bool, typname string) (string, error) {
	bpchar := typname == "character"
	if len(s) <= maxlen && !bpchar {
		return s, nil
	}
	nchars := len(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		nchars = utf8.RuneCountInString(s)
	}
	if nchars > maxlen {
		// byte offset of character maxlen
		cut := maxlen
		if !ascii {
			cut = 0
			for i := 0; i < maxlen; i++ {
				_, sz := utf8.DecodeRuneInString(s[cut:])
				cut += sz
			}
		}
		if !explicit {
			for j := cut; j < len(s); j++ {
				if s[j] != ' ' {
					return "", pgerr.Errorf(pgerr.StringDataRightTruncation, "value too long for type %s(%d)", typname, maxlen)
				}
			}
		}
		return s[:cut], nil
	}
	if bpchar && nchars < maxlen {
		return s + strings.Repeat(" ", maxlen-nchars), nil
	}
	return s, nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// parseBytea is byteain: hex format (\x...) or escape format.
func parseBytea(s string) (string, error) {
	if len(s) >= 2 && s[0] == '\\' && s[1] == 'x' {
		out := make([]byte, 0, (len(s)-2)/2)
		for i := 2; i < len(s); {
			c := s[i]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				i++
				continue
			}
			hi := unhex(c)
			if hi < 0 {
				_, sz := utf8.DecodeRuneInString(s[i:])
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+sz])
			}
			if i+1 >= len(s) {
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo := unhex(s[i+1])
			if lo < 0 {
				_, sz := utf8.DecodeRuneInString(s[i+1:])
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i+1:i+1+sz])
			}
			out = append(out, byte(hi<<4|lo))
			i += 2
		}
		return string(out), nil
	}
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+3 < len(s)+0 && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7' {
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i += 2
			continue
		}
		return "", pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s", "bytea")
	}
	return string(out), nil
}

// parseChar is charin for the 1-byte "char" type.
func parseChar(s string) byte {
	if len(s) == 4 && s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7' {
		return (s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')
	}
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

func parseInt2Vector(s string) (Datum, error) {
	var v []int16
	for _, f := range strings.FieldsFunc(s, isSpaceRune) {
		x, err := parseInt(f, 16, "smallint")
		if err != nil {
			return Datum{}, err
		}
		v = append(v, int16(x))
	}
	return Int2Vector(v), nil
}

// FormatText returns the output function text of d (not NULL).
func FormatText(t Type, d Datum) string {
	var buf [32]byte
	return string(AppendText(buf[:0], t, d))
}

// FormatTextWith is FormatText in a session's settings.
func FormatTextWith(st *Settings, t Type, d Datum) string {
	var buf [32]byte
	return string(AppendTextWith(st, buf[:0], t, d))
}

// AppendText appends the output function's text of d (not NULL) to dst.
func AppendText(dst []byte, t Type, d Datum) []byte { return AppendTextWith(nil, dst, t, d) }

// AppendTextWith is AppendText in a session's settings (timestamptz
// output is in the session's TimeZone).
func AppendTextWith(st *Settings, dst []byte, t Type, d Datum) []byte {
	if out, ok := appendNewType(st, dst, t, d); ok {
		return out
	}
	if out, ok := appendUserType(st, dst, t, d); ok {
		return out
	}
	switch t.OID {
	case RecordOID:
		return appendRecordText(st, dst, d)
	case Int4OID, Int8OID, Int2OID:
		return appendInt(dst, d.Int())
	case TextOID, VarcharOID, BpcharOID, NameOID, UnknownOID:
		return append(dst, d.Str()...)
	case Float8OID:
		return appendFloatStyled(st, dst, d.Float(), 64)
	case Float4OID:
		return appendFloatStyled(st, dst, d.Float(), 32)
	case BoolOID:
		if d.Int() != 0 {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case TimestampOID:
		return appendTimestampStyled(st, dst, d.Int(), nil)
	case TimestamptzOID:
		return appendTimestampStyled(st, dst, d.Int(), st.zone())
	case OidOID:
		return strconv.AppendUint(dst, uint64(uint32(d.Int())), 10)
	case ByteaOID:
		if st != nil && st.ByteaEscape {
			return appendByteaEscape(dst, d.Str())
		}
		const hx = "0123456789abcdef"
		dst = append(dst, '\\', 'x')
		for i := 0; i < len(d.Str()); i++ {
			c := d.Str()[i]
			dst = append(dst, hx[c>>4], hx[c&15])
		}
		return dst
	case CharOID:
		c := byte(d.Int())
		switch {
		case c == 0:
			return dst
		case c >= 0x80:
			return append(dst, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
		}
		return append(dst, c)
	case Int2VectorOID:
		for i := 0; i+1 < len(d.Str()); i += 2 {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = appendInt(dst, int64(int16(uint16(d.Str()[i])|uint16(d.Str()[i+1])<<8)))
		}
		return dst
	case VoidOID:
		return dst
	case NumericOID:
		return appendNumericText(dst, d.Str())
	case RegtypeOID:
		return appendRegtypeWith(st, dst, d.Int())
	}
	if d.Kind() == kArr {
		return appendArray(st, dst, t, d)
	}
	switch d.Kind() {
	case kInt:
		return appendInt(dst, d.Int())
	case kFloat:
		return appendFloat(dst, d.Float(), 64)
	case kBool:
		return AppendText(dst, Boolean, d)
	case kTime:
		return appendTimestamp(dst, d.Int(), false)
	case kNum:
		return appendNumericText(dst, d.Str())
	}
	return append(dst, d.Str()...)
}

func appendInt(dst []byte, v int64) []byte {
	if v >= 0 && v < 10 {
		return append(dst, byte('0'+v))
	}
	return strconv.AppendInt(dst, v, 10)
}

// appendFloat is float8out/float4out with extra_float_digits = 1 (the
// default since PostgreSQL 12): the shortest digits that round-trip, in
// fixed notation when the decimal exponent is in [-4, 15) for float8 and
// [-4, 6) for float4, otherwise in exponent notation (1e+15, 1.5e-05).
func appendFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) {
		return append(dst, "NaN"...)
	}
	if math.IsInf(f, 0) {
		if f > 0 {
			return append(dst, "Infinity"...)
		}
		return append(dst, "-Infinity"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, '-', '0')
		}
		return append(dst, '0')
	}
	// Integers below 1e15 print as plain digits in both notations.
	if bits == 64 && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	var buf [32]byte
	b := appendShortestE(buf[:0], f, bits)
	e := len(b) - 1
	for b[e] != 'e' {
		e--
	}
	exp := 0
	for i := e + 2; i < len(b); i++ {
		exp = exp*10 + int(b[i]-'0')
	}
	if b[e+1] == '-' {
		exp = -exp
	}
	maxExp := 15
	if bits == 32 {
		maxExp = 6
	}
	if exp < -4 || exp >= maxExp {
		return append(dst, b...)
	}
	// fixed notation from the same shortest digits
	m := b[:e]
	if m[0] == '-' {
		dst = append(dst, '-')
		m = m[1:]
	}
	var digs [24]byte
	nd := 0
	for _, c := range m {
		if c != '.' {
			digs[nd] = c
			nd++
		}
	}
	d := digs[:nd]
	if exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	}
	if nd <= exp+1 {
		dst = append(dst, d...)
		for i := nd; i <= exp; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, d[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, d[exp+1:]...)
}

// appendByteaEscape is bytea output with bytea_output = escape: printable
// ASCII as is, a backslash doubled, every other byte as \ooo.
func appendByteaEscape(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			dst = append(dst, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
