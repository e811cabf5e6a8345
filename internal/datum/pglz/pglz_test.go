package pglz

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/rand"
	"os"
	"strings"
	"testing"
)

// TestGoldenPostgreSQL compresses inputs whose compressed form was read off
// PostgreSQL 15's heap pages (pageinspect, a bytea column with STORAGE
// MAIN) and requires the same bytes, so compression ratios match exactly.
// Each line of testdata/golden.txt is the input and the stored varlena
// (4-byte header, va_tcinfo, data; or a plain varlena when PostgreSQL
// found the input not worth compressing), in hex.
func TestGoldenPostgreSQL(t *testing.T) {
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		in, stored, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("line %d: no tab", n+1)
		}
		src, err1 := hex.DecodeString(in)
		want, err2 := hex.DecodeString(stored)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: bad hex", n+1)
		}
		n++
		dst := make([]byte, MaxOutput(len(src)))
		clen, ok := Compress(src, dst, Default)
		compressedByPG := want[0]&3 == 2
		// toast_compress_datum also needs a saving of more than 2 bytes.
		ok = ok && clen+8 < len(src)-2
		if ok != compressedByPG {
			t.Fatalf("case %d (%d bytes): compressed=%v, PostgreSQL compressed=%v", n, len(src), ok, compressedByPG)
		}
		if !ok {
			continue
		}
		if got := binary.LittleEndian.Uint32(want[4:]) & 0x3fffffff; int(got) != len(src) {
			t.Fatalf("case %d: golden rawsize %d != input %d", n, got, len(src))
		}
		if !bytes.Equal(dst[:clen], want[8:]) {
			t.Fatalf("case %d (%d bytes): compressed to %d bytes, PostgreSQL to %d; first difference at %d", n, len(src), clen, len(want)-8, firstDiff(dst[:clen], want[8:]))
		}
		raw := make([]byte, len(src))
		if err := Decompress(want[8:], raw); err != nil || !bytes.Equal(raw, src) {
			t.Fatalf("case %d: decompressing PostgreSQL's bytes: %v", n, err)
		}
	}
	if n < 8 {
		t.Fatalf("only %d golden cases", n)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRoundTrip: whatever compresses decompresses to the input, across
// sizes that exercise history recycling (beyond 4096 positions) and long
// matches.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, size := range []int{32, 100, 1000, 4096, 5000, 70000, 300000} {
		for _, alphabet := range []int{1, 2, 4, 16, 256} {
			src := make([]byte, size)
			for i := range src {
				if i > 300 && r.Intn(3) == 0 {
					src[i] = src[i-r.Intn(300)-1]
				} else {
					src[i] = byte(r.Intn(alphabet)) + 'a'
				}
			}
			dst := make([]byte, MaxOutput(size))
			n, ok := Compress(src, dst, Default)
			if !ok {
				continue
			}
			raw := make([]byte, size)
			if err := Decompress(dst[:n], raw); err != nil {
				t.Fatalf("size %d alphabet %d: %v", size, alphabet, err)
			}
			if !bytes.Equal(raw, src) {
				t.Fatalf("size %d alphabet %d: round trip differs at %d", size, alphabet, firstDiff(raw, src))
			}
		}
	}
}

func TestStrategyRefusals(t *testing.T) {
	dst := make([]byte, 100)
	if _, ok := Compress(bytes.Repeat([]byte("a"), 31), dst, Default); ok {
		t.Fatal("compressed an input shorter than min_input_size")
	}
	r := rand.New(rand.NewSource(2))
	noise := make([]byte, 5000)
	r.Read(noise)
	if _, ok := Compress(noise, make([]byte, MaxOutput(len(noise))), Default); ok {
		t.Fatal("compressed random bytes")
	}
	if _, ok := Compress(bytes.Repeat([]byte("ab"), 100), make([]byte, 204), Default); !ok {
		t.Fatal("did not compress a repetitive input")
	}
}

func TestDecompressCorrupt(t *testing.T) {
	src := bytes.Repeat([]byte("hello world "), 50)
	dst := make([]byte, MaxOutput(len(src)))
	n, ok := Compress(src, dst, Default)
	if !ok {
		t.Fatal("not compressed")
	}
	for _, c := range [][]byte{dst[:n-1], append(append([]byte(nil), dst[:n]...), 0), {0x01, 0x00, 0x10}} {
		raw := make([]byte, len(src))
		if err := Decompress(c, raw); err == nil {
			t.Fatalf("corrupt input %x decoded", c[:min(8, len(c))])
		}
	}
	if err := Decompress(dst[:n], make([]byte, len(src)+1)); err == nil {
		t.Fatal("wrong raw length accepted")
	}
}

func BenchmarkCompress(b *testing.B) {
	src := make([]byte, 1<<20)
	r := rand.New(rand.NewSource(3))
	for i := range src {
		if i > 64 && r.Intn(2) == 0 {
			src[i] = src[i-r.Intn(64)-1]
		} else {
			src[i] = byte('a' + r.Intn(16))
		}
	}
	dst := make([]byte, MaxOutput(len(src)))
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		Compress(src, dst, Default)
	}
}

// TestCompressorReuse: a Compressor used for many inputs of varying sizes
// (so stale history from a longer input sits in its table) writes exactly
// what a fresh Compress does.
func TestCompressorReuse(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var c Compressor
	for i := 0; i < 200; i++ {
		size := []int{40, 200, 700, 3000, 8192, 20000}[r.Intn(6)]
		src := make([]byte, size)
		for j := range src {
			if j > 8 && r.Intn(2) == 0 {
				src[j] = src[j-r.Intn(8)-1]
			} else {
				src[j] = byte(r.Intn(16))
			}
		}
		want := make([]byte, MaxOutput(size))
		got := make([]byte, MaxOutput(size))
		wn, wok := Compress(src, want, Default)
		gn, gok := c.Compress(src, got, Default)
		if wn != gn || wok != gok || !bytes.Equal(want[:wn], got[:gn]) {
			t.Fatalf("input %d (%d bytes): reused compressor wrote %d/%v, fresh %d/%v", i, size, gn, gok, wn, wok)
		}
	}
}
