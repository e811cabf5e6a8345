package session

import "testing"

// TestClipQuery: pg_stat_activity.query holds at most
// track_activity_query_size - 1 bytes, cut on a character boundary.
func TestClipQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		size int
		want string
	}{
		{"SELECT 1", 100, "SELECT 1"},
		{"abcdef", 6, "abcde"},
		{"abcdef", 7, "abcdef"},
		{"abcé", 5, "abc"}, // é is two bytes: keeping 4 would split it
		{"abcé", 6, "abcé"},
	} {
		if got := clipQuery(c.in, c.size); got != c.want {
			t.Errorf("clipQuery(%q, %d) = %q, want %q", c.in, c.size, got, c.want)
		}
	}
}
