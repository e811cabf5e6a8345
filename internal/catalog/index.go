package catalog

import (
	"strings"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// IndexOptions describes index ir of table rel for the btree.
func IndexOptions(rel, ir *Relation) btree.Options {
	opt := btree.Options{Name: ir.Name, Unique: ir.Index.Unique, FillFactor: ir.FillFactor(), TableName: rel.Name}
	// deduplicate_items; and a table that rewrites rows in place keeps one
	// entry per (key, TID), since delete marks are per entry.
	if v, ok := ParseBoolOption(ir.Options["deduplicate_items"]); ok && !v {
		opt.NoDeduplicate = true
	}
	if ipu, ok := rel.Table.(tableam.InPlaceUpdates); ok && ipu.UpdatesInPlace() {
		opt.NoDeduplicate = true
	}
	for _, k := range ir.Index.Keys {
		a := rel.Attrs[k-1]
		opt.KeyTypes = append(opt.KeyTypes, a.Type)
		opt.ColumnNames = append(opt.ColumnNames, a.Name)
		opt.KeyCompression = append(opt.KeyCompression, a.Compression)
	}
	return opt
}

// IndexFor returns the shared btree handle of index ir on table rel (it
// caches the index's metapage, like PostgreSQL's rd_amcache).
func (c *Catalog) IndexFor(rel, ir *Relation) *btree.Index {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.indexes == nil {
		c.indexes = map[uint32]*btree.Index{}
	}
	ix := c.indexes[ir.RelFileNode]
	opt := IndexOptions(rel, ir)
	if ix == nil || ix.Name() != ir.Name || !sameColumns(ix.Options(), opt) {
		ix = btree.Open(c.BtreeEnv(), smgr.RelFileNumber(ir.RelFileNode), opt)
		c.indexes[ir.RelFileNode] = ix
	}
	return ix
}

// SetIndexHandle installs a freshly built index's handle.
func (c *Catalog) SetIndexHandle(relfilenode uint32, ix *btree.Index) {
	c.mu.Lock()
	if c.indexes == nil {
		c.indexes = map[uint32]*btree.Index{}
	}
	c.indexes[relfilenode] = ix
	c.mu.Unlock()
}

// BtreeEnv is the environment btree indexes run in.
//
// Deleted index pages carry the next transaction id as their safexid and
// are reused once no running transaction is older, so the btree asks the
// transaction manager for both.
func (c *Catalog) BtreeEnv() *btree.Env {
	x := c.env.Xact
	return &btree.Env{
		Pool:       c.env.Pool,
		WAL:        c.env.WAL,
		NextXid:    func() uint32 { return uint32(x.NextXid()) },
		OldestXmin: func() uint32 { return uint32(x.OldestXmin()) },
		Pred:       c.env.Pred,
	}
}

// sameColumns reports whether a cached handle still describes the key
// columns (a column rename changes the names its errors print).
func sameColumns(a, b btree.Options) bool {
	if len(a.ColumnNames) != len(b.ColumnNames) || a.NoDeduplicate != b.NoDeduplicate {
		return false
	}
	for i := range a.ColumnNames {
		if a.ColumnNames[i] != b.ColumnNames[i] {
			return false
		}
	}
	return true
}

// ParseBoolOption reads a boolean storage parameter's value as
// PostgreSQL's parse_bool does: true/false, yes/no, on/off, 1/0, and
// unique prefixes of the words.
func ParseBoolOption(s string) (value, ok bool) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return false, false
	}
	switch {
	case strings.HasPrefix("true", v), strings.HasPrefix("yes", v), v == "on", v == "1":
		return true, true
	case strings.HasPrefix("false", v), strings.HasPrefix("no", v), v == "off" || v == "of", v == "0":
		return false, true
	}
	return false, false
}
