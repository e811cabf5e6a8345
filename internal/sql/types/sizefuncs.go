package types

import "strconv"

// sizePrettyUnits are pg_size_pretty's units: a size is shown in the first
// unit it is below the limit of, rounded half away from zero in units that
// round. Each step divides by 2^bits with C's truncating division, keeping
// one extra bit when the next unit rounds (PostgreSQL 15's dbsize.c scheme).
var sizePrettyUnits = []struct {
	name     string
	limit    int64
	round    bool
	unitBits uint
}{
	{"bytes", 10 * 1024, false, 0},
	{"kB", 20*1024 - 1, true, 10},
	{"MB", 20*1024 - 1, true, 20},
	{"GB", 20*1024 - 1, true, 30},
	{"TB", 20*1024 - 1, true, 40},
	{"PB", 20*1024 - 1, true, 50},
}

// SizePretty is pg_size_pretty(bigint).
func SizePretty(size int64) string {
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	b2i := func(b bool) uint {
		if b {
			return 1
		}
		return 0
	}
	for i, u := range sizePrettyUnits {
		last := i == len(sizePrettyUnits)-1
		if last || abs(size) < u.limit {
			if u.round {
				if size < 0 {
					size = (size - 1) / 2
				} else {
					size = (size + 1) / 2
				}
			}
			return strconv.FormatInt(size, 10) + " " + u.name
		}
		next := sizePrettyUnits[i+1]
		bits := next.unitBits - u.unitBits - b2i(next.round) + b2i(u.round)
		size /= int64(1) << bits
	}
	panic("unreachable")
}

func init() {
	fn("pg_size_pretty", []Type{Int8}, Text, func(a []Datum) (Datum, error) { return Str(SizePretty(a[0].Int())), nil })
}
