package types

import "strings"

// IsSRF reports whether name is a set-returning function.
func IsSRF(name string) bool { return len(srfs[strings.ToLower(name)]) > 0 }
