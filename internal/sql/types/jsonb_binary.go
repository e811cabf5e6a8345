package types

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// jsonb's storage format: PostgreSQL's JsonbContainer (jsonb.h), so that a
// jsonb column holds the same bytes as in PostgreSQL.
//
//	container  uint32 header: count | JB_FSCALAR | JB_FOBJECT | JB_FARRAY
//	           JEntry[count] (array) or JEntry[2*count] (object: all keys,
//	           sorted, then their values), each a uint32 of type bits plus
//	           the entry's data length, or — for every 32nd entry, starting
//	           with the first — the end offset of its data with JENTRY_HAS_OFF
//	           then the entries' data: string bytes; numerics as numeric
//	           varlenas (4-byte header) aligned to 4; nested containers
//	           aligned to 4; nothing for null, true and false
//
// A scalar at the top level is a one-element array with JB_FSCALAR.
// Alignment is relative to the start of the value with a 4-byte varlena
// header, as PostgreSQL builds it (the 1-byte header on disk does not move
// the data).

const (
	jbCountMask = 0x0FFFFFFF
	jbFScalar   = 0x10000000
	jbFObject   = 0x20000000
	jbFArray    = 0x40000000

	jeOffLenMask   = 0x0FFFFFFF
	jeTypeMask     = 0x70000000
	jeHasOff       = 0x80000000
	jeString       = 0x00000000
	jeNumeric      = 0x10000000
	jeBoolFalse    = 0x20000000
	jeBoolTrue     = 0x30000000
	jeNull         = 0x40000000
	jeContainer    = 0x50000000
	jbOffsetStride = 32
)

type jsonbEncoder struct {
	buf []byte // the value's bytes after the (virtual) 4-byte varlena header
	err error  // a limit exceeded (JEntry offsets and lengths have 28 bits)
}

func (e *jsonbEncoder) padToInt() int {
	n := 0
	for (len(e.buf)+4)%4 != 0 {
		e.buf = append(e.buf, 0)
		n++
	}
	return n
}

// encodeJSONB returns the container bytes of v (without varlena header).
func encodeJSONB(v *jsonVal) ([]byte, error) {
	e := &jsonbEncoder{}
	if v.kind != jArray && v.kind != jObject {
		e.container(&jsonVal{kind: jArray, arr: []*jsonVal{v}}, true)
	} else {
		e.container(v, false)
	}
	return e.buf, e.err
}

// value appends v's data and returns its JEntry (type and length).
func (e *jsonbEncoder) value(v *jsonVal) uint32 {
	switch v.kind {
	case jNull:
		return jeNull
	case jBool:
		if v.str == "true" {
			return jeBoolTrue
		}
		return jeBoolFalse
	case jString:
		if len(v.str) > jeOffLenMask && e.err == nil {
			e.err = pgerr.Errorf(pgerr.ProgramLimitExceeded, "string too long to represent as jsonb string").
				WithDetail("Due to an implementation restriction, jsonb strings cannot exceed %d bytes.", jeOffLenMask)
		}
		e.buf = append(e.buf, v.str...)
		return jeString | uint32(len(v.str))&jeOffLenMask
	case jNumber:
		pad := e.padToInt()
		n := len(e.buf)
		e.buf = appendNumericVarlena(e.buf, v.str)
		return jeNumeric | uint32(pad+len(e.buf)-n)
	}
	start := len(e.buf)
	e.container(v, false)
	return jeContainer | uint32(len(e.buf)-start)
}

func (e *jsonbEncoder) container(v *jsonVal, rawScalar bool) {
	e.padToInt()
	var n int
	var header uint32
	if v.kind == jObject {
		n = len(v.keys)
		header = uint32(n) | jbFObject
	} else {
		n = len(v.arr)
		header = uint32(n) | jbFArray
		if rawScalar {
			header |= jbFScalar
		}
	}
	e.buf = binary.LittleEndian.AppendUint32(e.buf, header)
	nent := n
	if v.kind == jObject {
		nent = 2 * n
	}
	jentries := len(e.buf)
	e.buf = append(e.buf, make([]byte, 4*nent)...)
	total := uint32(0)
	start := len(e.buf)
	put := func(i int, meta uint32) {
		if len(e.buf)-start > jeOffLenMask && e.err == nil {
			what := "array"
			if v.kind == jObject {
				what = "object"
			}
			e.err = pgerr.Errorf(pgerr.ProgramLimitExceeded, "total size of jsonb %s elements exceeds the maximum of %d bytes", what, jeOffLenMask)
		}
		total += meta & jeOffLenMask
		if i%jbOffsetStride == 0 {
			meta = meta&jeTypeMask | total | jeHasOff
		}
		binary.LittleEndian.PutUint32(e.buf[jentries+4*i:], meta)
	}
	if v.kind == jObject {
		for i, k := range v.keys {
			put(i, e.value(&jsonVal{kind: jString, str: k}))
		}
		for i, val := range v.vals {
			put(i+n, e.value(val))
		}
		return
	}
	for i, val := range v.arr {
		put(i, e.value(val))
	}
}

// decodeJSONB rebuilds the value of container bytes b.
func decodeJSONB(b []byte) *jsonVal {
	v, ok := decodeContainer(b, 0)
	if !ok {
		return &jsonVal{kind: jNull}
	}
	if v.kind == jArray && v.str == "scalar" && len(v.arr) == 1 {
		return v.arr[0]
	}
	v.str = ""
	return v
}

// decodeContainer decodes the container at b[off:] (off already aligned).
func decodeContainer(b []byte, off int) (*jsonVal, bool) {
	for (off+4)%4 != 0 {
		off++
	}
	if off+4 > len(b) {
		return nil, false
	}
	header := binary.LittleEndian.Uint32(b[off:])
	n := int(header & jbCountMask)
	v := &jsonVal{kind: jArray, offset: off}
	nent := n
	if header&jbFObject != 0 {
		v.kind = jObject
		nent = 2 * n
	} else if header&jbFScalar != 0 {
		v.str = "scalar"
	}
	jentries := off + 4
	data := jentries + 4*nent
	if data > len(b) {
		return nil, false
	}
	vals := make([]*jsonVal, nent)
	start := uint32(0)
	for i := 0; i < nent; i++ {
		meta := binary.LittleEndian.Uint32(b[jentries+4*i:])
		var end uint32
		if meta&jeHasOff != 0 {
			end = meta & jeOffLenMask
		} else {
			end = start + meta&jeOffLenMask
		}
		lo, hi := data+int(start), data+int(end)
		if hi > len(b) || lo > hi {
			return nil, false
		}
		var ev *jsonVal
		switch meta & jeTypeMask {
		case jeNull:
			ev = &jsonVal{kind: jNull}
		case jeBoolTrue:
			ev = &jsonVal{kind: jBool, str: "true"}
		case jeBoolFalse:
			ev = &jsonVal{kind: jBool, str: "false"}
		case jeString:
			ev = &jsonVal{kind: jString, str: string(b[lo:hi])}
		case jeNumeric:
			p := lo
			for (p+4)%4 != 0 {
				p++
			}
			s, ok := numericVarlenaText(b[p:hi])
			if !ok {
				return nil, false
			}
			ev = &jsonVal{kind: jNumber, str: s}
		case jeContainer:
			c, ok := decodeContainer(b[:hi], lo)
			if !ok {
				return nil, false
			}
			c.str = ""
			ev = c
		default:
			return nil, false
		}
		vals[i] = ev
		start = end
	}
	if v.kind == jObject {
		for i := 0; i < n; i++ {
			v.keys = append(v.keys, vals[i].str)
			v.vals = append(v.vals, vals[n+i])
		}
	} else {
		v.arr = vals
	}
	return v, true
}

// appendNumericVarlena appends a jsonb number as the numeric varlena
// PostgreSQL stores in a container: a 4-byte varlena header and the
// numeric payload (numeric.go).
func appendNumericVarlena(dst []byte, s string) []byte {
	d, err := ParseNumeric(s)
	if err != nil {
		// numbers are checked when the document is parsed
		d = NumericFromInt(0)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(d.Str())+4)<<2)
	return append(dst, d.Str()...)
}

// numericVarlenaText is numeric_out of a numeric varlena (4-byte header).
func numericVarlenaText(b []byte) (string, bool) {
	if len(b) < 6 {
		return "", false
	}
	size := int(binary.LittleEndian.Uint32(b) >> 2)
	if size > len(b) || size < 6 {
		return "", false
	}
	return string(appendNumericText(nil, string(b[4:size]))), true
}
