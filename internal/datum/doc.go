// Package datum is the datum / tuple layer: values, type ids and
// PostgreSQL's on-disk attribute layout, below every access method. The
// heap, the B-tree, TOAST and sequences import it; the SQL layer
// (internal/sql/types) builds types' names and behaviour on top of it.
//
// # Values
//
// A [Datum] is a small value struct (no allocation for numbers, booleans
// and timestamps). The zero Datum is SQL NULL. Every integer type (int2,
// int4, int8, oid, "char", date, time, tid, xid, cid, regtype) is held as
// an int64, float4 and float8 as a float64 (a float4 value is always
// exactly representable as float32), bool as 0/1, timestamp/timestamptz as
// int64 microseconds since 2000-01-01 00:00:00, and text-like types (text,
// varchar, bpchar, name, bytea, unknown, json, jsonb, uuid, interval) as a
// Go string holding the raw bytes; numeric as PostgreSQL's numeric payload
// (KindNumeric), arrays as their encoded elements ([Array], Datum.Elems).
// Datums do not carry their SQL type: the caller always knows it from the
// plan or the tuple descriptor. Accessors do not check the kind.
//
// # Types
//
// A [Type] is a pg_type OID plus a typmod. This package knows every
// builtin type's physical description — Type.Layout is pg_type's typlen,
// typalign, typbyval and typstorage — and how its attributes are encoded.
// Names (Type.String is format_type) are the SQL layer's: it installs them
// with [UseTypeSystem], together with the text form arrays are stored in.
//
// # On-disk layout
//
// [DataSize], [FillData], [FillNullBitmap], [DeformData] and [Deformer]
// produce and read exactly PostgreSQL's heap/index tuple data area
// (little-endian, MAXALIGN 8), including 1-byte short varlena headers,
// inline compressed values and TOAST pointers (toast.go; external values
// are fetched through a [Detoaster]).
//
// # Orderings
//
// A [Comparator] is a B-tree operator class's ordering support function
// (with an in-place form, [Deformer.StoredAttr] + CompareStored); the
// builtin scalar types' are defined here ([DefaultComparator]), every
// other type's comes from the SQL layer's TypeSystem.Compare. See
// README.md for the invariants.
package datum
