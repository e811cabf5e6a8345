// Package varatt is PostgreSQL's varlena header forms and TOAST value
// formats (varatt.h), with the compression methods behind them: the
// bytes a heap or index tuple holds for a variable-length attribute.
//
// A varlena attribute starts with one of:
//
//	xxxxxxx1  1-byte header, total length (header included) in the high 7 bits
//	00000001  TOAST pointer: a second byte (the tag) says which kind; on
//	          disk only tag 18, followed by an unaligned varatt_external
//	xxxxxx00  4-byte header, little-endian, total length << 2, plain data
//	xxxxxx10  4-byte header, inline compressed: then va_tcinfo (raw length
//	          in the low 30 bits, method in the high 2), then the
//	          compressed bytes
//
// varatt_external (16 bytes): va_rawsize int32 (raw length plus the 4-byte
// header it would have), va_extinfo uint32 (stored length in the low 30
// bits, compression method in the high 2 when the stored length is less
// than the raw one), va_valueid (the chunk_id in the TOAST table),
// va_toastrelid (the TOAST table's OID). A compressed value is stored
// externally as its compressed varlena without the 4-byte header (so the
// chunks begin with va_tcinfo).
//
// This package sits below the tuple layer (which decodes attributes) and
// the toast package (which stores chunks); it imports neither.
package varatt

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"

	"github.com/tidal-db/tidal/internal/datum/pglz"
)

// Sizes and thresholds for 8 KiB pages (PostgreSQL's heaptoast.h and
// toast_internals.h values).
const (
	HdrSz       = 4  // VARHDRSZ
	CompHdrSz   = 8  // VARHDRSZ_COMPRESSED: header plus va_tcinfo
	PointerSize = 18 // TOAST_POINTER_SIZE: 2 header bytes + varatt_external
	TagOnDisk   = 18 // VARTAG_ONDISK

	// TupleThreshold is TOAST_TUPLE_THRESHOLD: a heap tuple longer than
	// this is handed to the toaster. TupleTarget (TOAST_TUPLE_TARGET, the
	// default of the toast_tuple_target reloption) is the length it
	// tries to get below; TupleTargetMain the limit before MAIN
	// attributes are moved out too.
	TupleThreshold  = 2032
	TupleTarget     = 2032
	TupleTargetMain = 8160
	// MaxChunkSize is TOAST_MAX_CHUNK_SIZE: the data in one TOAST chunk,
	// so that four chunk tuples fill a page.
	MaxChunkSize = 1996
	// IndexTarget is TOAST_INDEX_TARGET: index attributes longer than
	// this (header included) are compressed.
	IndexTarget = 510
	// MaxAllocSize is PostgreSQL's limit on one value: 1 GB - 1.
	MaxAllocSize = 0x3fffffff
	// MaxRawSize is the longest payload a varlena can hold (its header
	// counts toward the 30-bit length).
	MaxRawSize = MaxAllocSize - HdrSz
)

// Method is a compression method's id as stored in va_tcinfo and
// va_extinfo (ToastCompressionId).
type Method uint8

const (
	PGLZ Method = 0
	LZ4  Method = 1
)

// Names and pg_attribute.attcompression codes of the methods.
func (m Method) String() string {
	if m == LZ4 {
		return "lz4"
	}
	return "pglz"
}

// AttCode is the method's pg_attribute.attcompression character.
func (m Method) AttCode() byte {
	if m == LZ4 {
		return 'l'
	}
	return 'p'
}

// MethodByName resolves default_toast_compression / COMPRESSION names.
func MethodByName(name string) (Method, bool) {
	switch name {
	case "pglz":
		return PGLZ, true
	case "lz4":
		return LZ4, true
	}
	return 0, false
}

// MethodByAttCode resolves an attcompression character; 0 (the column
// has none) reports ok=false: the current default applies.
func MethodByAttCode(c byte) (Method, bool) {
	switch c {
	case 'p':
		return PGLZ, true
	case 'l':
		return LZ4, true
	}
	return 0, false
}

// Header kinds of a varlena's first byte.

// IsExternal reports a TOAST pointer (1-byte header of value 1).
func IsExternal(b []byte) bool { return len(b) > 0 && b[0] == 0x01 }

// IsShort reports a 1-byte header that is not a TOAST pointer.
func IsShort(b []byte) bool { return len(b) > 0 && b[0]&1 == 1 && b[0] != 0x01 }

// IsCompressed reports an inline compressed value (4-byte header, bits 10).
func IsCompressed(b []byte) bool { return len(b) >= 4 && b[0]&3 == 2 }

// External is varatt_external.
type External struct {
	RawSize    int32  // raw payload length + HdrSz
	ExtInfo    uint32 // stored length | method << 30
	ValueID    uint32 // chunk_id
	ToastRelID uint32
}

// ExtSize is the number of bytes stored in the chunks.
func (e External) ExtSize() int { return int(e.ExtInfo & 0x3fffffff) }

// RawLen is the detoasted payload length.
func (e External) RawLen() int { return int(e.RawSize) - HdrSz }

// Compressed reports a value stored compressed (VARATT_EXTERNAL_IS_COMPRESSED).
func (e External) Compressed() bool { return e.ExtSize() < e.RawLen() }

// Method is the compression method of a compressed value.
func (e External) Method() Method { return Method(e.ExtInfo >> 30) }

// Encode returns the 18-byte TOAST pointer as a tuple stores it.
func (e External) Encode() []byte {
	b := make([]byte, PointerSize)
	b[0], b[1] = 0x01, TagOnDisk
	binary.LittleEndian.PutUint32(b[2:], uint32(e.RawSize))
	binary.LittleEndian.PutUint32(b[6:], e.ExtInfo)
	binary.LittleEndian.PutUint32(b[10:], e.ValueID)
	binary.LittleEndian.PutUint32(b[14:], e.ToastRelID)
	return b
}

// DecodeExternal parses a TOAST pointer (at least its 18 bytes).
func DecodeExternal(b []byte) (External, error) {
	if len(b) < PointerSize || b[0] != 0x01 {
		return External{}, errors.New("varatt: not a TOAST pointer")
	}
	if b[1] != TagOnDisk {
		return External{}, fmt.Errorf("varatt: unrecognized TOAST pointer tag %d", b[1])
	}
	return External{
		RawSize:    int32(binary.LittleEndian.Uint32(b[2:])),
		ExtInfo:    binary.LittleEndian.Uint32(b[6:]),
		ValueID:    binary.LittleEndian.Uint32(b[10:]),
		ToastRelID: binary.LittleEndian.Uint32(b[14:]),
	}, nil
}

// CompressedSize is VARSIZE of an inline compressed varlena (header
// included).
func CompressedSize(v []byte) int { return int(binary.LittleEndian.Uint32(v) >> 2) }

// CompressedRawLen is the raw payload length recorded in va_tcinfo.
func CompressedRawLen(v []byte) int { return int(binary.LittleEndian.Uint32(v[4:]) & 0x3fffffff) }

// CompressedMethod is the method recorded in va_tcinfo.
func CompressedMethod(v []byte) Method { return Method(binary.LittleEndian.Uint32(v[4:]) >> 30) }

// Compress is toast_compress_datum: it returns data compressed with m as
// an inline compressed varlena, or nil when the method declines or the
// result would not save more than 2 bytes (it could then cost more than it
// saves once header and alignment are counted).
func Compress(m Method, data []byte) []byte {
	var out []byte
	switch m {
	case LZ4:
		bound := lz4.CompressBlockBound(len(data))
		out = make([]byte, CompHdrSz+bound)
		n, err := lz4.CompressBlock(data, out[CompHdrSz:], nil)
		if err != nil || n == 0 || n > len(data) {
			return nil // incompressible
		}
		out = out[:CompHdrSz+n]
	default:
		if len(data) < pglz.Default.MinInputSize || len(data) > pglz.Default.MaxInputSize {
			return nil
		}
		out = make([]byte, CompHdrSz+pglz.OutputBound(len(data), pglz.Default))
		n, ok := pglz.Compress(data, out[CompHdrSz:], pglz.Default)
		if !ok {
			return nil
		}
		out = out[:CompHdrSz+n]
	}
	if len(out) >= len(data)-2 {
		return nil
	}
	binary.LittleEndian.PutUint32(out, uint32(len(out))<<2|2)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(data))|uint32(m)<<30)
	return out[:len(out):len(out)]
}

// ErrCorrupt is returned for compressed data that does not decode to its
// recorded length; callers report it as PostgreSQL's XX001.
type ErrCorrupt struct{ Method Method }

func (e *ErrCorrupt) Error() string { return fmt.Sprintf("compressed %s data is corrupt", e.Method) }

// Decompress returns the raw payload of an inline compressed varlena v
// (header included).
func Decompress(v []byte) ([]byte, error) {
	if len(v) < CompHdrSz {
		return nil, &ErrCorrupt{PGLZ}
	}
	m := CompressedMethod(v)
	raw := make([]byte, CompressedRawLen(v))
	src := v[CompHdrSz:]
	if sz := CompressedSize(v); sz <= len(v) && sz >= CompHdrSz {
		src = v[CompHdrSz:sz]
	}
	switch m {
	case PGLZ:
		if err := pglz.Decompress(src, raw); err != nil {
			return nil, &ErrCorrupt{m}
		}
	case LZ4:
		n, err := lz4.UncompressBlock(src, raw)
		if err != nil || n != len(raw) {
			return nil, &ErrCorrupt{m}
		}
	default:
		return nil, fmt.Errorf("invalid compression method id %d", m)
	}
	return raw, nil
}
