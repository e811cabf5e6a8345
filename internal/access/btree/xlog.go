package btree

import "github.com/tidal-db/tidal/internal/wal"

// WAL record kinds of the Btree resource manager, numbered as PostgreSQL's
// nbtxlog.h so pg_waldump-style output reads the same. Inserts, splits,
// deduplication and deletions are logical records redone by redoPages
// (xlog_redo.go); the others carry page deltas, redone generically.
const (
	infoInsertLeaf  uint8 = 0x00 // XLOG_BTREE_INSERT_LEAF: leaf
	infoInsertUpper uint8 = 0x10 // XLOG_BTREE_INSERT_UPPER: parent, child (flag cleared)
	infoInsertMeta  uint8 = 0x20 // XLOG_BTREE_INSERT_META (unused: no fastroot changes)
	infoInsertPost  uint8 = 0x50 // XLOG_BTREE_INSERT_POST: leaf (posting list split plus insert)
	infoDedup       uint8 = 0x60 // XLOG_BTREE_DEDUP: leaf rewritten with posting lists
	infoDelete      uint8 = 0x70 // XLOG_BTREE_DELETE: leaf without the entries of dead versions
	infoSplitL      uint8 = 0x30 // XLOG_BTREE_SPLIT_L: left, right, right sibling, child
	infoSplitR      uint8 = 0x40 // XLOG_BTREE_SPLIT_R
	infoVacuum      uint8 = 0xC0 // XLOG_BTREE_VACUUM: leaf
	infoUnlinkPage  uint8 = 0x80 // XLOG_BTREE_UNLINK_PAGE: target (re-initialized), right sibling, left sibling
	infoMarkHalf    uint8 = 0xB0 // XLOG_BTREE_MARK_PAGE_HALFDEAD: leaf, parent
	infoMetaCleanup uint8 = 0xE0 // XLOG_BTREE_META_CLEANUP: metapage
	infoNewRoot     uint8 = 0xA0 // XLOG_BTREE_NEWROOT: root, left child, metapage
	// infoMarkDeleted sets or clears the delete mark of one leaf entry
	// (mark.go; PostgreSQL has none: 0xD0 is its XLOG_BTREE_REUSE_PAGE,
	// which tidal never writes). Main data: offset u16, 1 = mark, 0 = clear.
	infoMarkDeleted uint8 = 0xD0
	// infoNewPage logs one page written by a bulk build as a full-page
	// image (PostgreSQL uses XLOG_FPI of the XLOG resource manager).
	infoNewPage uint8 = 0xF0
)

// RecordName names a Btree record kind as pg_waldump does.
func RecordName(info uint8) string {
	switch info & 0xF0 {
	case infoInsertLeaf:
		return "INSERT_LEAF"
	case infoInsertUpper:
		return "INSERT_UPPER"
	case infoInsertMeta:
		return "INSERT_META"
	case infoSplitL:
		return "SPLIT_L"
	case infoInsertPost:
		return "INSERT_POST"
	case infoDedup:
		return "DEDUP"
	case infoDelete:
		return "DELETE"
	case infoSplitR:
		return "SPLIT_R"
	case infoVacuum:
		return "VACUUM"
	case infoUnlinkPage:
		return "UNLINK_PAGE"
	case infoMarkHalf:
		return "MARK_PAGE_HALFDEAD"
	case infoMetaCleanup:
		return "META_CLEANUP"
	case infoNewRoot:
		return "NEWROOT"
	case infoMarkDeleted:
		return "MARK_DELETED"
	case infoNewPage:
		return "NEWPAGE"
	}
	return "UNKNOWN"
}

// ResourceManager is the Btree entry of the WAL resource-manager registry.
func ResourceManager() wal.Rmgr {
	return wal.Rmgr{Name: "Btree", Desc: RecordName, RedoPages: redoPages}
}

func init() {
	wal.Register(wal.RmBtree, ResourceManager())
}
