package types

import (
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Output styles and input field order chosen by the session's DateStyle,
// IntervalStyle, extra_float_digits and bytea_output. The zero value of
// each is PostgreSQL's default, so a Settings literal that leaves them out
// behaves as a fresh session.

// DateStyle is the output half of the DateStyle setting.
type DateStyle uint8

const (
	DateStyleISO DateStyle = iota
	DateStylePostgres
	DateStyleSQL
	DateStyleGerman
)

var dateStyleNames = [...]string{"ISO", "Postgres", "SQL", "German"}

// DateOrder is the field order of the DateStyle setting: how ambiguous
// numeric dates are read (and the day/month order of the Postgres and SQL
// output styles).
type DateOrder uint8

const (
	DateOrderMDY DateOrder = iota
	DateOrderDMY
	DateOrderYMD
)

var dateOrderNames = [...]string{"MDY", "DMY", "YMD"}

// IntervalStyle is the IntervalStyle setting.
type IntervalStyle uint8

const (
	IntervalStylePostgres IntervalStyle = iota
	IntervalStylePostgresVerbose
	IntervalStyleSQLStandard
	IntervalStyleISO8601
)

func (st *Settings) dateStyle() DateStyle {
	if st == nil {
		return DateStyleISO
	}
	return st.DateStyle
}

func (st *Settings) dateOrder() DateOrder {
	if st == nil {
		return DateOrderMDY
	}
	return st.DateOrder
}

func (st *Settings) intervalStyle() IntervalStyle {
	if st == nil {
		return IntervalStylePostgres
	}
	return st.IntervalStyle
}

// ParseDateStyle reads a canonical DateStyle value ("ISO, MDY", as
// CanonicalDateStyle returns it). Anything it does not know keeps the
// default for that half.
func ParseDateStyle(v string) (DateStyle, DateOrder) {
	style, order := DateStyleISO, DateOrderMDY
	s, o, _ := strings.Cut(v, ",")
	for i, n := range dateStyleNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			style = DateStyle(i)
		}
	}
	for i, n := range dateOrderNames {
		if strings.EqualFold(strings.TrimSpace(o), n) {
			order = DateOrder(i)
		}
	}
	return style, order
}

// ParseIntervalStyle reads an IntervalStyle value (already checked
// against the setting's enum).
func ParseIntervalStyle(v string) IntervalStyle {
	switch strings.ToLower(v) {
	case "postgres_verbose":
		return IntervalStylePostgresVerbose
	case "sql_standard":
		return IntervalStyleSQLStandard
	case "iso_8601":
		return IntervalStyleISO8601
	}
	return IntervalStylePostgres
}

// RoundFloatDigitsFor converts extra_float_digits to Settings.RoundFloatDigits.
func RoundFloatDigitsFor(extraFloatDigits int) int {
	if extraFloatDigits > 0 {
		return 0
	}
	return 1 - extraFloatDigits
}

// CanonicalDateStyle checks a DateStyle value as PostgreSQL's
// check_datestyle does and returns it as SHOW prints it. A value naming
// only the output style keeps current's field order and the reverse
// (German alone also means DMY); "default" stands for "ISO, MDY".
func CanonicalDateStyle(value, current string) (string, error) {
	style, order := ParseDateStyle(current)
	haveStyle, haveOrder := false, false
	conflict := false
	setStyle := func(s DateStyle) {
		if haveStyle && style != s {
			conflict = true
		}
		style, haveStyle = s, true
	}
	setOrder := func(o DateOrder) {
		if haveOrder && order != o {
			conflict = true
		}
		order, haveOrder = o, true
	}
	items, ok := splitSettingList(value)
	if !ok {
		return "", dateStyleError(value, "List syntax is invalid.")
	}
	for _, item := range items {
		w := strings.ToLower(item)
		switch {
		case w == "iso":
			setStyle(DateStyleISO)
		case w == "sql":
			setStyle(DateStyleSQL)
		case strings.HasPrefix(w, "postgres"):
			setStyle(DateStylePostgres)
		case w == "german":
			setStyle(DateStyleGerman)
			if !haveOrder {
				order = DateOrderDMY
			}
		case w == "ymd":
			setOrder(DateOrderYMD)
		case w == "dmy" || strings.HasPrefix(w, "euro"):
			setOrder(DateOrderDMY)
		case w == "mdy" || w == "us" || strings.HasPrefix(w, "noneuro"):
			setOrder(DateOrderMDY)
		case w == "default":
			// the boot value, ISO, MDY, for whichever half is not given
			if !haveStyle {
				style = DateStyleISO
			}
			if !haveOrder {
				order = DateOrderMDY
			}
		default:
			return "", dateStyleError(value, "Unrecognized key word: \""+item+"\".")
		}
	}
	if conflict {
		return "", dateStyleError(value, "Conflicting \"datestyle\" specifications.")
	}
	return dateStyleNames[style] + ", " + dateOrderNames[order], nil
}

func dateStyleError(value, detail string) error {
	return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", value).
		WithDetail("%s", detail)
}

// splitSettingList splits a comma-separated list of identifiers as
// PostgreSQL's SplitIdentifierString: items are separated by commas with
// optional blanks, unquoted ones fold to lower case; blanks inside an
// unquoted item are a syntax error.
func splitSettingList(v string) ([]string, bool) {
	var out []string
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, true
	}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			out = append(out, part[1:len(part)-1])
			continue
		}
		if part == "" || strings.ContainsAny(part, " \t\n\r\"") {
			return nil, false
		}
		out = append(out, strings.ToLower(part)) // unquoted identifiers fold to lower case
	}
	return out, true
}

// CheckInput tells whether s can be read as a value of type t in some
// session's settings: date/time input is tried in each DateStyle field
// order (and interval input in each IntervalStyle) before it is called
// wrong, since the settings that will read it are not known yet. The
// error is the default settings'.
func CheckInput(t Type, s string) error {
	_, err := Parse(t, s)
	if err == nil || !styledInput(t.OID) {
		return err
	}
	for _, st := range []*Settings{{DateOrder: DateOrderDMY}, {DateOrder: DateOrderYMD}, {IntervalStyle: IntervalStyleSQLStandard}} {
		if _, e := ParseWith(st, t, s); e == nil {
			return nil
		}
	}
	return err
}
