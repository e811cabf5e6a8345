package datum

import (
	"encoding/binary"
	"errors"
)

// The spill form writes a row of Datums to a temporary file and reads it
// back identical: kind, integer field and string field each survive, so a
// value's remembered stored form (pg_column_size) and an array's or
// numeric's encoding come back as they went out. It needs no SQL types
// and is private to one process: it is never a format on disk that
// outlives the statement.
//
//	row   := uvarint(len(body)) body
//	body  := uvarint(natts) { kind [varint(i)] [uvarint(len(s)) s] }
//
// The integer field is written for every kind but NULL, the string field
// only when it is not empty (a flag bit on the kind byte says so).

const spillHasString = 0x80 // on the kind byte: a string field follows

// AppendSpill appends row's spill form to b.
func AppendSpill(b []byte, row []Datum) []byte {
	n := 0
	for i := range row {
		n += spillSize(&row[i])
	}
	n += uvarintLen(uint64(len(row)))
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(row)))
	for i := range row {
		d := &row[i]
		k := byte(d.k)
		if d.s != "" {
			k |= spillHasString
		}
		b = append(b, k)
		if d.k == KindNull {
			continue
		}
		b = binary.AppendVarint(b, d.i)
		if d.s != "" {
			b = binary.AppendUvarint(b, uint64(len(d.s)))
			b = append(b, d.s...)
		}
	}
	return b
}

func spillSize(d *Datum) int {
	if d.k == KindNull {
		return 1
	}
	n := 1 + varintLen(d.i)
	if d.s != "" {
		n += uvarintLen(uint64(len(d.s))) + len(d.s)
	}
	return n
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func varintLen(v int64) int {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	return uvarintLen(u)
}

var errSpillCorrupt = errors.New("corrupt spilled row")

// DecodeSpill decodes one row's body (the bytes after its length). The
// row's strings share one allocation: body is copied once and the
// Datums' string fields are slices of the copy.
func DecodeSpill(body []byte) ([]Datum, error) {
	natts, k := binary.Uvarint(body)
	if k <= 0 || natts > uint64(len(body)) {
		return nil, errSpillCorrupt
	}
	p := body[k:]
	row := make([]Datum, natts)
	var str string // the copy of body, made at the first string field
	for i := range row {
		if len(p) == 0 {
			return nil, errSpillCorrupt
		}
		kb := p[0]
		p = p[1:]
		d := Datum{k: Kind(kb &^ spillHasString)}
		if d.k != KindNull {
			v, n := binary.Varint(p)
			if n <= 0 {
				return nil, errSpillCorrupt
			}
			d.i, p = v, p[n:]
			if kb&spillHasString != 0 {
				l, n := binary.Uvarint(p)
				if n <= 0 || l > uint64(len(p)-n) {
					return nil, errSpillCorrupt
				}
				if str == "" {
					str = string(body)
				}
				start := len(body) - len(p) + n
				d.s = str[start : start+int(l)]
				p = p[n+int(l):]
			}
		}
		row[i] = d
	}
	if len(p) != 0 {
		return nil, errSpillCorrupt
	}
	return row, nil
}

// SpillMemSize estimates the bytes a row holds in memory (its slice, the
// Datums and their strings), the measure work_mem is checked against.
func SpillMemSize(row []Datum) int64 {
	n := int64(24 + 32*len(row))
	for i := range row {
		n += int64(len(row[i].s))
	}
	return n
}
