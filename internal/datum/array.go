package datum

import "encoding/binary"

// An array datum keeps its shape and elements encoded in the string field.
// A one-dimensional array with lower bound 1 (the common case, and every
// empty array) is just its elements; any other shape starts with a header:
// the byte 0xFF, the number of dimensions, and per dimension its length
// (uvarint) and lower bound (varint). Each element is a tag byte (0 NULL,
// 1 int, 2 float, 3 bool, 4 string, 5 timestamp, 6 numeric, 7 int2vector)
// followed by 8 bytes, or for the string-field kinds a uvarint length and
// the bytes. Elements are in row-major order (the last subscript varies
// fastest), as in PostgreSQL. The element type comes from the array type.

// MaxArrayDims is PostgreSQL's MAXDIM.
const MaxArrayDims = 6

const arrayShapeTag = 0xFF

// Array returns a one-dimensional array datum (lower bound 1) holding elems.
func Array(elems []Datum) Datum {
	return Datum{s: string(appendArrayElems(nil, elems)), k: KindArray}
}

// ArrayShaped returns an array datum of the given dimensions and lower
// bounds; len(elems) must be the product of dims. No dimensions, or a
// zero-length one, is the empty array.
func ArrayShaped(dims, lbounds []int, elems []Datum) Datum {
	if len(dims) == 0 || len(elems) == 0 {
		return Array(nil)
	}
	if len(dims) == 1 && lbounds[0] == 1 {
		return Array(elems)
	}
	b := []byte{arrayShapeTag, byte(len(dims))}
	for i := range dims {
		b = binary.AppendUvarint(b, uint64(dims[i]))
		b = binary.AppendVarint(b, int64(lbounds[i]))
	}
	return Datum{s: string(appendArrayElems(b, elems)), k: KindArray}
}

// ArrayDims returns an array datum's dimensions and lower bounds (none for
// an empty array).
func (d Datum) ArrayDims() (dims, lbounds []int) {
	s := d.s
	if len(s) == 0 {
		return nil, nil
	}
	if s[0] != arrayShapeTag {
		return []int{d.countElems()}, []int{1}
	}
	b := []byte(s[:min(len(s), 2+MaxArrayDims*20)])
	n := int(b[1])
	off := 2
	dims, lbounds = make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		v, k := binary.Uvarint(b[off:])
		off += k
		l, k := binary.Varint(b[off:])
		off += k
		dims[i], lbounds[i] = int(v), int(l)
	}
	return dims, lbounds
}

// arrayBody is the encoded elements, after any shape header.
func (d Datum) arrayBody() string {
	s := d.s
	if len(s) == 0 || s[0] != arrayShapeTag {
		return s
	}
	b := []byte(s[:min(len(s), 2+MaxArrayDims*20)])
	n := int(b[1])
	off := 2
	for i := 0; i < 2*n; i++ {
		_, k := binary.Uvarint(b[off:]) // a varint's length is its uvarint's
		off += k
	}
	return s[off:]
}

func appendArrayElems(b []byte, elems []Datum) []byte {
	for _, e := range elems {
		switch e.k {
		case KindNull:
			b = append(b, 0)
		case KindStr, KindVec, KindNumeric:
			tag := byte(4)
			switch e.k {
			case KindNumeric:
				tag = 6
			case KindVec:
				tag = 7
			}
			b = append(b, tag)
			b = binary.AppendUvarint(b, uint64(len(e.s)))
			b = append(b, e.s...)
		default:
			tag := byte(1)
			switch e.k {
			case KindFloat:
				tag = 2
			case KindBool:
				tag = 3
			case KindTime:
				tag = 5
			}
			b = append(b, tag)
			b = binary.LittleEndian.AppendUint64(b, uint64(e.i))
		}
	}
	return b
}

func (d Datum) countElems() int {
	n := 0
	walkArrayElems(d.arrayBody(), func(Datum) { n++ })
	return n
}

// Elems returns the elements of an array datum in row-major order.
func (d Datum) Elems() []Datum {
	var out []Datum
	walkArrayElems(d.arrayBody(), func(e Datum) { out = append(out, e) })
	return out
}

func walkArrayElems(s string, f func(Datum)) {
	for len(s) > 0 {
		tag := s[0]
		s = s[1:]
		switch tag {
		case 0:
			f(Datum{})
		case 4, 6, 7:
			n, k := binary.Uvarint([]byte(s[:min(len(s), 10)]))
			s = s[k:]
			kd := KindStr
			switch tag {
			case 6:
				kd = KindNumeric
			case 7:
				kd = KindVec
			}
			f(Datum{s: s[:n], k: kd})
			s = s[n:]
		default:
			v := int64(binary.LittleEndian.Uint64([]byte(s[:8])))
			s = s[8:]
			k := KindInt
			switch tag {
			case 2:
				k = KindFloat
			case 3:
				k = KindBool
			case 5:
				k = KindTime
			}
			f(Datum{i: v, k: k})
		}
	}
}
