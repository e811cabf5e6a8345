// Package toast stores values too large for a heap tuple out of line, in
// a table's TOAST relation (pg_toast.pg_toast_<oid>), as PostgreSQL does:
// the value's bytes (compressed or not) are cut into chunks of 1996 bytes,
// each a row (chunk_id oid, chunk_seq int4, chunk_data bytea) of the TOAST
// heap, indexed by a unique btree on (chunk_id, chunk_seq); the main tuple
// keeps an 18-byte TOAST pointer.
//
// The package has two layers, as PostgreSQL's toast_internals.c and
// heaptoast.c: Relation (this file) saves, fetches and deletes one value;
// Toaster (heaptoast.go) decides, for a row about to be stored, which
// attributes to compress and which to move out. Reader (reader.go) is the
// tuple layer's Detoaster. The chunks are ordinary heap and btree changes,
// WAL-logged and recovered like any other; see README.md.
package toast

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// ColumnTypes are a TOAST table's columns: chunk_id, chunk_seq, chunk_data.
var ColumnTypes = []datum.Type{datum.Oid, datum.Int4, datum.Bytea}

// ColumnNames are their names.
var ColumnNames = []string{"chunk_id", "chunk_seq", "chunk_data"}

// ColumnStorage is their attstorage: all plain, so a short last chunk
// still has a 4-byte header, as in PostgreSQL.
var ColumnStorage = []byte{'p', 'p', 'p'}

// ChunkLayout is the chunk rows' layout, from which the TOAST table's
// access method makes Relation.Format.
var ChunkLayout = datum.NewDeformerStorage(ColumnTypes, ColumnStorage)

// Relation is one TOAST table, its index, and where chunk ids come from.
type Relation struct {
	OID  uint32 // pg_class OID of the TOAST table (va_toastrelid)
	Name string // pg_toast_<table oid>, for error messages
	// Table is the TOAST table's storage (its AM must implement
	// tableam.ToastChunkReader: TOAST tables are heap) and Format its
	// AM's format of ChunkLayout.
	Table  tableam.Relation
	Format tableam.Format
	Index  *btree.Index
	// NewOid hands out OIDs from the cluster's OID counter (chunk ids).
	NewOid func() (uint32, error)
}

// IndexOptions describe a TOAST table's index to the btree.
func IndexOptions(name string) btree.Options {
	return btree.Options{Name: name, KeyTypes: ColumnTypes[:2], ColumnNames: ColumnNames[:2], Unique: true}
}

// valueIDExists reports whether any chunk (live or dead) has chunk id v,
// as GetNewOidWithIndex checks before handing out an OID.
func (r *Relation) valueIDExists(u *stats.Usage, v uint32) (bool, error) {
	cur := r.Index.ScanEqual(u, []datum.Datum{datum.Int(int64(v))})
	defer cur.Close()
	_, _, ok, err := cur.Next()
	return ok, err
}

// newValueID picks an unused chunk id.
func (r *Relation) newValueID(u *stats.Usage) (uint32, error) {
	for {
		v, err := r.NewOid()
		if err != nil {
			return 0, err
		}
		used, err := r.valueIDExists(u, v)
		if err != nil || !used {
			return v, err
		}
	}
}

// Save stores value — a plain varlena Datum or an inline compressed one
// (datum.StoredVarlena) — as chunks and returns its TOAST pointer
// (toast_save_datum). The chunks are inserted by tx's current command.
func (r *Relation) Save(ctx context.Context, u *stats.Usage, tx *tableam.Txn, value datum.Datum) (varatt.External, error) {
	var data []byte
	var p varatt.External
	if value.IsStored() {
		v := value.StoredBytes()
		if !varatt.IsCompressed(v) {
			return p, fmt.Errorf("toast: saving a value that is already external")
		}
		data = v[varatt.HdrSz:] // va_tcinfo and the compressed bytes
		p.RawSize = int32(varatt.CompressedRawLen(v) + varatt.HdrSz)
		p.ExtInfo = uint32(len(data)) | uint32(varatt.CompressedMethod(v))<<30
	} else {
		data = datum.Payload(value)
		p.RawSize = int32(len(data) + varatt.HdrSz)
		p.ExtInfo = uint32(len(data))
	}
	p.ToastRelID = r.OID
	id, err := r.newValueID(u)
	if err != nil {
		return p, err
	}
	p.ValueID = id
	check := r.uniqueCheck(u, tx)
	vals := make([]datum.Datum, 3)
	vals[0] = datum.Int(int64(id))
	for seq := 0; len(data) > 0; seq++ {
		if seq%64 == 0 && ctx != nil {
			if err := interrupted(ctx); err != nil {
				return p, err
			}
		}
		n := min(len(data), varatt.MaxChunkSize)
		vals[1] = datum.Int(int64(seq))
		vals[2] = datum.Str(unsafe.String(&data[0], n)) // Form copies it
		tid, err := r.Table.Insert(u, tx, r.Format.Form(vals), nil)
		if err != nil {
			return p, err
		}
		if err := r.Index.Insert(u, uint32(tx.Xid), vals[:2], tid, check); err != nil {
			return p, err
		}
		data = data[n:]
	}
	return p, nil
}

// uniqueCheck is the toast index's unique check: a live chunk with the
// same (chunk_id, chunk_seq) is a conflict. Chunk ids are checked unused
// before a value is saved, so this never fires on sound data.
func (r *Relation) uniqueCheck(u *stats.Usage, tx *tableam.Txn) btree.UniqueCheck {
	return func(t page.ItemPointer) (btree.UniqueVerdict, error) {
		st, xid, _, err := r.Table.CheckUnique(u, tx, t)
		if err != nil {
			return btree.UniqueVerdict{}, err
		}
		switch st {
		case tableam.RowLive:
			return btree.UniqueVerdict{Kind: btree.VerdictConflict}, nil
		case tableam.RowInFlight:
			return btree.UniqueVerdict{Kind: btree.VerdictWait, Xid: uint32(xid)}, nil
		}
		return btree.UniqueVerdict{Kind: btree.VerdictDead}, nil
	}
}

// chunk decodes a chunk row: chunk_id, chunk_seq, chunk_data, none NULL.
func (r *Relation) chunk(t tableam.Tuple) (id uint32, seq int32, data string, err error) {
	var vals [3]datum.Datum
	if err := r.Format.Deform(t, vals[:]); err != nil {
		return 0, 0, "", fmt.Errorf("malformed TOAST chunk tuple: %w", err)
	}
	if vals[0].IsNull() || vals[1].IsNull() || vals[2].IsNull() {
		return 0, 0, "", errors.New("malformed TOAST chunk tuple")
	}
	return uint32(vals[0].Int()), int32(vals[1].Int()), vals[2].Str(), nil
}

// chunkReader is the TOAST table's reader of chunks by TID.
func (r *Relation) chunkReader() tableam.ToastChunkReader {
	cr, ok := r.Table.(tableam.ToastChunkReader)
	if !ok {
		panic(fmt.Sprintf("toast: %s is stored by %s, which cannot hold TOAST chunks", r.Name, r.Table.AM().Name()))
	}
	return cr
}

// Fetch reassembles the stored bytes of value p (toast_fetch_datum): for
// a compressed value the inline compressed varlena (4-byte header, then
// the chunks' bytes), for a plain one the payload.
func (r *Relation) Fetch(ctx context.Context, u *stats.Usage, p varatt.External) ([]byte, error) {
	if p.ToastRelID != r.OID {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "TOAST pointer to relation %d read through %s", p.ToastRelID, r.Name)
	}
	size := p.ExtSize()
	hdr := 0
	if p.Compressed() {
		hdr = varatt.HdrSz
	}
	out := make([]byte, hdr+size)
	if hdr > 0 {
		binary.LittleEndian.PutUint32(out, uint32(hdr+size)<<2|2)
	}
	total := int32((size-1)/varatt.MaxChunkSize + 1)
	if size == 0 {
		total = 0
	}
	cur := r.Index.ScanEqual(u, []datum.Datum{datum.Int(int64(p.ValueID))})
	defer cur.Close()
	expected := int32(0)
	for {
		tid, _, ok, err := cur.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if expected%64 == 0 && ctx != nil {
			if err := interrupted(ctx); err != nil {
				return nil, err
			}
		}
		_, err = r.chunkReader().ReadToastChunk(u, tid, func(t tableam.Tuple) error {
			_, seq, data, err := r.chunk(t)
			if err != nil {
				return pgerr.Errorf(pgerr.DataCorrupted, "%v for toast value %d in %s", err, p.ValueID, r.Name)
			}
			if seq != expected {
				return pgerr.Errorf(pgerr.DataCorrupted, "unexpected chunk number %d (expected %d) for toast value %d in %s", seq, expected, p.ValueID, r.Name)
			}
			if seq >= total {
				return pgerr.Errorf(pgerr.DataCorrupted, "unexpected chunk number %d (out of range %d..%d) for toast value %d in %s", seq, 0, total-1, p.ValueID, r.Name)
			}
			want := varatt.MaxChunkSize
			if seq == total-1 {
				want = size - int(total-1)*varatt.MaxChunkSize
			}
			if len(data) != want {
				return pgerr.Errorf(pgerr.DataCorrupted, "unexpected chunk size %d (expected %d) in chunk %d of %d for toast value %d in %s", len(data), want, seq, total, p.ValueID, r.Name)
			}
			copy(out[hdr+int(seq)*varatt.MaxChunkSize:], data)
			expected++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if expected != total {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "missing chunk number %d for toast value %d in %s", expected, p.ValueID, r.Name)
	}
	return out, nil
}

// Delete marks every chunk of value id deleted by tx (toast_delete_datum):
// they go when VACUUM finds tx committed before its horizon, and stay if
// tx aborts.
func (r *Relation) Delete(ctx context.Context, u *stats.Usage, tx *tableam.Txn, id uint32) error {
	cur := r.Index.ScanEqual(u, []datum.Datum{datum.Int(int64(id))})
	defer cur.Close()
	for n := 0; ; n++ {
		tid, _, ok, err := cur.Next()
		if err != nil || !ok {
			return err
		}
		if n%64 == 0 && ctx != nil {
			if err := interrupted(ctx); err != nil {
				return err
			}
		}
		oc, err := r.Table.DeleteOwn(ctx, u, tx, tid)
		if err != nil {
			return err
		}
		switch oc.Result {
		case tableam.Ok, tableam.SelfModified, tableam.Invisible:
			// Invisible: an aborted duplicate; SelfModified: deleted
			// already by this transaction.
		default:
			return pgerr.Errorf(pgerr.InternalError, "tuple concurrently deleted")
		}
	}
}

// interrupted is CHECK_FOR_INTERRUPTS between chunks (a large value is
// read and written chunk by chunk): the statement's error if its context
// was cancelled.
func interrupted(ctx context.Context) error { return interrupt.Err(ctx) }
