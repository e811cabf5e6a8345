package types

import "testing"

// Expected values from PostgreSQL 15's pg_size_pretty.
func TestSizePretty(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want string
	}{
		{0, "0 bytes"}, {8192, "8192 bytes"}, {10239, "10239 bytes"}, {10240, "10 kB"},
		{-10239, "-10239 bytes"}, {-10240, "-10 kB"}, {10752, "11 kB"}, {7716864, "7536 kB"},
		{20971008, "20 MB"}, {20971520, "20 MB"}, {1 << 40, "1024 GB"}, {9223372036854775807, "8192 PB"},
		{-9223372036854775807, "-8192 PB"}, {123456789012345, "112 TB"},
	} {
		if got := SizePretty(tc.size); got != tc.want {
			t.Errorf("SizePretty(%d) = %q, want %q", tc.size, got, tc.want)
		}
	}
}
