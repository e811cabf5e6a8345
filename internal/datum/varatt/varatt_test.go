package varatt

import (
	"bytes"
	"strings"
	"testing"
)

func TestExternalPointer(t *testing.T) {
	p := External{RawSize: 100004, ExtInfo: 1152 | uint32(LZ4)<<30, ValueID: 16390, ToastRelID: 16387}
	b := p.Encode()
	if len(b) != PointerSize || b[0] != 0x01 || b[1] != TagOnDisk || !IsExternal(b) || IsShort(b) || IsCompressed(b) {
		t.Fatalf("encoded pointer %x", b)
	}
	q, err := DecodeExternal(b)
	if err != nil || q != p {
		t.Fatalf("decoded %+v, %v", q, err)
	}
	if !q.Compressed() || q.Method() != LZ4 || q.ExtSize() != 1152 || q.RawLen() != 100000 {
		t.Fatalf("fields of %+v", q)
	}
	b[1] = 1 // VARTAG_INDIRECT: never on disk
	if _, err := DecodeExternal(b); err == nil {
		t.Fatal("accepted a non-ondisk tag")
	}
}

func TestCompress(t *testing.T) {
	data := []byte(strings.Repeat("hello, world; ", 500))
	for _, m := range []Method{PGLZ, LZ4} {
		v := Compress(m, data)
		if v == nil || !IsCompressed(v) || CompressedSize(v) != len(v) || CompressedRawLen(v) != len(data) || CompressedMethod(v) != m {
			t.Fatalf("%s: %x…", m, v[:min(len(v), 12)])
		}
		raw, err := Decompress(v)
		if err != nil || !bytes.Equal(raw, data) {
			t.Fatalf("%s: round trip: %v", m, err)
		}
		v[len(v)-1] ^= 0xff
		if raw, err := Decompress(v); err == nil && bytes.Equal(raw, data) {
			t.Fatalf("%s: corrupted data decoded to the input", m)
		}
	}
	// Not worth it: too short for pglz, or no saving of more than 2 bytes.
	if Compress(PGLZ, []byte("short")) != nil || Compress(LZ4, []byte("abcdefgh")) != nil {
		t.Fatal("compressed an input that cannot gain")
	}
	if m, ok := MethodByName("lz4"); !ok || m.AttCode() != 'l' {
		t.Fatal("lz4 by name")
	}
	if _, ok := MethodByName("zstd"); ok {
		t.Fatal("zstd accepted")
	}
}
