package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// to_timestamp(text, text) and to_date(text, text): the input is read
// field by field as the template says (DCH_from_char in formatting.c, as
// of PostgreSQL 15: no time zone names, TZH/TZM offsets only), then the
// fields are combined into a date and time (do_to_timestamp).

// dchFields is PostgreSQL's TmFromChar.
type dchFields struct {
	mode                                 int // 0 none, 1 Gregorian, 2 ISO week
	hh, pm, mi, ss, ssss, d, dd, ddd, mm int
	ms, year, bc, ww, w, cc, j, us, yysz int
	clock12                              bool
	tzsign, tzh, tzm, ff                 int
}

func dchDigitKey(k dchKey) bool {
	switch k {
	case dkADdots, dkAMdots, dkAD, dkAM, dkadDots, dkamDots, dkad, dkam, dkDAY, dkDay, dkday,
		dkDY, dkDy, dkdy, dkFX, dkMONTH, dkMonth, dkmonth, dkMON, dkMon, dkmon, dkOF, dkRM, dkrm,
		dkTZH, dkTZ, dktz:
		return false
	}
	return true
}

func dchDateMode(k dchKey) int {
	switch k {
	case dkDDD, dkDD, dkD, dkMM, dkMONTH, dkMonth, dkmonth, dkMON, dkMon, dkmon, dkRM, dkrm,
		dkWW, dkW, dkYcomma, dkYYYY, dkYYY, dkYY, dkY:
		return 1
	case dkIDDD, dkID, dkIW, dkIYYY, dkIYY, dkIY, dkI:
		return 2
	}
	return 0
}

func isSeparatorByte(c byte) bool {
	return c > 0x20 && c < 0x7f && !isAlpha(c) && !(c >= '0' && c <= '9')
}

func isSpaceByte(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// dchReader holds the input position and the parsed fields.
type dchReader struct {
	nodes []dchNode
	i     int // current node
	in    string
	p     int
	f     dchFields
}

func dchFormatErr(format string, args ...any) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidDatetimeFormat, format, args...)
}

// nextIsSeparator is is_next_separator: whether the field after the
// current one cannot be a digit, so the current one may read freely.
func (r *dchReader) nextIsSeparator() bool {
	n := r.nodes[r.i]
	if n.isKey && n.suffix&(dsTH|dsth) != 0 {
		return true
	}
	if r.i+1 >= len(r.nodes) {
		return true
	}
	next := r.nodes[r.i+1]
	if next.isKey {
		return !dchDigitKey(next.key)
	}
	return !(len(next.lit) == 1 && next.lit[0] >= '0' && next.lit[0] <= '9')
}

func (r *dchReader) name() string { return r.nodes[r.i].name }

// width is the keyword's length: how many characters its field takes.
func (r *dchReader) width() int { return len(r.nodes[r.i].name) }

// parseInt is from_char_parse_int_len: up to width characters (all the
// digits there are under FM or before a non-digit field).
func (r *dchReader) parseInt(dest *int, width int) (int, error) {
	init := r.p
	for r.p < len(r.in) && isSpaceByte(r.in[r.p]) {
		r.p++
	}
	n := r.nodes[r.i]
	rest := r.in[r.p:]
	copyStr := rest
	if len(copyStr) > width {
		copyStr = copyStr[:width]
	}
	var v int64
	var ok bool
	if n.suffix&dsFM != 0 || r.nextIsSeparator() {
		// strtol from the start, leading spaces included
		v, r.p, ok = strtol(r.in, init)
	} else {
		if len(rest) < width {
			e := dchFormatErr("source string too short for \"%s\" formatting field", r.name())
			e.Detail = "Field requires " + strconv.Itoa(width) + " characters, but only " + strconv.Itoa(len(rest)) + " remain."
			e.Hint = `If your source string is not fixed-width, try using the "FM" modifier.`
			return 0, e
		}
		var used int
		v, used, ok = strtol(copyStr, 0)
		if used > 0 && used < width {
			e := dchFormatErr("invalid value \"%s\" for \"%s\"", copyStr, r.name())
			e.Detail = "Field requires " + strconv.Itoa(width) + " characters, but only " + strconv.Itoa(used) + " could be parsed."
			e.Hint = `If your source string is not fixed-width, try using the "FM" modifier.`
			return 0, e
		}
		r.p += used
	}
	if r.p == init {
		e := dchFormatErr("invalid value \"%s\" for \"%s\"", copyStr, r.name())
		e.Detail = "Value must be an integer."
		return 0, e
	}
	if !ok || v < -2147483648 || v > 2147483647 {
		e := pgerr.Errorf(pgerr.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", r.name())
		e.Detail = "Value must be in the range -2147483648 to 2147483647."
		return 0, e
	}
	if dest != nil {
		if err := r.set(dest, int(v)); err != nil {
			return 0, err
		}
	}
	return r.p - init, nil
}

// strtol reads an optionally signed decimal integer at s[p:] after
// spaces; end is where it stopped (p when nothing was read); ok is false
// on int64 overflow.
func strtol(s string, p int) (v int64, end int, ok bool) {
	q := p
	for q < len(s) && isSpaceByte(s[q]) {
		q++
	}
	neg := false
	if q < len(s) && (s[q] == '+' || s[q] == '-') {
		neg = s[q] == '-'
		q++
	}
	start := q
	ok = true
	for q < len(s) && s[q] >= '0' && s[q] <= '9' {
		d := int64(s[q] - '0')
		if v > (1<<63-1-d)/10 {
			ok = false
		}
		v = v*10 + d
		q++
	}
	if q == start {
		return 0, p, true
	}
	if neg {
		v = -v
	}
	return v, q, ok
}

func (r *dchReader) set(dest *int, v int) error {
	if *dest != 0 && *dest != v {
		e := dchFormatErr("conflicting values for \"%s\" field in formatting string", r.name())
		e.Detail = "This value contradicts a previous setting for the same field type."
		return e
	}
	*dest = v
	return nil
}

// seqSearch matches one of words case-insensitively at the input.
func (r *dchReader) seqSearch(dest *int, words []string) error {
	rest := r.in[r.p:]
	for i, w := range words {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
			r.p += len(w)
			return r.set(dest, i)
		}
	}
	cp := rest
	if i := strings.IndexAny(cp, " \t\n\r\f\v"); i >= 0 {
		cp = cp[:i]
	}
	e := dchFormatErr("invalid value \"%s\" for \"%s\"", cp, r.name())
	e.Detail = "The given value did not match any of the allowed values for this field."
	return e
}

func (r *dchReader) skipTH() {
	if r.nodes[r.i].suffix&(dsTH|dsth) != 0 {
		for k := 0; k < 2 && r.p < len(r.in); k++ {
			r.skipChar()
		}
	}
}

func (r *dchReader) skipChar() {
	r.p += max(1, len(string([]rune(r.in[r.p:])[:1])))
}

func (r *dchReader) setMode(m int) error {
	if m == 0 {
		return nil
	}
	if r.f.mode == 0 {
		r.f.mode = m
	} else if r.f.mode != m {
		e := dchFormatErr("invalid combination of date conventions")
		e.Hint = "Do not mix Gregorian and ISO week date conventions in a formatting template."
		return e
	}
	return nil
}

func parseDchInput(in, format string) (*dchFields, error) {
	r := &dchReader{nodes: parseDchFormat(format), in: in}
	fx := false
	extraSkip := 0
	for r.i = 0; r.i < len(r.nodes) && r.p < len(r.in); r.i++ {
		n := r.nodes[r.i]
		if !fx && (!n.isKey || n.key != dkFX) && (n.isKey || r.i == 0) {
			for r.p < len(r.in) && isSpaceByte(r.in[r.p]) {
				r.p++
				extraSkip++
			}
		}
		if !n.isKey {
			if n.quoted || !(len(n.lit) == 1 && (isSeparatorByte(n.lit[0]) || isSpaceByte(n.lit[0]))) {
				// a text character consumes one input character
				if !fx && extraSkip > 0 {
					extraSkip--
				} else if r.p < len(r.in) {
					r.skipChar()
				}
				continue
			}
			if fx {
				r.skipChar()
			} else {
				extraSkip--
				if c := r.in[r.p]; isSpaceByte(c) || isSeparatorByte(c) {
					r.p++
					extraSkip++
				}
			}
			continue
		}
		if err := r.setMode(dchDateMode(n.key)); err != nil {
			return nil, err
		}
		if n.key == dkFX {
			fx = true
		} else if err := r.field(n, extraSkip); err != nil {
			return nil, err
		}
		if !fx {
			extraSkip = 0
			for r.p < len(r.in) && isSpaceByte(r.in[r.p]) {
				r.p++
				extraSkip++
			}
		}
	}
	return &r.f, nil
}

func (r *dchReader) field(n dchNode, extraSkip int) error {
	f := &r.f
	var err error
	var l int
	switch n.key {
	case dkAMdots, dkamDots:
		var v int
		err = r.seqSearch(&v, []string{"a.m.", "p.m.", "A.M.", "P.M."})
		if err == nil {
			err = r.set(&f.pm, v%2)
		}
		f.clock12 = true
	case dkAM, dkam:
		var v int
		err = r.seqSearch(&v, []string{"am", "pm", "AM", "PM"})
		if err == nil {
			err = r.set(&f.pm, v%2)
		}
		f.clock12 = true
	case dkHH12:
		_, err = r.parseInt(&f.hh, 2)
		f.clock12 = true
	case dkHH24:
		_, err = r.parseInt(&f.hh, 2)
	case dkMI:
		_, err = r.parseInt(&f.mi, r.width())
	case dkSS:
		_, err = r.parseInt(&f.ss, r.width())
	case dkMS:
		if l, err = r.parseInt(&f.ms, 3); err == nil {
			// 25 is 0.25 and 250 is 0.25 too; 025 is 0.025
			switch l {
			case 1:
				f.ms *= 100
			case 2:
				f.ms *= 10
			}
		}
	case dkFF1, dkFF2, dkFF3, dkFF4, dkFF5, dkFF6, dkUS:
		width := 6
		if n.key != dkUS {
			f.ff = int(n.key-dkFF1) + 1
			width = f.ff
		}
		if l, err = r.parseInt(&f.us, width); err == nil {
			for ; l < 6; l++ {
				f.us *= 10
			}
		}
	case dkSSSS:
		_, err = r.parseInt(&f.ssss, r.width())
	case dkTZ, dktz, dkOF:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", r.name())
	case dkTZH:
		if c := r.in[r.p]; c == '+' || c == '-' || c == ' ' {
			f.tzsign = map[bool]int{true: -1, false: 1}[c == '-']
			r.p++
		} else if extraSkip > 0 && r.p > 0 && r.in[r.p-1] == '-' {
			f.tzsign = -1
		} else {
			f.tzsign = 1
		}
		_, err = r.parseInt(&f.tzh, 2)
	case dkTZM:
		if f.tzsign == 0 {
			f.tzsign = 1
		}
		_, err = r.parseInt(&f.tzm, 2)
	case dkADdots, dkadDots:
		var v int
		if err = r.seqSearch(&v, []string{"a.d.", "b.c.", "A.D.", "B.C."}); err == nil {
			err = r.set(&f.bc, v%2)
		}
	case dkAD, dkad:
		var v int
		if err = r.seqSearch(&v, []string{"ad", "bc", "AD", "BC"}); err == nil {
			err = r.set(&f.bc, v%2)
		}
	case dkMONTH, dkMonth, dkmonth, dkMON, dkMon, dkmon:
		words := monthsFull[:]
		if n.key == dkMON || n.key == dkMon || n.key == dkmon {
			words = shortNames(monthsFull[:])
		}
		var v int
		if err = r.seqSearch(&v, words); err == nil {
			err = r.set(&f.mm, v+1)
		}
	case dkDAY, dkDay, dkday, dkDY, dkDy, dkdy:
		words := daysFull[:]
		if n.key == dkDY || n.key == dkDy || n.key == dkdy {
			words = shortNames(daysFull[:])
		}
		var v int
		if err = r.seqSearch(&v, words); err == nil {
			err = r.set(&f.d, v)
			f.d++
		}
	default:
		err = r.numericField(n)
	}
	if err != nil {
		return err
	}
	r.skipTH()
	return nil
}

func shortNames(full []string) []string {
	out := make([]string, len(full))
	for i, s := range full {
		out[i] = s[:3]
	}
	return out
}

func (r *dchReader) numericField(n dchNode) error {
	f := &r.f
	var err error
	var l int
	switch n.key {
	case dkMM:
		_, err = r.parseInt(&f.mm, r.width())
	case dkDDD:
		_, err = r.parseInt(&f.ddd, r.width())
	case dkIDDD:
		_, err = r.parseInt(&f.ddd, 3)
	case dkDD:
		_, err = r.parseInt(&f.dd, r.width())
	case dkD:
		_, err = r.parseInt(&f.d, r.width())
	case dkID:
		if _, err = r.parseInt(&f.d, 1); err == nil {
			if f.d++; f.d > 7 {
				f.d = 1
			}
		}
	case dkWW, dkIW:
		_, err = r.parseInt(&f.ww, r.width())
	case dkQ:
		_, err = r.parseInt(nil, r.width())
	case dkCC:
		_, err = r.parseInt(&f.cc, r.width())
	case dkYcomma:
		err = r.yearWithComma()
	case dkYYYY, dkIYYY:
		_, err = r.parseInt(&f.year, r.width())
		f.yysz = 4
	case dkYYY, dkIYY, dkYY, dkIY, dkY, dkI:
		width := r.width()
		if l, err = r.parseInt(&f.year, width); err == nil && l < 4 {
			f.year = adjustPartialYear(f.year)
		}
		f.yysz = width
	case dkRM, dkrm:
		var v int
		lower := make([]string, len(romanMonths))
		for i, s := range romanMonths {
			lower[i] = strings.ToLower(s)
		}
		if err = r.seqSearch(&v, lower); err == nil {
			f.mm = 0
			err = r.set(&f.mm, 12-v)
		}
	case dkW:
		_, err = r.parseInt(&f.w, r.width())
	case dkJ:
		_, err = r.parseInt(&f.j, r.width())
	}
	return err
}

func (r *dchReader) yearWithComma() error {
	s := r.in[r.p:]
	mil, p1, ok1 := strtol(s, 0)
	if p1 == 0 || p1 >= len(s) || s[p1] != ',' {
		return dchFormatErr("invalid input string for \"Y,YYY\"")
	}
	yrs, p2, ok2 := strtol(s, p1+1)
	if p2 == p1+1 || !ok1 || !ok2 {
		return dchFormatErr("invalid input string for \"Y,YYY\"")
	}
	r.p += p2
	r.f.yysz = 4
	return r.set(&r.f.year, int(mil*1000+yrs))
}

// adjustPartialYear maps a 1-3 digit year to the one nearest 2020.
func adjustPartialYear(y int) int {
	switch {
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	case y < 520:
		return y + 2000
	case y < 1000:
		return y + 1000
	}
	return y
}
