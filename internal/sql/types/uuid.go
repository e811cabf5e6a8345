package types

import (
	"crypto/rand"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// uuid: 16 bytes, compared bytewise (PostgreSQL's memcmp order).

// UUIDDatum returns a uuid datum.
func UUIDDatum(b [16]byte) Datum { return Str(string(b[:])) }

// parseUUID is uuid_in: 32 hex digits, optionally in braces, with a hyphen
// allowed after any group of four digits.
func parseUUID(orig string) (Datum, error) {
	s := orig
	bad := func() (Datum, error) {
		return Datum{}, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type uuid: \"%s\"", orig)
	}
	braces := false
	if len(s) > 0 && s[0] == '{' {
		braces = true
		s = s[1:]
	}
	var out [16]byte
	p := 0
	for i := 0; i < 16; i++ {
		if p+1 >= len(s) {
			return bad()
		}
		hi, lo := unhex(s[p]), unhex(s[p+1])
		if hi < 0 || lo < 0 {
			return bad()
		}
		out[i] = byte(hi<<4 | lo)
		p += 2
		if p < len(s) && s[p] == '-' && i%2 == 1 && i < 15 {
			p++
		}
	}
	if braces {
		if p >= len(s) || s[p] != '}' {
			return bad()
		}
		p++
	}
	if p != len(s) {
		return bad()
	}
	return UUIDDatum(out), nil
}

func appendUUID(dst []byte, b string) []byte {
	const hx = "0123456789abcdef"
	for i := 0; i < len(b); i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hx[b[i]>>4], hx[b[i]&15])
	}
	return dst
}

func init() {
	cmpOps(UUID, UUID, strCmp)
	addFunc("gen_random_uuid", &Func{Ret: UUID, Strict: true, Volatile: true, Fn: func([]Datum) (Datum, error) {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return Datum{}, err
		}
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
		return UUIDDatum(b), nil
	}})
}
