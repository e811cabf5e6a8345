package driver

import (
	"testing"
	"time"
)

func TestUTCOffset(t *testing.T) {
	for _, tc := range []struct {
		text   string
		offset int
		ok     bool
	}{
		{"2026-11-30 01:02:03+00", 0, true},
		{"2026-11-30 01:02:03.5+05:30", 5*3600 + 1800, true},
		{"2026-07-01 12:00:00-04", -4 * 3600, true},
		{"1883-11-18 12:00:00-07:52:58", -(7*3600 + 52*60 + 58), true},
		{"0044-03-15 12:00:00+01 BC", 3600, true},
		{"infinity", 0, false},
	} {
		off, ok := utcOffset(tc.text)
		if off != tc.offset || ok != tc.ok {
			t.Errorf("utcOffset(%q) = %d, %v; want %d, %v", tc.text, off, ok, tc.offset, tc.ok)
		}
	}
	// A timestamptz decodes to the instant, in a zone with the printed offset.
	v, err := decode(1184, []byte("2026-11-30 06:32:03-05:30"), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	at := v.(time.Time)
	if _, off := at.Zone(); off != -(5*3600+1800) || !at.Equal(time.Date(2026, 11, 30, 12, 2, 3, 0, time.UTC)) {
		t.Errorf("decode: %v", at)
	}
}
