package btree

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// IndexTupleData t_info bits.
const (
	infoSizeMask = 0x1FFF // INDEX_SIZE_MASK
	// infoDeleteMarked marks a leaf entry for VACUUM's key recheck
	// (mark.go). It is the top bit of INDEX_SIZE_MASK, which no stored
	// tuple needs: MaxItemSize (2704) < 4096.
	infoDeleteMarked = 0x1000
	storedSizeMask   = 0x0FFF
	infoAltTID       = 0x2000 // INDEX_AM_RESERVED_BIT: nbtree's INDEX_ALT_TID_MASK (pivot tuple)
	infoVarWidth     = 0x4000 // INDEX_VAR_MASK
	infoHasNulls     = 0x8000 // INDEX_NULL_MASK

	tupleHeaderSize = 8 // sizeof(IndexTupleData)
	nullBitmapSize  = 4 // sizeof(IndexAttributeBitMapData)

	// pivot tuples keep their attribute count in t_tid's offset number
	offsetNAttsMask  = 0x0FFF // BT_OFFSET_MASK
	offsetPivotTID   = 0x1000 // BT_PIVOT_HEAP_TID_ATTR
	heapTIDTrailSize = 8      // MAXALIGN(sizeof(ItemPointerData))
)

// Tuple is an index tuple (IndexTupleData and its key data), as stored on a
// leaf page. Tuples returned by a Cursor are copies owned by the cursor.
type Tuple []byte

// TID is the heap TID of a leaf (non-pivot) tuple: its lowest, for a
// posting list (a Cursor only returns plain tuples).
func (t Tuple) TID() page.ItemPointer { return minHeapTID(t) }

// HasNulls reports whether some key column is NULL.
func (t Tuple) HasNulls() bool { return tupInfo(t)&infoHasNulls != 0 }

func tupInfo(t []byte) uint16 { return binary.LittleEndian.Uint16(t[6:]) }
func tupSize(t []byte) int    { return int(tupInfo(t) & storedSizeMask) }
func isPivot(t []byte) bool {
	return tupInfo(t)&infoAltTID != 0 && binary.LittleEndian.Uint16(t[4:])&offsetIsPosting == 0
}

func dataOffset(info uint16) int {
	if info&infoHasNulls != 0 {
		return page.MaxAlignUp(tupleHeaderSize + nullBitmapSize)
	}
	return tupleHeaderSize
}

// natts is the number of key attributes stored (BTreeTupleGetNAtts).
func (ix *Index) natts(t []byte) int {
	if isPivot(t) {
		return int(binary.LittleEndian.Uint16(t[4:]) & offsetNAttsMask)
	}
	return ix.nkeys
}

// pivotHasTID reports whether a pivot tuple carries a heap TID tiebreaker.
func pivotHasTID(t []byte) bool {
	return binary.LittleEndian.Uint16(t[4:])&offsetPivotTID != 0
}

// heapTID returns the tuple's heap TID: t_tid for a leaf tuple (the
// lowest TID of a posting list), the trailing TID for a pivot that has
// one; ok is false for a pivot whose heap TID was truncated away (minus
// infinity).
func heapTID(t []byte) (page.ItemPointer, bool) {
	if isPosting(t) {
		return postingTID(t, 0), true
	}
	if !isPivot(t) {
		return page.GetItemPointer(t), true
	}
	if !pivotHasTID(t) {
		return page.ItemPointer{}, false
	}
	sz := tupSize(t)
	return page.GetItemPointer(t[sz-page.ItemPointerSize:]), true
}

// downlink is the child block of a pivot tuple (BTreeTupleGetDownLink).
func downlink(t []byte) page.BlockNumber { return page.GetItemPointer(t).Block }

func setDownlink(t []byte, blk page.BlockNumber) {
	off := page.GetItemPointer(t).Offset
	page.PutItemPointer(t, page.ItemPointer{Block: blk, Offset: off})
}

// setPivotNAtts marks t as a pivot with natts key attributes (and a
// trailing heap TID when withTID), as BTreeTupleSetNAtts.
func setPivotNAtts(t []byte, natts int, withTID bool) {
	off := uint16(natts)
	if withTID {
		off |= offsetPivotTID
	}
	binary.LittleEndian.PutUint16(t[4:], off)
	binary.LittleEndian.PutUint16(t[6:], tupInfo(t)|infoAltTID)
}

// layout is the per-index key descriptor.
type layout struct {
	types []datum.Type
	def   *datum.Deformer
	cmps  []datum.Comparator // per key column (Options.Comparators)
	fast  int                // columns [0, fast) can be compared in place
	// cached[i]: where column i lies in a tuple without NULLs, when
	// known in advance (datum.Deformer.CachedAttr; length 0 otherwise).
	cached []cachedAttr
	// compressible[i]: column i's large values are stored compressed.
	compressible []bool
}

type cachedAttr struct{ off, end int }

func newLayout(ts []datum.Type, cmps []datum.Comparator) layout {
	l := layout{types: append([]datum.Type(nil), ts...), def: datum.NewDeformer(ts), cmps: make([]datum.Comparator, len(ts)), compressible: make([]bool, len(ts))}
	for i, t := range ts {
		l.compressible[i] = datum.Toastable(t)
		if i < len(cmps) && cmps[i].Compare != nil {
			l.cmps[i] = cmps[i]
		} else {
			l.cmps[i] = datum.DefaultComparator(t)
		}
	}
	for l.fast < len(ts) && l.cmps[l.fast].CompareStored != nil && l.def.ReadableInPlace(l.fast) {
		l.fast++
	}
	l.cached = make([]cachedAttr, l.fast)
	for i := range l.cached {
		if off, n, ok := l.def.CachedAttr(i); ok {
			l.cached[i] = cachedAttr{off: off, end: off + n}
		}
	}
	return l
}

// formTuple builds a tuple (index_form_tuple) for keys[:n] with TID tid.
func (ix *Index) formTuple(keys []datum.Datum, tid page.ItemPointer) []byte {
	return ix.formTupleInto(nil, keys, tid)
}

// formTupleInto is formTuple building into dst's storage when it is large
// enough.
func (ix *Index) formTupleInto(dst []byte, keys []datum.Datum, tid page.ItemPointer) []byte {
	keys = ix.compressKeys(keys)
	n := len(keys)
	hasNulls := false
	for i := range keys {
		if keys[i].IsNull() {
			hasNulls = true
			break
		}
	}
	info := uint16(0)
	hoff := tupleHeaderSize
	if hasNulls {
		hoff = page.MaxAlignUp(tupleHeaderSize + nullBitmapSize)
		info |= infoHasNulls
	}
	dsz := datum.DataSize(ix.lay.types[:n], keys)
	size := page.MaxAlignUp(hoff + dsz)
	var t []byte
	if cap(dst) >= size {
		t = dst[:size]
		clear(t)
	} else {
		t = make([]byte, size)
	}
	page.PutItemPointer(t, tid)
	if hasNulls {
		datum.FillNullBitmap(t[tupleHeaderSize:tupleHeaderSize+nullBitmapSize], keys)
	}
	if _, vw := datum.FillData(t[hoff:hoff+dsz], ix.lay.types[:n], keys); vw {
		info |= infoVarWidth
	}
	info |= uint16(size)
	binary.LittleEndian.PutUint16(t[6:], info)
	return t
}

// deform decodes the first n key attributes of t into out[:n].
func (ix *Index) deform(t []byte, out []datum.Datum, n int) error {
	if n == 0 {
		return nil
	}
	info := tupInfo(t)
	var bitmap []byte
	if info&infoHasNulls != 0 {
		bitmap = t[tupleHeaderSize : tupleHeaderSize+nullBitmapSize]
	}
	end := keyEnd(t)
	if end > len(t) {
		end = len(t)
	}
	return ix.lay.def.Deform(t[dataOffset(info):end], bitmap, out, n)
}

// Keys decodes the key columns of a leaf tuple returned by a Cursor. out
// is reused when it has room.
func (ix *Index) Keys(t Tuple, out []datum.Datum) ([]datum.Datum, error) {
	n := ix.natts(t)
	if cap(out) < ix.nkeys {
		out = make([]datum.Datum, ix.nkeys)
	}
	out = out[:ix.nkeys]
	for i := n; i < ix.nkeys; i++ {
		out[i] = datum.Datum{}
	}
	if err := ix.deform(t, out, n); err != nil {
		return nil, err
	}
	return out, nil
}

// truncate builds the pivot tuple separating lastleft from firstright
// (_bt_truncate): firstright's key attributes up to the first one that
// differs from lastleft, or all of them plus lastleft's heap TID when every
// key attribute is equal.
func (ix *Index) truncate(lastleft, firstright []byte, scratch []datum.Datum) ([]byte, error) {
	l := scratch[:ix.nkeys]
	r := scratch[ix.nkeys : 2*ix.nkeys]
	if err := ix.deform(lastleft, l, ix.nkeys); err != nil {
		return nil, err
	}
	if err := ix.deform(firstright, r, ix.nkeys); err != nil {
		return nil, err
	}
	keep := ix.nkeys + 1
	for i := 0; i < ix.nkeys; i++ {
		if ix.cmpCol(i, l[i], r[i]) != 0 {
			keep = i + 1
			break
		}
	}
	if keep <= ix.nkeys {
		p := ix.formTuple(r[:keep], page.GetItemPointer(firstright))
		setPivotNAtts(p, keep, false)
		return p, nil
	}
	base := ix.formTuple(r, page.GetItemPointer(firstright))
	size := len(base) + heapTIDTrailSize
	p := make([]byte, size)
	copy(p, base)
	binary.LittleEndian.PutUint16(p[6:], (tupInfo(base)&^infoSizeMask)|uint16(size))
	setPivotNAtts(p, ix.nkeys, true)
	ltid := maxHeapTID(lastleft)
	page.PutItemPointer(p[size-page.ItemPointerSize:], ltid)
	return p, nil
}

// minusInfPivot returns a pivot with no key attributes ("minus infinity"),
// the first data item of every internal page, pointing at blk.
func minusInfPivot(blk page.BlockNumber) []byte {
	t := make([]byte, tupleHeaderSize)
	page.PutItemPointer(t, page.ItemPointer{Block: blk})
	binary.LittleEndian.PutUint16(t[6:], tupleHeaderSize)
	setPivotNAtts(t, 0, false)
	return t
}

// ---- comparison ----

// tail says how a search key compares beyond its given attributes.
type tail uint8

const (
	tailMinus tail = iota // (keys, -inf + epsilon): just above every pivot with this prefix
	tailPlus              // (keys, +inf)
	tailExact             // full keys plus an exact heap TID (insertion)
	// tailBelow: just below the pivot tuple that has exactly these key
	// attributes (and heap TID tid when hasTID): page deletion's search for
	// the leaf whose high key that pivot is (PostgreSQL's pivotsearch).
	tailBelow
)

// scanKey is a search position in the index order (PostgreSQL's
// BTScanInsert): a prefix of key values (NULL sorts last and equals NULL),
// then what the omitted attributes and the heap TID are taken to be.
type scanKey struct {
	keys   []datum.Datum
	tail   tail
	tid    page.ItemPointer
	hasTID bool // tailBelow: the pivot has a heap TID
}

// cmpCol compares two values of key column i with NULLS LAST.
func (ix *Index) cmpCol(i int, a, b datum.Datum) int {
	an, bn := a.IsNull(), b.IsNull()
	if an || bn {
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		}
		return -1
	}
	c := &ix.lay.cmps[i]
	if c.SignedInt {
		return cmp.Compare(a.Int(), b.Int()) // inline: the sort's hot path
	}
	return c.Compare(a, b)
}

// compare orders the search key against tuple t (_bt_compare): negative
// when the key sorts before t, positive after. It never returns 0 except
// for an exact (keys, TID) match.
func (ix *Index) compare(sk *scanKey, t []byte, scratch []datum.Datum) (int, error) {
	natts := ix.natts(t)
	n := len(sk.keys)
	if natts < n {
		n = natts
	}
	if n > 0 {
		c, err := ix.cmpKeys(sk.keys, t, n, scratch)
		if err != nil || c != 0 {
			return c, err
		}
	}
	if len(sk.keys) > natts {
		return 1, nil // t's missing attributes are minus infinity
	}
	switch sk.tail {
	case tailPlus:
		return 1, nil
	case tailBelow:
		if natts > len(sk.keys) || natts < ix.nkeys {
			// t has a real value where the pivot has minus infinity, or t
			// is that same truncated pivot: the key is just below it.
			return -1, nil
		}
		ht, ok := heapTID(t)
		if !sk.hasTID {
			return -1, nil
		}
		if !ok {
			return 1, nil
		}
		if c := sk.tid.Compare(ht); c != 0 {
			return c, nil
		}
		return -1, nil
	case tailMinus:
		if natts > len(sk.keys) {
			return -1, nil // t has a real value where the key has -inf+eps
		}
		if natts < ix.nkeys {
			return 1, nil // truncated pivot: the rest is -inf
		}
		if _, ok := heapTID(t); !ok {
			return 1, nil
		}
		return -1, nil
	}
	// exact: the key has every attribute
	ht, ok := heapTID(t)
	if !ok {
		return 1, nil
	}
	c := sk.tid.Compare(ht)
	if c <= 0 || !isPosting(t) {
		return c, nil
	}
	// Within a posting list's TID range: the tuple "equals" the key, and
	// the caller looks inside the list (_bt_binsrch_posting).
	if sk.tid.Compare(maxHeapTID(t)) <= 0 {
		return 0, nil
	}
	return 1, nil
}

// keysEqual reports whether leaf tuple t has exactly the key values keys
// (none of which is NULL).
func (ix *Index) keysEqual(keys []datum.Datum, t []byte, scratch []datum.Datum) (bool, error) {
	c, err := ix.cmpKeys(keys, t, len(keys), scratch)
	return c == 0, err
}

// ---- error text ----

func (ix *Index) formatKey(keys []datum.Datum) string {
	if ix.opt.FormatKey != nil {
		return ix.opt.FormatKey(keys)
	}
	parts := make([]string, len(keys))
	for i, d := range keys {
		parts[i] = formatDatum(ix.lay.types[i], d)
	}
	return strings.Join(parts, ", ")
}

func formatDatum(t datum.Type, d datum.Datum) string {
	if d.IsNull() {
		return "null"
	}
	switch t.OID {
	case datum.Float4OID, datum.Float8OID:
		return strconv.FormatFloat(d.Float(), 'g', -1, 64)
	case datum.BoolOID:
		if d.Bool() {
			return "t"
		}
		return "f"
	case datum.TextOID, datum.VarcharOID, datum.BpcharOID, datum.NameOID:
		return d.Str()
	case datum.ByteaOID:
		return fmt.Sprintf("\\x%x", d.Str())
	}
	return strconv.FormatInt(d.Int(), 10)
}

func (ix *Index) columnList() string {
	if len(ix.opt.ColumnNames) == ix.nkeys {
		return strings.Join(ix.opt.ColumnNames, ", ")
	}
	parts := make([]string, ix.nkeys)
	for i := range parts {
		parts[i] = fmt.Sprintf("col%d", i+1)
	}
	return strings.Join(parts, ", ")
}

func (ix *Index) checkTupleSize(t []byte) error {
	if len(t) > infoSizeMask {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "index row requires %d bytes, maximum size is %d", len(t), infoSizeMask)
	}
	if len(t) > MaxItemSize {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded,
			"index row size %d exceeds btree version %d maximum %d for index \"%s\"", len(t), Version, MaxItemSize, ix.opt.Name).
			WithDetail("Index row references tuple (%d,%d) in relation \"%s\".", page.GetItemPointer(t).Block, page.GetItemPointer(t).Offset, ix.opt.TableName).
			WithHint("Values larger than 1/3 of a buffer page cannot be indexed.\nConsider a function index of an MD5 hash of the value, or use full text indexing.")
	}
	return nil
}
