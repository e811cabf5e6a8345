package page

import "fmt"

// ItemPointer is a tuple identifier (TID): block and line-pointer offset.
// On disk it is 6 bytes: block high half, block low half, offset, all
// little-endian uint16 — as PostgreSQL's ItemPointerData.
type ItemPointer struct {
	Block  BlockNumber
	Offset OffsetNumber
}

// ItemPointerSize is sizeof(ItemPointerData).
const ItemPointerSize = 6

// Valid reports whether the TID names a line pointer.
func (t ItemPointer) Valid() bool { return t.Offset != InvalidOffset }

// String prints the TID as PostgreSQL prints a ctid: (block,offset).
func (t ItemPointer) String() string { return fmt.Sprintf("(%d,%d)", t.Block, t.Offset) }

// Less orders TIDs by block, then offset.
func (t ItemPointer) Less(o ItemPointer) bool {
	if t.Block != o.Block {
		return t.Block < o.Block
	}
	return t.Offset < o.Offset
}

// Compare returns -1, 0 or 1.
func (t ItemPointer) Compare(o ItemPointer) int {
	switch {
	case t.Block < o.Block:
		return -1
	case t.Block > o.Block:
		return 1
	case t.Offset < o.Offset:
		return -1
	case t.Offset > o.Offset:
		return 1
	}
	return 0
}

// PutItemPointer writes t at b[0:6].
func PutItemPointer(b []byte, t ItemPointer) {
	b[0] = byte(t.Block >> 16)
	b[1] = byte(t.Block >> 24)
	b[2] = byte(t.Block)
	b[3] = byte(t.Block >> 8)
	b[4] = byte(t.Offset)
	b[5] = byte(t.Offset >> 8)
}

// GetItemPointer reads a TID from b[0:6].
func GetItemPointer(b []byte) ItemPointer {
	hi := uint32(b[0]) | uint32(b[1])<<8
	lo := uint32(b[2]) | uint32(b[3])<<8
	return ItemPointer{Block: hi<<16 | lo, Offset: OffsetNumber(b[4]) | OffsetNumber(b[5])<<8}
}
