package types

// to_char for timestamp, timestamptz and interval: the value broken into
// dchTime, then formatDch. An empty template or an infinite timestamp
// gives NULL, as in PostgreSQL.

func timestampDchTime(local int64) *dchTime {
	jd, usec := splitTimestamp(local)
	y, m, d := j2date(jd)
	return &dchTime{
		year: y, mon: m, mday: d, wday: j2day(jd), yday: jd - date2j(y, 1, 1) + 1,
		hour: usec / (3600 * usecsPerSec), min: int(usec / (60 * usecsPerSec) % 60),
		sec: int(usec / usecsPerSec % 60), fsec: int(usec % usecsPerSec),
	}
}

func timestampToChar(st *Settings, ts int64, f string, withZone bool) (Datum, error) {
	if f == "" || isInfTS(ts) {
		return Datum{}, nil
	}
	var t *dchTime
	if withZone {
		z := st.zone()
		t = timestampDchTime(z.ToLocal(ts))
		t.gmtoff = z.OffsetAt(ts)
		t.zone, t.hasZone = z.abbrevAt(ts)
	} else {
		t = timestampDchTime(ts)
	}
	s, err := formatDch(parseDchFormat(f), t)
	if err != nil {
		return Datum{}, err
	}
	return Str(s), nil
}

func intervalToChar(iv IntervalValue, f string) (Datum, error) {
	if f == "" {
		return Datum{}, nil
	}
	p := splitInterval(iv)
	t := &dchTime{
		year: int(p.year), mon: int(p.mon), mday: int(p.mday), hour: p.hour,
		min: int(p.min), sec: int(p.sec), fsec: int(p.fsec), interval: true,
	}
	// wday is meaningless for an interval; yday approximates its days
	t.yday = (t.year*12+t.mon)*30 + t.mday
	s, err := formatDch(parseDchFormat(f), t)
	if err != nil {
		return Datum{}, err
	}
	return Str(s), nil
}

func init() {
	fn("to_char", []Type{Timestamp, Text}, Text, func(a []Datum) (Datum, error) {
		return timestampToChar(nil, a[0].Int(), a[1].Str(), false)
	})
	fnWith("to_char", []Type{Timestamptz, Text}, Text, func(st *Settings, a []Datum) (Datum, error) {
		return timestampToChar(st, a[0].Int(), a[1].Str(), true)
	})
	fn("to_char", []Type{Interval, Text}, Text, func(a []Datum) (Datum, error) {
		return intervalToChar(IntervalOf(a[0]), a[1].Str())
	})
}
