package types

import (
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Date/time input functions (date_in, timestamp_in, timestamptz_in,
// time_in) over the field decoder of datetime_decode.go. Values out of
// range for a field give PostgreSQL's 22008 "date/time field value out of
// range" (with a hint to check DateStyle when a month or day is out of
// range), text that is not a date/time gives 22007 "invalid input syntax
// for type …".

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

type dtErr int

const (
	dtOK dtErr = iota
	dtSyntax
	dtRange
	dtMDRange // a month or day out of range: perhaps the wrong DateStyle
	dtZoneRange
	dtBadZone
)

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// atoi reads decimal digits, saturating above 1e9.
func atoi(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
		if v > 1e9 {
			return 1e9 + 1
		}
	}
	return v
}

func dtError(e dtErr, typname, s, badZone string) error {
	switch e {
	case dtRange:
		return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	case dtMDRange:
		return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s).
			WithHint("Perhaps you need a different \"datestyle\" setting.")
	case dtZoneRange:
		return pgerr.Errorf(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: \"%s\"", s)
	case dtBadZone:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", badZone)
	}
	return pgerr.Errorf(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typname, s)
}

// nowIn returns the current time as a local timestamp in zone z (for
// 'today', 'now', … in input).
func nowIn(z *Zone) int64 { return z.ToLocal(TimestampFromTime(time.Now().UTC())) }

// parseTimestampIn is timestamp_in / timestamptz_in: tz says which, st
// gives the session's zone (timestamptz: wall clock times without a zone
// are in it) and DateStyle's field order.
func parseTimestampIn(st *Settings, orig string, tz bool, typmod int32) (int64, error) {
	name := "timestamp"
	if tz {
		name = "timestamp with time zone"
	}
	v, e, bad := decodeDateTime(st, orig)
	if e != dtOK {
		return 0, dtError(e, name, orig, bad)
	}
	switch v.special {
	case tokLate:
		return TimestampInfinity, nil
	case tokEarly:
		return TimestampNegInfinity, nil
	case tokEpoch:
		return -int64(postgresEpochJDay-unixEpochJDay) * usecsPerDay, nil
	}
	if !validJulian(v.year, v.mon) {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", orig)
	}
	var ts int64
	if tz {
		ts = v.toUTC(st.zone())
	} else if v.now {
		ts = st.zone().ToLocal(v.nowUTC)
	} else {
		ts = v.localMicros()
	}
	ts = adjustTimestampTypmod(ts, typmod)
	if ts < minTimestamp || ts >= endTimestamp {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", orig)
	}
	return ts, nil
}
