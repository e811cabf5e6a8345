package types

import (
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zone rules on machines without /usr/share/zoneinfo

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// Settings are the session settings that type input/output, casts and some
// functions depend on. A nil *Settings means PostgreSQL's defaults as this
// package assumed before sessions had a time zone: TimeZone UTC.
type Settings struct {
	// Zone is the TimeZone setting; nil means UTC.
	Zone *Zone
	// Interrupts is the session's pending interrupt, which functions that
	// can run long on big arguments check (repeat, lpad, replace …).
	Interrupts *interrupt.State
	// UserTypes names the session's user-defined types (domains), which
	// regtype and format_type print; nil: only the builtins.
	UserTypes UserTypeNames
	// DateStyle and DateOrder are the DateStyle setting: the output style
	// of date/time values and the field order of ambiguous numeric dates.
	DateStyle DateStyle
	DateOrder DateOrder
	// IntervalStyle is interval output (and sql_standard's input signs).
	IntervalStyle IntervalStyle
	// RoundFloatDigits is 1 - extra_float_digits when that is 0 or less:
	// float output then rounds to 15 (float4: 6) significant digits less
	// this plus one, as PostgreSQL's older output. 0 is the default
	// shortest exact output (RoundFloatDigitsFor converts).
	RoundFloatDigits int
	// ByteaEscape is bytea_output = escape (the default is hex).
	ByteaEscape bool
	// TxnTime is the transaction's start (timestamp microseconds, UTC),
	// which 'now', 'today' … in date/time input read; 0 reads the clock.
	TxnTime int64
}

// now is the current instant as input's 'now' means it: the
// transaction's start.
func (st *Settings) now() int64 {
	if st == nil || st.TxnTime == 0 {
		return NowMicros()
	}
	return st.TxnTime
}

// UserTypeNames is what the type system asks the catalog about types it
// does not know itself.
type UserTypeNames interface {
	// TypeName is format_type of a user-defined type ("" if none).
	TypeName(oid OID) string
	// TypeOID resolves a user-defined type's name (0 if none).
	TypeOID(names []string) OID
	// Enum describes an enum type (nil if oid is none).
	Enum(oid OID) *Enum
	// Composite describes a composite type (nil if oid is none).
	Composite(oid OID) *Composite
}

func (st *Settings) zone() *Zone {
	if st == nil || st.Zone == nil {
		return utcZone
	}
	return st.Zone
}

// Zone is a time zone as the TimeZone setting and timestamptz input accept
// it: an IANA zone (from Go's time package; the binary embeds tzdata), or a
// fixed offset from UTC (a POSIX "+02:00"/"UTC+3" string, a number of
// hours, an ISO offset or an abbreviation like EST).
type Zone struct {
	// Name is the setting's value as SHOW prints it.
	Name  string
	loc   *time.Location // nil: fixed offset
	fixed int            // seconds east of UTC when loc is nil
}

var utcZone = &Zone{Name: "UTC", loc: time.UTC}

// FixedZone returns a zone at a constant offset (seconds east of UTC).
func FixedZone(name string, secsEast int) *Zone { return &Zone{Name: name, fixed: secsEast} }

// OffsetAt returns the zone's offset in seconds east of UTC at the UTC
// instant given as timestamp microseconds.
func (z *Zone) OffsetAt(utc int64) int {
	if z.loc == nil {
		return z.fixed
	}
	if z.loc == time.UTC {
		return 0
	}
	sec := floorDiv(utc, usecsPerSec) + 946684800
	_, off := time.Unix(sec, 0).In(z.loc).Zone()
	return off
}

// ToUTC converts a local wall-clock timestamp in the zone to UTC, as
// PostgreSQL's DetermineTimeZoneOffset: a time skipped by a spring-forward
// transition takes the offset from before it, an ambiguous time of a
// fall-back transition the offset from after it.
func (z *Zone) ToUTC(local int64) int64 {
	if z.loc == nil {
		return local - int64(z.fixed)*usecsPerSec
	}
	if z.loc == time.UTC {
		return local
	}
	before := int64(z.OffsetAt(local-usecsPerDay)) * usecsPerSec
	after := int64(z.OffsetAt(local+usecsPerDay)) * usecsPerSec
	if before == after {
		// no transition nearby (or only one inside the window that both sides agree on)
		t := local - before
		if int64(z.OffsetAt(t))*usecsPerSec == before {
			return t
		}
	}
	tb, ta := local-before, local-after
	okB := int64(z.OffsetAt(tb))*usecsPerSec == before
	okA := int64(z.OffsetAt(ta))*usecsPerSec == after
	switch {
	case okB && okA:
		return ta // ambiguous: after
	case okA:
		return ta
	default:
		return tb // valid before, or in a gap: before
	}
}

// ToLocal converts a UTC timestamp to the zone's wall clock.
func (z *Zone) ToLocal(utc int64) int64 {
	if utc == TimestampInfinity || utc == TimestampNegInfinity {
		return utc
	}
	return utc + int64(z.OffsetAt(utc))*usecsPerSec
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

var zoneCache sync.Map // lower-case name -> *Zone

// LookupZone resolves a TimeZone setting value. It accepts IANA names
// (case-insensitively, as PostgreSQL), "UTC"/"GMT"/"Z", POSIX-style fixed
// offsets ("+02:00" means two hours west of Greenwich, as in POSIX;
// "UTC+3", "<+03>-03") and the time-zone abbreviations of timestamptz
// input. The error is PostgreSQL's 22023 for the TimeZone parameter.
func LookupZone(name string) (*Zone, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if z, ok := zoneCache.Load(key); ok {
		return z.(*Zone), nil
	}
	z := resolveZone(strings.TrimSpace(name))
	if z == nil {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", name)
	}
	zoneCache.Store(key, z)
	return z, nil
}

func resolveZone(name string) *Zone {
	if name == "" {
		return nil
	}
	switch strings.ToLower(name) {
	case "utc", "etc/utc", "z", "zulu", "universal", "etc/universal":
		return &Zone{Name: canonicalCase(name, "UTC"), loc: time.UTC}
	case "gmt", "etc/gmt", "greenwich":
		return &Zone{Name: canonicalCase(name, "GMT"), loc: time.UTC}
	}
	if off, ok := parsePosixOffset(name); ok {
		return &Zone{Name: name, fixed: off}
	}
	if loc := loadLocation(name); loc != nil {
		return &Zone{Name: loc.String(), loc: loc}
	}
	return nil
}

// canonicalCase keeps the user's spelling when it is the canonical one
// (SHOW TimeZone prints "UTC" after SET TimeZone = 'utc').
func canonicalCase(name, canonical string) string {
	if strings.EqualFold(name, canonical) {
		return canonical
	}
	return name
}

var tzNamesOnce sync.Once
var tzNamesLower map[string]string

// loadLocation finds an IANA zone, matching the name case-insensitively as
// PostgreSQL's pg_tzset does.
func loadLocation(name string) *time.Location {
	if strings.ContainsAny(name, " .\\") || strings.HasPrefix(name, "/") {
		return nil
	}
	if loc, err := time.LoadLocation(name); err == nil && name != "Local" {
		return loc
	}
	tzNamesOnce.Do(func() {
		tzNamesLower = map[string]string{}
		for _, n := range ianaNames {
			tzNamesLower[strings.ToLower(n)] = n
		}
	})
	if canon, ok := tzNamesLower[strings.ToLower(name)]; ok {
		if loc, err := time.LoadLocation(canon); err == nil {
			return loc
		}
	}
	return nil
}

// ianaNames lists commonly used zone names so that case-insensitive
// spellings ("europe/paris") resolve; exact spellings of any zone in the
// embedded tzdata resolve without it.
var ianaNames = []string{
	"Africa/Cairo", "Africa/Johannesburg", "Africa/Lagos", "Africa/Nairobi", "America/Anchorage",
	"America/Argentina/Buenos_Aires", "America/Bogota", "America/Chicago", "America/Denver",
	"America/Halifax", "America/Los_Angeles", "America/Mexico_City", "America/New_York",
	"America/Phoenix", "America/Sao_Paulo", "America/St_Johns", "America/Toronto", "America/Vancouver",
	"Asia/Bangkok", "Asia/Dubai", "Asia/Hong_Kong", "Asia/Jakarta", "Asia/Jerusalem", "Asia/Kathmandu",
	"Asia/Kolkata", "Asia/Calcutta", "Asia/Seoul", "Asia/Shanghai", "Asia/Singapore", "Asia/Tehran",
	"Asia/Tokyo", "Atlantic/Reykjavik", "Australia/Adelaide", "Australia/Brisbane", "Australia/Melbourne",
	"Australia/Perth", "Australia/Sydney", "Europe/Amsterdam", "Europe/Athens", "Europe/Berlin",
	"Europe/Brussels", "Europe/Dublin", "Europe/Helsinki", "Europe/Istanbul", "Europe/Kiev", "Europe/Kyiv",
	"Europe/Lisbon", "Europe/London", "Europe/Madrid", "Europe/Moscow", "Europe/Oslo", "Europe/Paris",
	"Europe/Prague", "Europe/Rome", "Europe/Stockholm", "Europe/Vienna", "Europe/Warsaw", "Europe/Zurich",
	"Pacific/Auckland", "Pacific/Honolulu", "US/Eastern", "US/Central", "US/Mountain", "US/Pacific",
	"CET", "EET", "EST", "EST5EDT", "CST6CDT", "MST", "MST7MDT", "PST8PDT", "WET", "MET", "HST",
}

// parsePosixOffset parses a POSIX TZ string without DST rules: an optional
// zone name (3+ letters, or <...>) followed by an offset [+-]hh[:mm[:ss]]
// measured WEST of Greenwich, or a bare offset. It returns seconds EAST.
func parsePosixOffset(s string) (int, bool) {
	p := 0
	if strings.HasPrefix(s, "<") {
		e := strings.IndexByte(s, '>')
		if e < 0 {
			return 0, false
		}
		p = e + 1
	} else {
		for p < len(s) && (s[p] >= 'a' && s[p] <= 'z' || s[p] >= 'A' && s[p] <= 'Z') {
			p++
		}
		if p > 0 && p < 3 {
			return 0, false
		}
	}
	rest := s[p:]
	if rest == "" {
		return 0, false
	}
	secs, ok := parseHMSOffset(rest)
	if !ok {
		return 0, false
	}
	return -secs, true
}

// parseHMSOffset parses [+-]h[h][:mm[:ss]] (or [+-]hhmm) into signed
// seconds, as written (positive = the sign was + or absent).
func parseHMSOffset(s string) (int, bool) {
	sign := 1
	p := 0
	if p < len(s) && (s[p] == '+' || s[p] == '-') {
		if s[p] == '-' {
			sign = -1
		}
		p++
	}
	h, q, n := num(s, p, 2)
	if n == 0 {
		return 0, false
	}
	var m, sec int
	if q < len(s) && s[q] == ':' {
		m, q, n = num(s, q+1, 2)
		if n != 2 {
			return 0, false
		}
		if q < len(s) && s[q] == ':' {
			sec, q, n = num(s, q+1, 2)
			if n != 2 {
				return 0, false
			}
		}
	} else if n == 2 && q < len(s) {
		m, q, n = num(s, q, 2)
		if n != 2 {
			return 0, false
		}
	}
	if q != len(s) || h > 15 || m > 59 || sec > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60 + sec), true
}

// ZoneFromHours is SET TIME ZONE <number> / INTERVAL: a fixed offset of
// that many hours EAST of Greenwich, shown as PostgreSQL shows it
// ("<+02>-02", "<+03:30>-03:30").
func ZoneFromHours(secsEast int) *Zone {
	abs := secsEast
	sign := byte('+')
	if abs < 0 {
		abs, sign = -abs, '-'
	}
	var b []byte
	b = append(b, '<', sign)
	b = appendOffsetHMS(b, abs)
	b = append(b, '>')
	if sign == '+' {
		b = append(b, '-')
	} else {
		b = append(b, '+')
	}
	b = appendOffsetHMS(b, abs)
	return &Zone{Name: string(b), fixed: secsEast}
}

func appendOffsetHMS(b []byte, abs int) []byte {
	b = append2(b, abs/3600)
	if abs%3600 != 0 {
		b = append(b, ':')
		b = append2(b, abs/60%60)
		if abs%60 != 0 {
			b = append(b, ':')
			b = append2(b, abs%60)
		}
	}
	return b
}

// appendZoneOffset appends a UTC offset as timestamptz output does:
// +hh, +hh:mm or +hh:mm:ss.
func appendZoneOffset(dst []byte, secsEast int) []byte {
	if secsEast < 0 {
		dst = append(dst, '-')
		secsEast = -secsEast
	} else {
		dst = append(dst, '+')
	}
	return appendOffsetHMS(dst, secsEast)
}

// zoneAbbrevs are the time-zone abbreviations timestamptz input accepts
// (PostgreSQL's "Default" abbreviation set, the common part), in seconds
// east of UTC.
var zoneAbbrevs = map[string]int{
	"utc": 0, "gmt": 0, "z": 0, "zulu": 0, "ut": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "ast": -4 * 3600, "adt": -3 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600, "eet": 2 * 3600, "eest": 3 * 3600,
	"wet": 0, "west": 3600, "bst": 3600, "msk": 3 * 3600, "ist": 2 * 3600,
	"jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "sgt": 8 * 3600,
	"aest": 10 * 3600, "aedt": 11 * 3600, "acst": 9*3600 + 1800, "awst": 8 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600,
}

// zoneWord resolves a zone written inside a timestamptz literal: an
// abbreviation (fixed offset) or a full zone name.
func zoneWord(w string) (*Zone, bool) {
	if off, ok := zoneAbbrevs[strings.ToLower(w)]; ok {
		return &Zone{Name: w, fixed: off}, true
	}
	if strings.ContainsRune(w, '/') || len(w) > 4 {
		if loc := loadLocation(w); loc != nil {
			return &Zone{Name: loc.String(), loc: loc}, true
		}
	}
	if off, ok := parsePosixOffset(w); ok && strings.ContainsAny(w, "+-") {
		return &Zone{Name: w, fixed: off}, true
	}
	return nil, false
}

// TimeZoneFromInterval is SET TIME ZONE INTERVAL '...': the interval's
// time part as an offset east of UTC.
func TimeZoneFromInterval(d Datum) (*Zone, error) {
	iv := IntervalOf(d)
	if iv.Months != 0 || iv.Days != 0 {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid interval value for time zone: day not allowed")
	}
	return ZoneFromHours(int(iv.Micros / usecsPerSec)), nil
}

// ZoneForSetting resolves SET TIME ZONE's argument: a number means hours
// east of Greenwich, anything else is a zone name.
func ZoneForSetting(v string) (*Zone, error) {
	if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
		if f < -15*3600 || f > 15*3600 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", v)
		}
		return ZoneFromHours(int(f * 3600)), nil
	}
	return LookupZone(v)
}

// convertTimestampZone is the timestamp <-> timestamptz cast: a wall-clock
// timestamp is read in the session's zone (fromTimestamp), or a UTC instant
// is shown as the session's wall clock.
func convertTimestampZone(st *Settings, v int64, fromTimestamp bool) int64 {
	if v == TimestampInfinity || v == TimestampNegInfinity {
		return v
	}
	if fromTimestamp {
		return st.zone().ToUTC(v)
	}
	return st.zone().ToLocal(v)
}

// DependsOnSettings reports whether converting a value from one type to
// the other depends on the session's settings (TimeZone; DateStyle's field
// order for date/time input; the output styles of DateStyle,
// IntervalStyle, extra_float_digits and bytea_output for text output), so
// that a constant must not be converted before the statement runs.
func DependsOnSettings(from, to Type) bool {
	if from.OID == to.OID {
		return false
	}
	if to.OID == TimestamptzOID || from.OID == TimestamptzOID {
		return true
	}
	if from.OID == UnknownOID || IsString(from) {
		return styledInput(to.OID)
	}
	if IsString(to) {
		return styledOutput(from.OID)
	}
	return false
}

// styledInput: the input function reads DateStyle's field order (or,
// for interval, IntervalStyle's sql_standard signs).
func styledInput(oid OID) bool {
	return oid == DateOID || oid == TimestampOID || oid == TimestamptzOID || oid == TimeOID || oid == IntervalOID
}

// styledOutput: the output function follows an output-style setting.
func styledOutput(oid OID) bool {
	switch oid {
	case DateOID, TimestampOID, IntervalOID, Float4OID, Float8OID, ByteaOID:
		return true
	}
	return false
}
