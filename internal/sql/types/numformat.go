package types

import (
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Number templates of to_char(number, text) and to_number(text, text), as
// PostgreSQL's formatting.c reads them. A template is cut into nodes: the
// keywords below (longest first among those sharing a first letter) and
// literal characters (double quotes quote a run of them, a backslash inside
// quotes quotes the next character). While cutting, numDesc collects what
// the keywords say about the number: digit positions before and after the
// decimal point, where zero-filling starts and ends, the sign style, the V
// multiplier, roman numerals or EEEE. The session is in the C locale, so
// D, G, S and L are '.', ',', '+'/'-' and a space.

type numKey int8

const (
	nkComma numKey = iota
	nkDec
	nk0
	nk9
	nkB
	nkC
	nkD
	nkE
	nkFM
	nkG
	nkL
	nkMI
	nkPL
	nkPR
	nkRN
	nkrn
	nkSG
	nkSP
	nkS
	nkTH
	nkth
	nkV
)

var numKeywords = []struct {
	name string
	key  numKey
}{
	{",", nkComma}, {".", nkDec}, {"0", nk0}, {"9", nk9},
	{"B", nkB}, {"C", nkC}, {"D", nkD}, {"EEEE", nkE}, {"FM", nkFM}, {"G", nkG}, {"L", nkL},
	{"MI", nkMI}, {"PL", nkPL}, {"PR", nkPR}, {"RN", nkRN}, {"SG", nkSG}, {"SP", nkSP}, {"S", nkS},
	{"TH", nkTH}, {"V", nkV},
	{"b", nkB}, {"c", nkC}, {"d", nkD}, {"eeee", nkE}, {"fm", nkFM}, {"g", nkG}, {"l", nkL},
	{"mi", nkMI}, {"pl", nkPL}, {"pr", nkPR}, {"rn", nkrn}, {"sg", nkSG}, {"sp", nkSP}, {"s", nkS},
	{"th", nkth}, {"v", nkV},
}

type numFlag uint16

const (
	nfDecimal numFlag = 1 << iota
	nfLDecimal
	nfZero
	nfBlank
	nfFill
	nfLSign
	nfBracket
	nfMinus
	nfPlus
	nfRoman
	nfMulti
	nfPlusPost
	nfMinusPost
	nfEEEE
)

const (
	lsignPre  = -1
	lsignNone = 0
	lsignPost = 1
)

// numNode is a keyword (isKey) or one literal character.
type numNode struct {
	isKey bool
	key   numKey
	lit   string
}

// numDesc is PostgreSQL's NUMDesc.
type numDesc struct {
	pre, post, lsign, preLsignNum, multi, zeroStart, zeroEnd int
	flag                                                     numFlag
}

func (d *numDesc) is(f numFlag) bool { return d.flag&f != 0 }

func numFormatErr(msg string) error { return pgerr.Errorf(pgerr.SyntaxError, "%s", msg) }

// parseNumFormat cuts a number template into nodes and describes it.
func parseNumFormat(f string) ([]numNode, numDesc, error) {
	var nodes []numNode
	var d numDesc
	for i := 0; i < len(f); {
		if k, n := matchNumKeyword(f[i:]); n > 0 {
			if err := d.add(k); err != nil {
				return nil, d, err
			}
			nodes = append(nodes, numNode{isKey: true, key: k})
			i += n
			continue
		}
		if f[i] == '"' {
			for i++; i < len(f); {
				if f[i] == '"' {
					i++
					break
				}
				if f[i] == '\\' && i+1 < len(f) {
					i++
				}
				_, sz := utf8.DecodeRuneInString(f[i:])
				nodes = append(nodes, numNode{lit: f[i : i+sz]})
				i += sz
			}
			continue
		}
		if f[i] == '\\' && i+1 < len(f) && f[i+1] == '"' {
			i++
		}
		_, sz := utf8.DecodeRuneInString(f[i:])
		nodes = append(nodes, numNode{lit: f[i : i+sz]})
		i += sz
	}
	return nodes, d, nil
}

func matchNumKeyword(s string) (numKey, int) {
	for _, kw := range numKeywords {
		if strings.HasPrefix(s, kw.name) {
			return kw.key, len(kw.name)
		}
	}
	return 0, 0
}

// add is NUMDesc_prepare: one keyword's effect on the description.
func (d *numDesc) add(k numKey) error {
	if d.is(nfEEEE) && k != nkE {
		return numFormatErr(`"EEEE" must be the last pattern used`)
	}
	switch k {
	case nk9:
		if d.is(nfBracket) {
			return numFormatErr(`"9" must be ahead of "PR"`)
		}
		switch {
		case d.is(nfMulti):
			d.multi++
		case d.is(nfDecimal):
			d.post++
		default:
			d.pre++
		}
	case nk0:
		if d.is(nfBracket) {
			return numFormatErr(`"0" must be ahead of "PR"`)
		}
		if !d.is(nfZero) && !d.is(nfDecimal) {
			d.flag |= nfZero
			d.zeroStart = d.pre + 1
		}
		if d.is(nfDecimal) {
			d.post++
		} else {
			d.pre++
		}
		d.zeroEnd = d.pre + d.post
	case nkB:
		if d.pre == 0 && d.post == 0 && !d.is(nfZero) {
			d.flag |= nfBlank
		}
	case nkD, nkDec:
		if k == nkD {
			d.flag |= nfLDecimal
		}
		if d.is(nfDecimal) {
			return numFormatErr("multiple decimal points")
		}
		if d.is(nfMulti) {
			return numFormatErr(`cannot use "V" and decimal point together`)
		}
		d.flag |= nfDecimal
	case nkFM:
		d.flag |= nfFill
	case nkS:
		if d.is(nfLSign) {
			return numFormatErr(`cannot use "S" twice`)
		}
		if d.is(nfPlus) || d.is(nfMinus) || d.is(nfBracket) {
			return numFormatErr(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !d.is(nfDecimal) {
			d.lsign, d.preLsignNum = lsignPre, d.pre
			d.flag |= nfLSign
		} else if d.lsign == lsignNone {
			d.lsign = lsignPost
			d.flag |= nfLSign
		}
	case nkMI, nkPL:
		word, f, post := `"MI"`, nfMinus, nfMinusPost
		if k == nkPL {
			word, f, post = `"PL"`, nfPlus, nfPlusPost
		}
		if d.is(nfLSign) {
			return numFormatErr(`cannot use "S" and ` + word + ` together`)
		}
		d.flag |= f
		if d.is(nfDecimal) {
			d.flag |= post
		}
	case nkSG:
		if d.is(nfLSign) {
			return numFormatErr(`cannot use "S" and "SG" together`)
		}
		d.flag |= nfMinus | nfPlus
	case nkPR:
		if d.is(nfLSign) || d.is(nfPlus) || d.is(nfMinus) {
			return numFormatErr(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flag |= nfBracket
	case nkRN, nkrn:
		d.flag |= nfRoman
	case nkV:
		if d.is(nfDecimal) {
			return numFormatErr(`cannot use "V" and decimal point together`)
		}
		d.flag |= nfMulti
	case nkE:
		if d.is(nfEEEE) {
			return numFormatErr(`cannot use "EEEE" twice`)
		}
		if d.is(nfBlank | nfFill | nfLSign | nfBracket | nfMinus | nfPlus | nfRoman | nfMulti) {
			e := pgerr.Errorf(pgerr.SyntaxError, `"EEEE" is incompatible with other formats`)
			e.Detail = `"EEEE" may only be used together with digit and decimal point patterns.`
			return e
		}
		d.flag |= nfEEEE
	}
	return nil
}

// intToRoman spells 1..3999 in upper-case roman numerals; anything else
// is fifteen '#'.
func intToRoman(n int64) string {
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	ones := [...]string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	tens := [...]string{"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	hundreds := [...]string{"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	return strings.Repeat("M", int(n/1000)) + hundreds[n/100%10] + tens[n/10%10] + ones[n%10]
}

// ordinalSuffix is get_th: ST, ND, RD or TH (lower-case when lower) for
// the number that s ends with.
func ordinalSuffix(s string, lower bool) (string, error) {
	if s == "" || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return "", pgerr.Errorf(pgerr.InvalidTextRepresentation, "\"%s\" is not a number", s)
	}
	last := s[len(s)-1]
	if len(s) > 1 && s[len(s)-2] == '1' {
		last = 0
	}
	suf := "TH"
	switch last {
	case '1':
		suf = "ST"
	case '2':
		suf = "ND"
	case '3':
		suf = "RD"
	}
	if lower {
		return strings.ToLower(suf), nil
	}
	return suf, nil
}
