package types

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// The binary-string functions of PostgreSQL 15 (functions-binarystring),
// overlay for text and bytea, encode/decode and unistr. Positions in bytea
// are bytes.

const errArraySubscript = "2202E" // array_subscript_error

func init() {
	for _, name := range []string{"substr", "substring"} {
		fn(name, []Type{Bytea, Int4}, Bytea, func(a []Datum) (Datum, error) { return byteaSubstr(a[0].Str(), a[1].Int(), 0, false) })
		fn(name, []Type{Bytea, Int4, Int4}, Bytea, func(a []Datum) (Datum, error) {
			return byteaSubstr(a[0].Str(), a[1].Int(), a[2].Int(), true)
		})
	}
	fn("overlay", []Type{Text, Text, Int4}, Text, func(a []Datum) (Datum, error) {
		return overlay(a[0].Str(), a[1].Str(), a[2].Int(), int64(charLen(a[1].Str())), substr)
	})
	fn("overlay", []Type{Text, Text, Int4, Int4}, Text, func(a []Datum) (Datum, error) {
		return overlay(a[0].Str(), a[1].Str(), a[2].Int(), a[3].Int(), substr)
	})
	fn("overlay", []Type{Bytea, Bytea, Int4}, Bytea, func(a []Datum) (Datum, error) {
		return overlay(a[0].Str(), a[1].Str(), a[2].Int(), int64(len(a[1].Str())), byteaSubstr)
	})
	fn("overlay", []Type{Bytea, Bytea, Int4, Int4}, Bytea, func(a []Datum) (Datum, error) {
		return overlay(a[0].Str(), a[1].Str(), a[2].Int(), a[3].Int(), byteaSubstr)
	})
	for _, tr := range []struct {
		name        string
		left, right bool
	}{{"btrim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}} {
		tr := tr
		fn(tr.name, []Type{Bytea, Bytea}, Bytea, func(a []Datum) (Datum, error) {
			return Str(trimBytes(a[0].Str(), a[1].Str(), tr.left, tr.right)), nil
		})
	}
	fn("get_byte", []Type{Bytea, Int4}, Int4, func(a []Datum) (Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		if n < 0 || n >= int64(len(s)) {
			return Datum{}, indexRange(n, int64(len(s))-1)
		}
		return Int(int64(s[n])), nil
	})
	fn("set_byte", []Type{Bytea, Int4, Int4}, Bytea, func(a []Datum) (Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		if n < 0 || n >= int64(len(s)) {
			return Datum{}, indexRange(n, int64(len(s))-1)
		}
		b := []byte(s)
		b[n] = byte(a[2].Int())
		return Str(string(b)), nil
	})
	fn("get_bit", []Type{Bytea, Int8}, Int4, func(a []Datum) (Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		if n < 0 || n >= 8*int64(len(s)) {
			return Datum{}, indexRange(n, 8*int64(len(s))-1)
		}
		return Int(int64(s[n/8]>>(n%8)) & 1), nil
	})
	fn("set_bit", []Type{Bytea, Int8, Int4}, Bytea, func(a []Datum) (Datum, error) {
		s, n, v := a[0].Str(), a[1].Int(), a[2].Int()
		if n < 0 || n >= 8*int64(len(s)) {
			return Datum{}, indexRange(n, 8*int64(len(s))-1)
		}
		if v != 0 && v != 1 {
			return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "new bit must be 0 or 1")
		}
		b := []byte(s)
		b[n/8] = b[n/8]&^(1<<(n%8)) | byte(v)<<(n%8)
		return Str(string(b)), nil
	})
	fn("bit_count", []Type{Bytea}, Int8, func(a []Datum) (Datum, error) {
		n := 0
		for i := 0; i < len(a[0].Str()); i++ {
			n += bits.OnesCount8(a[0].Str()[i])
		}
		return Int(int64(n)), nil
	})
	for _, h := range []struct {
		name string
		sum  func(string) string
	}{
		{"sha224", func(s string) string { x := sha256.Sum224([]byte(s)); return string(x[:]) }},
		{"sha256", func(s string) string { x := sha256.Sum256([]byte(s)); return string(x[:]) }},
		{"sha384", func(s string) string { x := sha512.Sum384([]byte(s)); return string(x[:]) }},
		{"sha512", func(s string) string { x := sha512.Sum512([]byte(s)); return string(x[:]) }},
	} {
		h := h
		fn(h.name, []Type{Bytea}, Bytea, func(a []Datum) (Datum, error) { return Str(h.sum(a[0].Str())), nil })
	}
	fn("encode", []Type{Bytea, Text}, Text, func(a []Datum) (Datum, error) {
		s, err := encodeBytes(a[0].Str(), a[1].Str())
		return Str(s), err
	})
	fn("decode", []Type{Text, Text}, Bytea, func(a []Datum) (Datum, error) {
		s, err := decodeBytes(a[0].Str(), a[1].Str())
		return Str(s), err
	})
	fn("unistr", []Type{Text}, Text, func(a []Datum) (Datum, error) {
		s, err := unistr(a[0].Str())
		return Str(s), err
	})
}

func indexRange(n, max int64) error {
	return pgerr.Errorf(errArraySubscript, "index %d out of valid range, 0..%d", n, max)
}

// byteaSubstr is substr on bytes (bytea_substr): start may be before the
// first byte, a negative length is an error.
func byteaSubstr(s string, start, length int64, hasLen bool) (Datum, error) {
	from := start - 1
	if from < 0 {
		from = 0
	}
	if from >= int64(len(s)) {
		if hasLen && length < 0 {
			return Datum{}, pgerr.Errorf(errSubstring, "negative substring length not allowed")
		}
		return Str(""), nil
	}
	if !hasLen {
		return Str(s[from:]), nil
	}
	if length < 0 {
		return Datum{}, pgerr.Errorf(errSubstring, "negative substring length not allowed")
	}
	end := start - 1 + length
	if end < from {
		return Str(""), nil
	}
	if end > int64(len(s)) {
		end = int64(len(s))
	}
	return Str(s[from:end]), nil
}

// overlay replaces length units of s from position from with repl
// (text_overlay / byteaoverlay): s's part before from, repl, and s from
// from+length on.
func overlay(s, repl string, from, length int64, sub func(string, int64, int64, bool) (Datum, error)) (Datum, error) {
	end := from + length
	if end < from && length > 0 || end > from && length < 0 {
		return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
	}
	head, err := sub(s, 1, from-1, true)
	if err != nil {
		return Datum{}, err
	}
	tail, err := sub(s, end, 0, false)
	if err != nil {
		return Datum{}, err
	}
	return Str(head.Str() + repl + tail.Str()), nil
}

func trimBytes(s, set string, left, right bool) string {
	in := func(c byte) bool { return strings.IndexByte(set, c) >= 0 }
	lo, hi := 0, len(s)
	for left && lo < hi && in(s[lo]) {
		lo++
	}
	for right && hi > lo && in(s[hi-1]) {
		hi--
	}
	return s[lo:hi]
}

func unknownEncoding(name string) error {
	return pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", name)
}

// encodeBytes is encode(bytea, format): hex, base64 (76-character lines)
// or escape (NUL, high bytes as \ooo and backslashes doubled).
func encodeBytes(s, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		const hx = "0123456789abcdef"
		b := make([]byte, 2*len(s))
		for i := 0; i < len(s); i++ {
			b[2*i], b[2*i+1] = hx[s[i]>>4], hx[s[i]&15]
		}
		return string(b), nil
	case "base64":
		enc := base64.StdEncoding.EncodeToString([]byte(s))
		var b strings.Builder
		for len(enc) > 76 {
			b.WriteString(enc[:76])
			b.WriteByte('\n')
			enc = enc[76:]
		}
		b.WriteString(enc)
		return b.String(), nil
	case "escape":
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == 0 || c >= 0x80:
				b.WriteByte('\\')
				b.WriteString(strconv.FormatInt(int64(c)+01000, 8)[1:])
			case c == '\\':
				b.WriteString(`\\`)
			default:
				b.WriteByte(c)
			}
		}
		return b.String(), nil
	}
	return "", unknownEncoding(format)
}

// decodeBytes is decode(text, format), the inverse of encodeBytes; white
// space between hex pairs and in base64 is ignored.
func decodeBytes(s, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		var b []byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			hi, ok := hexVal(c)
			if !ok {
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+utf8RuneLen(s[i:])])
			}
			i++
			if i >= len(s) {
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := hexVal(s[i])
			if !ok {
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+utf8RuneLen(s[i:])])
			}
			b = append(b, hi<<4|lo)
		}
		return string(b), nil
	case "base64":
		return decodeBase64(s)
	case "escape":
		return parseBytea(s)
	}
	return "", unknownEncoding(format)
}

func utf8RuneLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeBase64 reads base64 as PostgreSQL's pg_b64_decode does: white
// space anywhere, "=" only as end padding.
func decodeBase64(s string) (string, error) {
	var clean []byte
	pad := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '=':
			pad++
			clean = append(clean, c)
		case pad > 0:
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "unexpected \"=\" while decoding base64 sequence")
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/':
			clean = append(clean, c)
		default:
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid symbol \"%s\" found while decoding base64 sequence", s[i:i+utf8RuneLen(s[i:])])
		}
	}
	if len(clean)%4 != 0 || pad > 2 {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid base64 end sequence").
			WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
	}
	out, err := base64.StdEncoding.DecodeString(string(clean))
	if err != nil {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid base64 end sequence").
			WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
	}
	return string(out), nil
}

// unistr decodes the Unicode escapes \XXXX, \+XXXXXX, \uXXXX and
// \UXXXXXXXX (surrogate pairs combined) and \\.
func unistr(s string) (string, error) {
	badEscape := func() error {
		return pgerr.Errorf(pgerr.SyntaxError, "invalid Unicode escape").
			WithHint(`Unicode escapes must be \XXXX, \+XXXXXX, \uXXXX, or \UXXXXXXXX.`)
	}
	badPair := func() error { return pgerr.Errorf(pgerr.SyntaxError, "invalid Unicode surrogate pair") }
	hexRun := func(i, n int) (rune, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v, err := strconv.ParseUint(s[i:i+n], 16, 32)
		return rune(v), err == nil && !strings.ContainsAny(s[i:i+n], "+-")
	}
	var b strings.Builder
	pending := rune(0) // a high surrogate waiting for its low half
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			if pending != 0 {
				return "", badPair()
			}
			b.WriteByte(s[i])
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			if pending != 0 {
				return "", badPair()
			}
			b.WriteByte('\\')
			i += 2
			continue
		}
		var r rune
		var ok bool
		switch {
		case i+1 < len(s) && s[i+1] == '+':
			r, ok = hexRun(i+2, 6)
			i += 8
		case i+1 < len(s) && s[i+1] == 'u':
			r, ok = hexRun(i+2, 4)
			i += 6
		case i+1 < len(s) && s[i+1] == 'U':
			r, ok = hexRun(i+2, 8)
			i += 10
		default:
			r, ok = hexRun(i+1, 4)
			i += 5
		}
		if !ok {
			return "", badEscape()
		}
		switch {
		case r > utf8.MaxRune:
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid Unicode code point: %04X", r)
		case utf16.IsSurrogate(r) && r < 0xdc00:
			if pending != 0 {
				return "", badPair()
			}
			pending = r
			continue
		case utf16.IsSurrogate(r):
			if pending == 0 {
				return "", badPair()
			}
			r = utf16.DecodeRune(pending, r)
			pending = 0
		case pending != 0:
			return "", badPair()
		}
		if r == 0 {
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid Unicode code point: 0000")
		}
		b.WriteRune(r)
	}
	if pending != 0 {
		return "", badPair()
	}
	return b.String(), nil
}
