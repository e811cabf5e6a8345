package exec

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// Hash partitioning uses PostgreSQL's hash functions, so a row lands in
// the same partition as in PostgreSQL: each key column's extended hash
// (Jenkins' lookup3, hashfn.c) with HASH_PARTITION_SEED, combined by
// hash_combine64; a NULL column contributes nothing.

const hashPartitionSeed = 0x7A5B22367996DCFD

func partitionHash(ts []types.Type, key []types.Datum) uint64 {
	var row uint64
	for i, k := range key {
		if k.IsNull() {
			continue
		}
		h := datumHashExtended(ts[i], k, hashPartitionSeed)
		row ^= h + 0x49a0f4dd15e5a8e3 + (row << 54) + (row >> 7)
	}
	return row
}

// datumHashExtended is the type's extended hash support function.
func datumHashExtended(t types.Type, d types.Datum, seed uint64) uint64 {
	switch t.OID {
	case types.Int2OID, types.Int4OID, types.OidOID, types.DateOID:
		return hashUint32Extended(uint32(int32(d.Int())), seed)
	case types.Int8OID:
		v := d.Int()
		lo, hi := uint32(v), uint32(uint64(v)>>32)
		if v >= 0 {
			lo ^= hi
		} else {
			lo ^= ^hi
		}
		return hashUint32Extended(lo, seed)
	case types.BoolOID:
		if d.Bool() {
			return hashUint32Extended(1, seed)
		}
		return hashUint32Extended(0, seed)
	case types.Float8OID, types.Float4OID:
		f := d.Float()
		if f == 0 {
			return seed // hashfloat8extended: +0 and -0 hash alike
		}
		if t.OID == types.Float4OID {
			f = float64(float32(f))
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return hashBytesExtended(b[:], seed)
	}
	return hashBytesExtended([]byte(types.FormatText(t, d)), seed)
}

func hashMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func hashFinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}

func hashUint32Extended(k uint32, seed uint64) uint64 {
	a := uint32(0x9e3779b9 + 4 + 3923095)
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = hashMix(a, b, c)
	}
	a += k
	a, b, c = hashFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

func hashBytesExtended(k []byte, seed uint64) uint64 {
	n := len(k)
	a := uint32(0x9e3779b9) + uint32(n) + 3923095
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = hashMix(a, b, c)
	}
	for n >= 12 {
		a += binary.LittleEndian.Uint32(k[0:])
		b += binary.LittleEndian.Uint32(k[4:])
		c += binary.LittleEndian.Uint32(k[8:])
		a, b, c = hashMix(a, b, c)
		k, n = k[12:], n-12
	}
	// The last bytes; c's lowest byte is left for the length.
	if n >= 11 {
		c += uint32(k[10]) << 24
	}
	if n >= 10 {
		c += uint32(k[9]) << 16
	}
	if n >= 9 {
		c += uint32(k[8]) << 8
	}
	if n >= 8 {
		b += uint32(k[7]) << 24
	}
	if n >= 7 {
		b += uint32(k[6]) << 16
	}
	if n >= 6 {
		b += uint32(k[5]) << 8
	}
	if n >= 5 {
		b += uint32(k[4])
	}
	if n >= 4 {
		a += uint32(k[3]) << 24
	}
	if n >= 3 {
		a += uint32(k[2]) << 16
	}
	if n >= 2 {
		a += uint32(k[1]) << 8
	}
	if n >= 1 {
		a += uint32(k[0])
	}
	a, b, c = hashFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}
