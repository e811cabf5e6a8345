package session

import (
	"reflect"
	"testing"
)

// TestSplitOptions: the startup options string splits as PostgreSQL's
// pg_split_opts splits it; a backslash keeps the next character (a space
// or a backslash) in the word.
func TestSplitOptions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -c  a=b\t-cx=y ", []string{"-c", "a=b", "-cx=y"}},
		{`-c default_transaction_isolation=repeatable\ read`, []string{"-c", "default_transaction_isolation=repeatable read"}},
		{`-c search_path=a\\b`, []string{"-c", `search_path=a\b`}},
		{`--work_mem=1MB \`, []string{"--work_mem=1MB", `\`}},
	} {
		if got := splitOptions(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitOptions(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
