package toast

import (
	"context"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/stats"
)

// Column is what the toaster knows of one attribute.
type Column struct {
	Varlena bool // a variable-length attribute (attlen -1) that is not dropped
	// Storage is attstorage: 'p' plain (never compressed or moved out),
	// 'm' main (compressed first, moved out only as a last resort), 'x'
	// extended (compressed, then moved out), 'e' external (moved out,
	// never compressed).
	Storage byte
	// Compression is attcompression ('p' pglz, 'l' lz4) or 0 for the
	// session's default_toast_compression.
	Compression byte
}

// Toaster prepares a table's rows for storage (heap_toast_insert_or_update)
// and releases the TOAST values of row versions that are deleted or
// replaced (heap_toast_delete).
type Toaster struct {
	Rel    *Relation // the TOAST table; nil when the table has none
	Cols   []Column
	Layout *datum.Deformer // the table's attribute layout
	// Format is the table's AM's tuple format (without a detoaster), to
	// find the TOAST pointers of the versions it returns.
	Format tableam.Format
	// Target is toast_tuple_target (TOAST_TUPLE_TARGET by default): the
	// tuple length compression and moving out aim to get below.
	Target int
}

// TupleHeaderSize is the heap tuple header's size (SizeofHeapTupleHeader):
// whether a row needs TOASTing is judged by its heap size for every table
// AM, as PostgreSQL's heaptoast does, so a row is stored the same way
// whatever its table's AM (TestTupleHeaderSize holds it to the heap's).
const TupleHeaderSize = 23

// per-attribute state (ToastAttrInfo's colflags)
type attrState struct {
	ignore         bool // done with: NULL, fixed-length, plain, reused or moved out
	incompressible bool
	size           int // current varlena size (tai_size)
}

// Env is what one toasting needs of the statement.
type Env struct {
	Ctx     context.Context
	U       *stats.Usage
	Tx      *tableam.Txn
	Default varatt.Method // default_toast_compression
}

// Prepare returns the values to form the tuple from: vals itself when the
// tuple is small enough, else a copy in which some values are inline
// compressed or replaced by TOAST pointers (datum.StoredVarlena). old are
// the values of the row version an UPDATE replaces (nil for an INSERT): a
// value the new row took over unchanged from old keeps its TOAST pointer
// instead of being stored again. saved lists the values stored by this
// call, which the caller discards if the row is not written after all.
func (t *Toaster) Prepare(e Env, vals, old []datum.Datum) (out []datum.Datum, saved []uint32, err error) {
	hasNulls, reuse := false, false
	for i := range vals {
		if vals[i].IsNull() {
			hasNulls = true
		} else if old != nil && i < len(old) && t.reusable(vals[i], old[i]) {
			reuse = true
		}
	}
	if err := checkSizes(t, vals); err != nil {
		return nil, nil, err
	}
	hoff := TupleHeaderSize
	if hasNulls {
		hoff += datum.BitmapLen(len(vals))
	}
	hoff = datum.MaxAlign(hoff)
	if !reuse && hoff+t.Layout.DataSize(vals) <= varatt.TupleThreshold {
		return vals, nil, nil
	}
	out = append([]datum.Datum(nil), vals...)
	st := make([]attrState, len(out))
	for i := range out {
		s := &st[i]
		c := t.column(i)
		switch {
		case out[i].IsNull() || !c.Varlena || out[i].IsStored():
			s.ignore = true
			continue
		case old != nil && i < len(old) && t.reusable(out[i], old[i]):
			p, _ := old[i].ToastPointer(t.Rel.OID)
			out[i] = datum.StoredVarlena(p.Encode())
			s.ignore = true
			continue
		case c.Storage == 'p':
			s.ignore = true
		}
		out[i] = t.Layout.StoredPayload(i, out[i])
		s.size = datum.VarlenaSize(out[i])
	}
	ts := toasting{t: t, e: e, out: out, st: st}
	if err := ts.run(t.target() - hoff); err != nil {
		return nil, ts.saved, err
	}
	return out, ts.saved, nil
}

// reusable: the new value is the old row's external value itself (same
// bytes, decoded from it), so its TOAST pointer can be kept.
func (t *Toaster) reusable(nv, ov datum.Datum) bool {
	if t.Rel == nil || ov.IsNull() || nv.IsNull() {
		return false
	}
	if _, ok := ov.ToastPointer(t.Rel.OID); !ok {
		return false
	}
	return datum.SameBytes(nv, ov)
}

func (t *Toaster) column(i int) Column {
	if i < len(t.Cols) {
		return t.Cols[i]
	}
	return Column{}
}

func (t *Toaster) target() int {
	if t.Target > 0 {
		return t.Target
	}
	return varatt.TupleTarget
}

// checkSizes refuses values over PostgreSQL's 1 GB limit (however they
// were made, none may be stored).
func checkSizes(t *Toaster, vals []datum.Datum) error {
	for i := range vals {
		if !vals[i].IsNull() && t.column(i).Varlena {
			if err := datum.CheckAllocSize(vals[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// toasting is one run of the compress-and-move-out rounds.
type toasting struct {
	t     *Toaster
	e     Env
	out   []datum.Datum
	st    []attrState
	saved []uint32
}

func (ts *toasting) dataSize() int { return ts.t.Layout.DataSize(ts.out) }

// run is PostgreSQL's four rounds: (1) compress EXTENDED attributes,
// largest first, moving any that is still over the limit by itself out at
// once; (2) move EXTENDED and EXTERNAL attributes out, largest first; (3)
// compress MAIN attributes; (4) move MAIN attributes out, against the
// larger TOAST_TUPLE_TARGET_MAIN. Each round runs until the tuple fits or
// no attribute qualifies; rounds that move values out need a TOAST table.
func (ts *toasting) run(maxData int) error {
	hasToast := ts.t.Rel != nil
	for ts.dataSize() > maxData {
		i := ts.biggest(true, false)
		if i < 0 {
			break
		}
		if ts.t.column(i).Storage == 'x' {
			ts.compress(i)
		} else {
			ts.st[i].incompressible = true // EXTERNAL: never compressed
		}
		if ts.st[i].size > maxData && hasToast {
			if err := ts.externalize(i); err != nil {
				return err
			}
		}
	}
	for hasToast && ts.dataSize() > maxData {
		i := ts.biggest(false, false)
		if i < 0 {
			break
		}
		if err := ts.externalize(i); err != nil {
			return err
		}
	}
	for ts.dataSize() > maxData {
		i := ts.biggest(true, true)
		if i < 0 {
			break
		}
		ts.compress(i)
	}
	maxMain := varatt.TupleTargetMain - (ts.t.target() - maxData)
	for hasToast && ts.dataSize() > maxMain {
		i := ts.biggest(false, true)
		if i < 0 {
			break
		}
		if err := ts.externalize(i); err != nil {
			return err
		}
	}
	return nil
}

// biggest is toast_tuple_find_biggest_attribute: the largest attribute
// still inline that may be compressed (forCompression) or moved out,
// among MAIN attributes (main) or EXTENDED and EXTERNAL ones; only
// attributes larger than an aligned TOAST pointer qualify.
func (ts *toasting) biggest(forCompression, main bool) int {
	best, bestSize := -1, datum.MaxAlign(varatt.PointerSize)
	for i := range ts.st {
		s := &ts.st[i]
		if s.ignore || (forCompression && (s.incompressible || ts.out[i].IsStored())) {
			continue
		}
		switch st := ts.t.column(i).Storage; {
		case main && st != 'm', !main && st != 'x' && st != 'e':
			continue
		}
		if s.size > bestSize {
			best, bestSize = i, s.size
		}
	}
	return best
}

// compress is toast_tuple_try_compression.
func (ts *toasting) compress(i int) {
	m := ts.e.Default
	if cm, ok := varatt.MethodByAttCode(ts.t.column(i).Compression); ok {
		m = cm
	}
	cv := varatt.Compress(m, datum.Payload(ts.out[i]))
	if cv == nil {
		ts.st[i].incompressible = true
		return
	}
	ts.out[i] = datum.StoredVarlena(cv)
	ts.st[i].size = len(cv)
}

// externalize is toast_tuple_externalize: store the value in the TOAST
// table and keep its pointer.
func (ts *toasting) externalize(i int) error {
	p, err := ts.t.Rel.Save(ts.e.Ctx, ts.e.U, ts.e.Tx, ts.out[i])
	if err != nil {
		return err
	}
	ts.saved = append(ts.saved, p.ValueID)
	ts.out[i] = datum.StoredVarlena(p.Encode())
	ts.st[i].ignore = true
	ts.st[i].size = varatt.PointerSize
	return nil
}

// externals lists the TOAST values a stored tuple points at, by attribute.
func (t *Toaster) externals(tup tableam.Tuple) (map[int]uint32, error) {
	ids := map[int]uint32{}
	err := t.Format.ExternalPointers(tup, func(attno int, p varatt.External) error {
		ids[attno] = p.ValueID
		return nil
	})
	return ids, err
}

// AfterUpdate deletes the TOAST values the replaced version old (a copy
// the heap returned, tableam.Outcome.Old; nil when it had none) pointed at
// and the new version stored does not (toast_tuple_cleanup).
func (t *Toaster) AfterUpdate(e Env, old tableam.Tuple, stored []datum.Datum) error {
	if old == nil || t.Rel == nil {
		return nil
	}
	ids, err := t.externals(old)
	if err != nil {
		return err
	}
	for attno, id := range ids {
		if attno < len(stored) && stored[attno].IsExternalStored() {
			if p, err := varatt.DecodeExternal(stored[attno].StoredBytes()); err == nil && p.ValueID == id {
				continue // kept
			}
		}
		if err := t.Rel.Delete(e.Ctx, e.U, e.Tx, id); err != nil {
			return err
		}
	}
	return nil
}

// AfterDelete deletes every TOAST value a deleted version pointed at
// (heap_toast_delete).
func (t *Toaster) AfterDelete(e Env, old tableam.Tuple) error {
	return t.AfterUpdate(e, old, nil)
}

// Discard deletes values Prepare stored for a row that was not written.
func (t *Toaster) Discard(e Env, saved []uint32) error {
	for _, id := range saved {
		if err := t.Rel.Delete(e.Ctx, e.U, e.Tx, id); err != nil {
			return err
		}
	}
	return nil
}
