package catalog

import (
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// pg_description and pg_shdescription: COMMENT ON's text, keyed as in
// PostgreSQL by the object's OID, the OID of the catalog holding it and,
// for a column, its number (objsubid; 0 for the object itself). Shared
// objects (roles, databases, tablespaces) go in pg_shdescription, without
// objsubid.

const (
	PgDescriptionRelID   = 2609
	PgShdescriptionRelID = 2396
	PgDatabaseRelID      = 1262
	PgTablespaceRelID    = 1213
)

var (
	PgDescription = &TableDef{PgDescriptionRelID, "pg_description", []Column{
		col("objoid", tOid), col("classoid", tOid), col("objsubid", tInt4), col("description", tText),
	}}
	PgShdescription = &TableDef{PgShdescriptionRelID, "pg_shdescription", []Column{
		col("objoid", tOid), col("classoid", tOid), col("description", tText),
	}}
)

// IsSharedCatalog: rows of objects of catalog classoid are shared by the
// cluster's databases, so their comments go in pg_shdescription.
func IsSharedCatalog(classoid uint32) bool {
	return classoid == PgAuthidRelID || classoid == PgDatabaseRelID || classoid == PgTablespaceRelID
}

// SetDescription stores (or, for an empty text, removes) the comment on
// an object, replacing any earlier one.
func (c *Catalog) SetDescription(tx *Txn, classoid, objoid uint32, subid int32, text string) error {
	if err := c.dropDescriptions(tx, classoid, objoid, subid, false); err != nil {
		return err
	}
	if text != "" {
		var err error
		if IsSharedCatalog(classoid) {
			_, err = c.insert(tx, PgShdescription, []types.Datum{ov(objoid), ov(classoid), types.Str(text)})
		} else {
			_, err = c.insert(tx, PgDescription, []types.Datum{ov(objoid), ov(classoid), types.Int(int64(subid)), types.Str(text)})
		}
		if err != nil {
			return err
		}
	}
	tx.Heap.Cid++
	return nil
}

// Description is the comment on an object ("" and false if none).
func (c *Catalog) Description(tx *Txn, classoid, objoid uint32, subid int32) (string, bool, error) {
	var text string
	var found bool
	def := PgDescription
	if IsSharedCatalog(classoid) {
		def = PgShdescription
	}
	err := c.scan(tx, def, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == objoid && uint32(v[1].Int()) == classoid && (def == PgShdescription || int32(v[2].Int()) == subid) {
			text, found = v[len(v)-1].Str(), true
			return false, nil
		}
		return true, nil
	})
	return text, found, err
}

// DropDescriptions removes the comments on an object and on its columns
// (when the object is dropped).
func (c *Catalog) DropDescriptions(tx *Txn, classoid, objoid uint32) error {
	return c.dropDescriptions(tx, classoid, objoid, 0, true)
}

// DropColumnDescription removes the comment on column subid of relation
// objoid.
func (c *Catalog) DropColumnDescription(tx *Txn, objoid uint32, subid int32) error {
	return c.dropDescriptions(tx, PgClassRelID, objoid, subid, false)
}

func (c *Catalog) dropDescriptions(tx *Txn, classoid, objoid uint32, subid int32, allSubs bool) error {
	def := PgDescription
	if IsSharedCatalog(classoid) {
		def = PgShdescription
	}
	var tids []page.ItemPointer
	err := c.scan(tx, def, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == objoid && uint32(v[1].Int()) == classoid && (def == PgShdescription || allSubs || int32(v[2].Int()) == subid) {
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, tid := range tids {
		if err := c.delete(tx, def, tid); err != nil {
			return err
		}
	}
	return nil
}
