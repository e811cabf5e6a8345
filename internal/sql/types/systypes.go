package types

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// The types of the system columns every table has (ctid, xmin, cmin, xmax,
// cmax; tableoid is an oid):
//
//	tid  kInt, block<<16 | offset (so integer order is TID order); on disk
//	     PostgreSQL's ItemPointerData: block as two uint16 halves (high
//	     first), then the offset
//	xid  kInt, the uint32 transaction id
//	cid  kInt, the uint32 command id
//
// PostgreSQL gives xid only = and <> (also against int4: xideqint4), cid
// only =, and tid the full set of comparisons; so does this file.
const (
	TidOID = datum.TidOID
	XidOID = datum.XidOID
	CidOID = datum.CidOID

	TidArrayOID = datum.TidArrayOID
	XidArrayOID = datum.XidArrayOID
	CidArrayOID = datum.CidArrayOID
)

var (
	Tid = datum.Tid
	Xid = datum.Xid
	Cid = datum.Cid
)

var (
	infoTid = typeInfo{"tid", "tid", 'U', false}
	infoXid = typeInfo{"xid", "xid", 'U', false}
	infoCid = typeInfo{"cid", "cid", 'U', false}
)

func sysTypeInfo(oid OID) *typeInfo {
	switch oid {
	case TidOID:
		return &infoTid
	case XidOID:
		return &infoXid
	case CidOID:
		return &infoCid
	}
	return nil
}

func isSysType(oid OID) bool { return oid == TidOID || oid == XidOID || oid == CidOID }

// parseTid is tidin: "(block,offset)"; like PostgreSQL it looks for the
// delimiters and reads the block with strtoul (so "-1" wraps) and the
// offset with strtol, which must fit 0..65535.
func parseTid(s string) (Datum, error) {
	bad := func() (Datum, error) {
		return Datum{}, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type tid: \"%s\"", s)
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return bad()
	}
	rest := s[open+1:]
	comma := strings.IndexByte(rest, ',')
	if comma < 0 {
		return bad()
	}
	closing := strings.IndexByte(rest[comma+1:], ')')
	if closing < 0 {
		return bad()
	}
	blk, n, ok := strtoul(rest[:comma], 10)
	if !ok || n != comma {
		return bad()
	}
	offText := strings.TrimLeft(rest[comma+1:comma+1+closing], " \t\n\r\f\v")
	off, err := strconv.ParseUint(strings.TrimPrefix(offText, "+"), 10, 16)
	if err != nil {
		return bad()
	}
	return TidDatum(uint32(blk), uint16(off)), nil
}

// strtoul is C's strtoul on a 64-bit machine: leading white space, an
// optional sign (a minus negates modulo 2^64), digits in base (0: 0x…
// hexadecimal, 0… octal, else decimal). It returns the value, how many
// bytes it read (0 when there is no number) and false on overflow.
func strtoul(s string, base int) (uint64, int, bool) {
	i := len(s) - len(strings.TrimLeft(s, " \t\n\r\f\v"))
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 0 {
		switch {
		case strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X"):
			if i+2 < len(s) && digitValue(s[i+2]) < 16 {
				base, i = 16, i+2
			} else {
				base = 10
			}
		case strings.HasPrefix(s[i:], "0"):
			base = 8
		default:
			base = 10
		}
	}
	start := i
	for i < len(s) && digitValue(s[i]) < base {
		i++
	}
	if i == start {
		return 0, 0, true
	}
	v, err := strconv.ParseUint(s[start:i], base, 64)
	if err != nil {
		return ^uint64(0), i, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// parseXidLike is xidin / cidin of PostgreSQL 15: strtoul with base 0,
// cast to 32 bits, so "0x1f" is hexadecimal, a larger number wraps, and
// text that is no number reads as 0.
func parseXidLike(s string) Datum {
	v, _, _ := strtoul(s, 0)
	return Int(int64(uint32(v)))
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func parseSysType(t Type, s string) (Datum, error, bool) {
	switch t.OID {
	case TidOID:
		d, err := parseTid(s)
		return d, err, true
	case XidOID, CidOID:
		return parseXidLike(s), nil, true
	}
	return Datum{}, nil, false
}

func appendSysType(dst []byte, t Type, d Datum) ([]byte, bool) {
	switch t.OID {
	case TidOID:
		blk, off := TidParts(d)
		dst = append(dst, '(')
		dst = strconv.AppendUint(dst, uint64(blk), 10)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, uint64(off), 10)
		return append(dst, ')'), true
	case XidOID, CidOID:
		return strconv.AppendUint(dst, uint64(uint32(d.Int())), 10), true
	}
	return dst, false
}

func sendSysType(dst []byte, t Type, d Datum) ([]byte, bool) {
	switch t.OID {
	case TidOID:
		blk, off := TidParts(d)
		dst = binary.BigEndian.AppendUint32(dst, blk)
		return binary.BigEndian.AppendUint16(dst, off), true
	case XidOID, CidOID:
		return binary.BigEndian.AppendUint32(dst, uint32(d.Int())), true
	}
	return dst, false
}

func recvSysType(t Type, b []byte) (Datum, error, bool) {
	switch t.OID {
	case TidOID:
		if err := fixedLen(b, 6); err != nil {
			return Datum{}, err, true
		}
		return TidDatum(binary.BigEndian.Uint32(b), binary.BigEndian.Uint16(b[4:])), nil, true
	case XidOID, CidOID:
		if err := fixedLen(b, 4); err != nil {
			return Datum{}, err, true
		}
		return Int(int64(binary.BigEndian.Uint32(b))), nil, true
	}
	return Datum{}, nil, false
}

func compareSysType(t Type, a, b Datum) (int, bool) {
	if isSysType(t.OID) {
		return cmpInt(a.Int(), b.Int()), true
	}
	return 0, false
}

func hashSysType(t Type, d Datum) (uint64, bool) {
	if isSysType(t.OID) {
		return HashInt64(d.Int()), true
	}
	return 0, false
}

func init() {
	for name, oid := range map[string]OID{"tid": TidOID, "xid": XidOID, "cid": CidOID} {
		typeNames[name] = oid
	}
	cmpOps(Tid, Tid, intCmpDatum)
	eqOps := func(l, r Type, withNe bool) {
		addOp("=", &Func{Args: []Type{l, r}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(uint32(a[0].Int()) == uint32(a[1].Int())), nil }})
		if withNe {
			addOp("<>", &Func{Args: []Type{l, r}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) { return boolRes(uint32(a[0].Int()) != uint32(a[1].Int())), nil }})
		}
	}
	eqOps(Xid, Xid, true)
	eqOps(Xid, Int4, true)
	eqOps(Cid, Cid, false)
}
