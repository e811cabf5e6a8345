package pgerr

import "testing"

func TestReported(t *testing.T) {
	cases := []struct {
		sev, min string
		client   bool
		want     bool
	}{
		{SevNotice, "notice", true, true},
		{SevNotice, "warning", true, false},
		{SevWarning, "warning", true, true},
		{SevWarning, "error", true, false},
		{SevInfo, "error", true, true}, // INFO always reaches the client
		{SevLog, "notice", true, false},
		{SevLog, "log", true, true},
		{"DEBUG1", "debug1", true, true},
		{"DEBUG2", "debug1", true, false},
		{SevNotice, "bogus", true, true},
		{"DEBUG", "debug1", true, true},
		{SevWarning, "warning", false, true},
		{SevNotice, "warning", false, false},
		{SevLog, "warning", false, true}, // LOG ranks above ERROR in the log
		{SevLog, "error", false, true},
		{SevLog, "fatal", false, false},
		{SevError, "log", false, false},
		{SevFatal, "log", false, true},
		{SevInfo, "warning", false, false},
	}
	for _, c := range cases {
		if got := Reported(c.sev, c.min, c.client); got != c.want {
			t.Errorf("Reported(%q, %q, client=%v) = %v, want %v", c.sev, c.min, c.client, got, c.want)
		}
	}
}
