package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Posting-list tuples (PostgreSQL 13+ deduplication; README "Posting
// lists"). A posting tuple is a leaf tuple with INDEX_ALT_TID_MASK set and
// BT_IS_POSTING in its t_tid offset number; the offset's low 12 bits count
// the heap TIDs, t_tid's block number is the byte offset of the TID array
// (the MAXALIGNed end of the key data), and the TIDs follow in ascending
// order, 6 bytes each, the tuple padded to MAXALIGN.

const (
	offsetIsPosting = 0x2000 // BT_IS_POSTING

	// maxPostingSize is the largest posting tuple a deduplication pass
	// makes: half of BTMaxItemSize (_bt_dedup_pass's maxpostingsize).
	maxPostingSize = MaxItemSize / 2
	// buildMaxPostingSize is the bulk build's limit: a tenth of the page
	// less a line pointer (_bt_load), so fillfactor's free space is kept
	// in small units.
	buildMaxPostingSize = (page.Size*10/100)&^(page.MaxAlign-1) - page.ItemIDSize
)

func tidOffsetField(t []byte) uint16 { return binary.LittleEndian.Uint16(t[4:]) }

// isPosting reports whether t is a posting-list tuple.
func isPosting(t []byte) bool {
	return tupInfo(t)&infoAltTID != 0 && tidOffsetField(t)&offsetIsPosting != 0
}

// nPosting is the number of heap TIDs of a posting tuple.
func nPosting(t []byte) int { return int(tidOffsetField(t) & offsetNAttsMask) }

// postingOffset is where a posting tuple's TID array starts.
func postingOffset(t []byte) int { return int(page.GetItemPointer(t).Block) }

// postingTID is the i-th heap TID of a posting tuple.
func postingTID(t []byte, i int) page.ItemPointer {
	o := postingOffset(t) + i*page.ItemPointerSize
	return page.GetItemPointer(t[o:])
}

// keyEnd is where t's key data ends: the posting list's start, or the
// tuple's size.
func keyEnd(t []byte) int {
	if isPosting(t) {
		return postingOffset(t)
	}
	return tupSize(t)
}

// minHeapTID and maxHeapTID are a leaf tuple's lowest and highest heap TID
// (BTreeTupleGetHeapTID, BTreeTupleGetMaxHeapTID).
func minHeapTID(t []byte) page.ItemPointer {
	if isPosting(t) {
		return postingTID(t, 0)
	}
	return page.GetItemPointer(t)
}

func maxHeapTID(t []byte) page.ItemPointer {
	if isPosting(t) {
		return postingTID(t, nPosting(t)-1)
	}
	if tid, ok := heapTID(t); ok {
		return tid
	}
	return page.ItemPointer{}
}

// leafTIDs appends the heap TIDs of leaf tuple t to dst.
func leafTIDs(dst []page.ItemPointer, t []byte) []page.ItemPointer {
	if !isPosting(t) {
		return append(dst, page.GetItemPointer(t))
	}
	for i, n := 0, nPosting(t); i < n; i++ {
		dst = append(dst, postingTID(t, i))
	}
	return dst
}

// formPosting builds the tuple with base's key and the heap TIDs tids
// (sorted, at least one; _bt_form_posting): a plain tuple for one TID, a
// posting tuple otherwise. base may itself be a posting tuple.
func formPosting(base []byte, tids []page.ItemPointer) []byte {
	kend := page.MaxAlignUp(keyEnd(base))
	info := tupInfo(base) &^ (infoSizeMask | infoAltTID)
	if len(tids) == 1 {
		t := make([]byte, kend)
		copy(t, base[:kend])
		page.PutItemPointer(t, tids[0])
		binary.LittleEndian.PutUint16(t[6:], info|uint16(kend))
		return t
	}
	size := page.MaxAlignUp(kend + len(tids)*page.ItemPointerSize)
	t := make([]byte, size)
	copy(t, base[:kend])
	page.PutItemPointer(t, page.ItemPointer{Block: page.BlockNumber(kend), Offset: page.OffsetNumber(len(tids)) | offsetIsPosting})
	binary.LittleEndian.PutUint16(t[6:], info|infoAltTID|uint16(size))
	for i, tid := range tids {
		page.PutItemPointer(t[kend+i*page.ItemPointerSize:], tid)
	}
	return t
}

// postingSizeWith is the size of a posting tuple with base's key and n TIDs.
func postingSizeWith(base []byte, n int) int {
	return page.MaxAlignUp(page.MaxAlignUp(keyEnd(base)) + n*page.ItemPointerSize)
}

// plainTuple rewrites a copy of leaf tuple t's key as a plain tuple for
// tid into dst (a scan returns one such tuple per TID of a posting list).
func appendPlainTuple(dst []byte, t []byte, tid page.ItemPointer) []byte {
	kend := keyEnd(t)
	start := len(dst)
	dst = append(dst, t[:kend]...)
	nt := dst[start:]
	page.PutItemPointer(nt, tid)
	info := tupInfo(t) &^ (infoSizeMask | infoAltTID | infoDeleteMarked)
	if !isPosting(t) {
		info |= tupInfo(t) & infoDeleteMarked
	}
	binary.LittleEndian.PutUint16(nt[6:], info|uint16(kend))
	return dst
}

// sameKeyImage reports whether leaf tuples a and b store bit-for-bit the
// same key (nulls, flags and data). Deduplication merges only such
// tuples, and only in indexes whose opclasses say equal means identical
// (allEqualImage), so a posting list never stands for two different
// images of equal values.
func sameKeyImage(a, b []byte) bool {
	const flags = infoHasNulls | infoVarWidth
	if tupInfo(a)&flags != tupInfo(b)&flags {
		return false
	}
	ea, eb := page.MaxAlignUp(keyEnd(a)), page.MaxAlignUp(keyEnd(b))
	if ea != eb || ea > len(a) || eb > len(b) {
		return false
	}
	return bytes.Equal(a[tupleHeaderSize:ea], b[tupleHeaderSize:eb])
}

// checkPosting verifies one posting tuple's layout (part of Check).
func checkPosting(t []byte) error {
	n := nPosting(t)
	off := postingOffset(t)
	if n < 2 {
		return fmt.Errorf("posting list has %d heap TIDs", n)
	}
	if off < tupleHeaderSize || off%page.MaxAlign != 0 || page.MaxAlignUp(off+n*page.ItemPointerSize) != len(t) {
		return fmt.Errorf("posting list of %d TIDs at offset %d does not fit its %d-byte tuple", n, off, len(t))
	}
	prev := page.ItemPointer{}
	for i := 0; i < n; i++ {
		tid := postingTID(t, i)
		if !tid.Valid() {
			return fmt.Errorf("posting list TID %d is invalid", i)
		}
		if i > 0 && prev.Compare(tid) >= 0 {
			return fmt.Errorf("posting list TIDs %d and %d are out of order", i-1, i)
		}
		prev = tid
	}
	return nil
}

// equalImageTypes are the builtin types whose B-tree operator class has
// an equalimage support function (btequalimage / btvarstrequalimage):
// equal values have identical images, so deduplication is safe. float4,
// float8 (0 = -0) and numeric (display scale) are not among them.
var equalImageTypes = map[datum.OID]bool{
	datum.Int2OID: true, datum.Int4OID: true, datum.Int8OID: true, datum.OidOID: true,
	datum.BoolOID: true, datum.CharOID: true, datum.TextOID: true, datum.VarcharOID: true,
	datum.BpcharOID: true, datum.NameOID: true, datum.ByteaOID: true,
	datum.DateOID: true, datum.TimestampOID: true, datum.TimestamptzOID: true,
}

// allEqualImage reports whether every key column may be deduplicated
// (_bt_allequalimage): a builtin equalimage type with its default
// ordering (a column with a comparator of its own is not deduplicated).
func allEqualImage(opt Options) bool {
	for i, t := range opt.KeyTypes {
		if !equalImageTypes[t.OID] || (i < len(opt.Comparators) && opt.Comparators[i].Compare != nil) {
			return false
		}
	}
	return true
}
