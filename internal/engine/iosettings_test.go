package engine

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestParseIODirect(t *testing.T) {
	for _, tc := range []struct {
		in     string
		direct bool
		state  string
	}{
		{"", false, ""}, {"data", true, ""}, {" DATA ", true, ""},
		{"wal", false, pgerr.FeatureNotSupported}, {"data,wal_init", false, pgerr.FeatureNotSupported},
		{"disk", false, pgerr.InvalidParameterValue},
	} {
		d, err := ParseIODirect(tc.in)
		if tc.state == "" {
			if err != nil || d != tc.direct {
				t.Errorf("%q: %v %v", tc.in, d, err)
			}
			continue
		}
		if pgerr.From(err).Code != tc.state {
			t.Errorf("%q: error %v, want SQLSTATE %s", tc.in, err, tc.state)
		}
	}
}
