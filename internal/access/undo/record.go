package undo

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// URP is an undo record pointer: the record's byte position in the undo
// log (block × 8192 + offset). Positions are never reused; 0 is "none".
type URP uint64

// MaxURP is the first position 40 bits cannot name.
const MaxURP URP = 1 << 40

func getURP(b []byte) URP {
	return URP(b[0]) | URP(b[1])<<8 | URP(b[2])<<16 | URP(b[3])<<24 | URP(b[4])<<32
}

func putURP(b []byte, u URP) {
	b[0], b[1], b[2], b[3], b[4] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32)
}

func (u URP) block() page.BlockNumber { return page.BlockNumber(u / page.Size) }
func (u URP) offset() int             { return int(u % page.Size) }

func (u URP) String() string { return fmt.Sprintf("%d/%d", u.block(), u.offset()) }

// Record kinds.
const (
	KindInsert  uint8 = 1
	KindDelete  uint8 = 2
	KindInplace uint8 = 3
	KindMove    uint8 = 4
	KindLock    uint8 = 5
)

// recordHeaderSize: kind, flags, len, xid, cid, rel, block, offset, prev,
// xactPrev.
const recordHeaderSize = 1 + 1 + 2 + 4 + 4 + 4 + 4 + 2 + 5 + 5

// Record is one undo record, decoded (README "Undo log").
type Record struct {
	Kind     uint8
	Mode     uint8 // LOCK: the strength (tableam.LockMode)
	Xid      xact.XID
	Cid      uint32
	Rel      smgr.RelFileNumber
	TID      page.ItemPointer
	Prev     URP // the tuple's previous change
	XactPrev URP // the transaction's previous record

	// OldHeader is the tuple's header before the change (all kinds but
	// INSERT).
	OldHeader [HeaderSize]byte
	// INPLACE: the old line pointer and the diff of the bytes after the
	// header: old = new[:Prefix] + Middle + new[len(new)-Suffix:].
	OldOff, OldLen int
	Prefix, Suffix int
	Middle         []byte
	// MOVE: where the new version went.
	NewTID page.ItemPointer
}

func (r *Record) encode() []byte {
	n := recordHeaderSize
	switch r.Kind {
	case KindDelete, KindLock:
		n += HeaderSize
	case KindInplace:
		n += HeaderSize + 8 + len(r.Middle)
	case KindMove:
		n += HeaderSize + 6
	}
	b := make([]byte, n)
	b[0] = r.Kind
	b[1] = r.Mode
	binary.LittleEndian.PutUint16(b[2:], uint16(n))
	binary.LittleEndian.PutUint32(b[4:], r.Xid)
	binary.LittleEndian.PutUint32(b[8:], r.Cid)
	binary.LittleEndian.PutUint32(b[12:], uint32(r.Rel))
	binary.LittleEndian.PutUint32(b[16:], r.TID.Block)
	binary.LittleEndian.PutUint16(b[20:], r.TID.Offset)
	putURP(b[22:], r.Prev)
	putURP(b[27:], r.XactPrev)
	p := b[recordHeaderSize:]
	if r.Kind == KindInsert {
		return b
	}
	copy(p, r.OldHeader[:])
	p = p[HeaderSize:]
	switch r.Kind {
	case KindInplace:
		binary.LittleEndian.PutUint16(p[0:], uint16(r.OldOff))
		binary.LittleEndian.PutUint16(p[2:], uint16(r.OldLen))
		binary.LittleEndian.PutUint16(p[4:], uint16(r.Prefix))
		binary.LittleEndian.PutUint16(p[6:], uint16(r.Suffix))
		copy(p[8:], r.Middle)
	case KindMove:
		page.PutItemPointer(p, r.NewTID)
	}
	return b
}

// recordLen reads a stored record's length (0: no record here).
func recordLen(b []byte) int {
	if len(b) < recordHeaderSize || b[0] == 0 {
		return 0
	}
	return int(binary.LittleEndian.Uint16(b[2:]))
}

// decodeRecord decodes a stored record; the result shares nothing with b.
func decodeRecord(b []byte) (*Record, error) {
	n := recordLen(b)
	if n < recordHeaderSize || n > len(b) {
		return nil, fmt.Errorf("undo record length %d invalid", n)
	}
	b = b[:n]
	r := &Record{
		Kind:     b[0],
		Mode:     b[1],
		Xid:      binary.LittleEndian.Uint32(b[4:]),
		Cid:      binary.LittleEndian.Uint32(b[8:]),
		Rel:      smgr.RelFileNumber(binary.LittleEndian.Uint32(b[12:])),
		TID:      page.ItemPointer{Block: binary.LittleEndian.Uint32(b[16:]), Offset: binary.LittleEndian.Uint16(b[20:])},
		Prev:     getURP(b[22:]),
		XactPrev: getURP(b[27:]),
	}
	p := b[recordHeaderSize:]
	need := map[uint8]int{KindInsert: 0, KindDelete: HeaderSize, KindLock: HeaderSize, KindInplace: HeaderSize + 8, KindMove: HeaderSize + 6}
	min, ok := need[r.Kind]
	if !ok || len(p) < min {
		return nil, fmt.Errorf("undo record kind %d with %d payload bytes invalid", r.Kind, len(p))
	}
	if r.Kind == KindInsert {
		return r, nil
	}
	copy(r.OldHeader[:], p)
	p = p[HeaderSize:]
	switch r.Kind {
	case KindInplace:
		r.OldOff = int(binary.LittleEndian.Uint16(p[0:]))
		r.OldLen = int(binary.LittleEndian.Uint16(p[2:]))
		r.Prefix = int(binary.LittleEndian.Uint16(p[4:]))
		r.Suffix = int(binary.LittleEndian.Uint16(p[6:]))
		r.Middle = append([]byte(nil), p[8:]...)
	case KindMove:
		r.NewTID = page.GetItemPointer(p)
	}
	return r, nil
}

// diff fills r's INPLACE diff so that old can be rebuilt from new: the
// bytes after the header that differ, between the common prefix and
// suffix (for a fixed layout: the changed columns and their padding).
func (r *Record) diff(old, new Tuple) {
	a, b := old[HeaderSize:], new[HeaderSize:]
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	r.Prefix, r.Suffix = p, s
	r.Middle = append([]byte(nil), a[p:len(a)-s]...)
}

// rebuild returns the version before the change r describes, given the
// version after it (for INPLACE, DELETE, LOCK; nil for INSERT: no version).
func (r *Record) rebuild(cur Tuple) Tuple {
	switch r.Kind {
	case KindInsert:
		return nil
	case KindInplace:
		body := cur[HeaderSize:]
		old := make(Tuple, 0, HeaderSize+r.Prefix+len(r.Middle)+r.Suffix)
		old = append(old, r.OldHeader[:]...)
		old = append(old, body[:r.Prefix]...)
		old = append(old, r.Middle...)
		old = append(old, body[len(body)-r.Suffix:]...)
		return old
	default:
		old := append(Tuple(nil), cur...)
		copy(old, r.OldHeader[:])
		return old
	}
}
