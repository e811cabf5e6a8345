package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// Temporary relations, as PostgreSQL keeps them.
//
// A session that creates its first temporary object gets a temporary
// namespace pg_temp_N (and its sibling pg_toast_temp_N), N being a slot
// number no other live session holds. The namespace rows outlive the
// session, as in PostgreSQL, and the next session given slot N reuses
// them. A relation is temporary exactly when its namespace is one of these
// (relpersistence 't'); unqualified names are looked up there first
// (Txn.TempNamespace, the implicit pg_temp at the front of search_path).
//
// Temporary relations live in the shared buffer pool but are not WAL-logged
// (PostgreSQL does not log them either): their files are registered with
// the WAL as unlogged when created, so no record describes their pages, no
// full-page image is taken of them and their changes cost no WAL, as
// EXPLAIN (WAL) shows in PostgreSQL. Crash recovery therefore cannot
// rebuild them — and need not: the relations of every temporary namespace
// are dropped at start-up (DropTempRelations), before any session can
// reach them, since every session that owned one is gone. Their catalog
// rows are ordinary WAL-logged catalog rows, so that drop is exact.

// TempNamespacePrefix starts the name of every temporary namespace.
const TempNamespacePrefix = "pg_temp_"

// tempToastPrefix starts the name of a temporary namespace's TOAST sibling.
const tempToastPrefix = "pg_toast_temp_"

// tempRegistry is the engine's knowledge of temporary namespaces.
type tempRegistry struct {
	nsps  map[uint32]string // temporary namespaces (and their TOAST siblings) by OID
	slots map[int]bool      // slots held by live sessions
}

// IsTempNamespace reports whether nsp is a temporary namespace (or the
// TOAST sibling of one).
func (c *Catalog) IsTempNamespace(nsp uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.temp.nsps[nsp]
	return ok
}

func (c *Catalog) noteTempNamespace(oid uint32, name string) {
	c.mu.Lock()
	if c.temp.nsps == nil {
		c.temp.nsps = map[uint32]string{}
	}
	c.temp.nsps[oid] = name
	c.mu.Unlock()
}

// Persistence is pg_class.relpersistence for a relation in namespace nsp.
func (c *Catalog) Persistence(nsp uint32) byte {
	if c.IsTempNamespace(nsp) {
		return PersistenceTemp
	}
	return PersistencePermanent
}

// relpersistence values.
const (
	PersistencePermanent = 'p'
	PersistenceTemp      = 't'
)

// IsTemp reports whether r is a temporary relation.
func (r *Relation) IsTemp() bool { return r.Persistence == PersistenceTemp }

// NamespaceName is the name of namespace oid (its OID as text if there is
// no such namespace).
func (c *Catalog) NamespaceName(oid uint32) string {
	if name, ok := c.knownNamespaceName(oid); ok {
		return name
	}
	return strconv.FormatUint(uint64(oid), 10)
}

// knownNamespaceName is NamespaceName without the fallback to the OID.
func (c *Catalog) knownNamespaceName(oid uint32) (string, bool) {
	switch oid {
	case PgCatalogNamespace:
		return "pg_catalog", true
	case PublicNamespace:
		return "public", true
	case PgToastNamespace:
		return "pg_toast", true
	case InfoSchemaNamespace:
		return "information_schema", true
	}
	c.mu.Lock()
	name, ok := c.temp.nsps[oid]
	c.mu.Unlock()
	if ok {
		return name, true
	}
	return c.userNamespaceName(oid)
}

// AcquireTempSlot gives a session the lowest slot number no other live
// session holds; its temporary namespace is pg_temp_<slot>.
func (c *Catalog) AcquireTempSlot() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.temp.slots == nil {
		c.temp.slots = map[int]bool{}
	}
	n := 1
	for c.temp.slots[n] {
		n++
	}
	c.temp.slots[n] = true
	return n
}

// ReleaseTempSlot returns a slot, once its session has dropped its
// temporary objects.
func (c *Catalog) ReleaseTempSlot(n int) {
	c.mu.Lock()
	delete(c.temp.slots, n)
	c.mu.Unlock()
}

// TempNamespace returns the OID of temporary namespace slot, creating it
// (and its TOAST sibling) in a transaction of its own, committed at once,
// if no earlier session made it. PostgreSQL creates the namespace in the
// transaction that needs it; committing it apart means a rollback leaves
// an empty namespace behind, which any later session of that slot would
// have made anyway.
func (c *Catalog) TempNamespace(slot int) (uint32, error) {
	name := TempNamespacePrefix + strconv.Itoa(slot)
	proc := c.env.Xact.NewProc()
	defer c.env.Xact.ReleaseProc(proc)
	u := &stats.Usage{}
	tx := &Txn{Heap: &tableam.Txn{Proc: proc, Snap: c.env.Xact.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: u}
	oid, err := c.namespaceByName(tx, name)
	if err != nil || oid != 0 {
		c.env.Xact.ResetXmin(proc)
		if oid != 0 {
			c.noteTempNamespace(oid, name)
		}
		return oid, err
	}
	xid, err := c.env.Xact.AssignXid(proc)
	if err != nil {
		c.env.Xact.Abort(proc)
		return 0, err
	}
	tx.Heap.Xid = xid
	var oids [2]uint32
	for i, n := range []string{name, tempToastPrefix + strconv.Itoa(slot)} {
		if oids[i], err = c.NewOid(); err == nil {
			_, err = c.insert(tx, PgNamespace, []types.Datum{ov(oids[i]), types.Str(n), ov(BootstrapSuperuserID), types.Null()})
		}
		if err != nil {
			c.env.Xact.Abort(proc)
			return 0, err
		}
	}
	if _, err := c.env.Xact.Commit(u, proc, xact.CommitOptions{Sync: true, BeforeUnlock: c.Invalidate}); err != nil {
		return 0, err
	}
	c.noteTempNamespace(oids[0], name)
	c.noteTempNamespace(oids[1], tempToastPrefix+strconv.Itoa(slot))
	return oids[0], nil
}

// namespaceByName is the OID of namespace name, 0 if there is none.
func (c *Catalog) namespaceByName(tx *Txn, name string) (uint32, error) {
	var found uint32
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if v[1].Str() == name {
			found = uint32(v[0].Int())
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// TempNamespaces lists the temporary namespaces (not their TOAST
// siblings) and remembers them as temporary.
func (c *Catalog) TempNamespaces(tx *Txn) ([]uint32, error) {
	var out []uint32
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		oid, name := uint32(v[0].Int()), v[1].Str()
		switch {
		case strings.HasPrefix(name, TempNamespacePrefix):
			c.noteTempNamespace(oid, name)
			out = append(out, oid)
		case strings.HasPrefix(name, tempToastPrefix):
			c.noteTempNamespace(oid, name)
		}
		return true, nil
	})
	return out, err
}

// relationsIn lists the OIDs of the relations in namespace nsp of the
// given kind, in creation order.
func (c *Catalog) relationsIn(tx *Txn, nsp uint32, kind byte) ([]uint32, error) {
	var oids []uint32
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[cRelnsp].Int()) == nsp && byte(v[cRelkind].Int()) == kind {
			oids = append(oids, uint32(v[cOid].Int()))
		}
		return true, nil
	})
	sort.Slice(oids, func(i, j int) bool { return oids[i] < oids[j] })
	return oids, err
}

// DropTempRelations drops every relation of temporary namespace nsp in
// transaction tx: its tables (with their indexes, constraints and owned
// sequences), then its other sequences. Their files go when tx commits
// (tx.Dropped). Foreign keys can point at a temporary table only from
// temporary tables of the same session, so none survives.
func (c *Catalog) DropTempRelations(tx *Txn, nsp uint32) (int, error) {
	n := 0
	for _, kind := range []byte{KindTable, KindView, KindSequence} {
		oids, err := c.relationsIn(tx, nsp, kind)
		if err != nil {
			return n, err
		}
		for _, oid := range oids {
			r, err := c.ByOID(tx, oid)
			if err != nil {
				return n, err
			}
			if r == nil {
				continue // an owned sequence, gone with its table
			}
			if err := c.DropRelation(tx, r); err != nil {
				return n, fmt.Errorf("dropping temporary relation %q: %w", r.Name, err)
			}
			n++
		}
	}
	procs, err := c.dropProcsIn(tx, nsp)
	return n + procs, err
}

// createRelStorage makes the file of a new relation (or a relation's new
// file) in namespace nsp: a temporary relation's file is registered as
// unlogged, so that no WAL describes it, and its creation is not logged
// either; any other goes through CreateStorage.
func (c *Catalog) createRelStorage(tx *Txn, relfilenode, nsp uint32) error {
	if !c.IsTempNamespace(nsp) {
		return c.CreateStorage(tx, relfilenode)
	}
	if err := c.env.Pool.Smgr().Create(smgr.RelFileNumber(relfilenode), smgr.MainFork); err != nil {
		return err
	}
	c.env.WAL.SetUnlogged(relfilenode, true)
	tx.Created = append(tx.Created, relfilenode)
	return nil
}

// OtherSessionTempError is PostgreSQL's error for touching another
// session's temporary relation, with what the caller wanted to do
// ("access", "alter", "truncate", "create indexes on").
func OtherSessionTempError(what string) error {
	return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot %s temporary tables of other sessions", what)
}

// IsOtherTemp reports whether r is another session's temporary relation
// (tx.TempNamespace is the calling session's namespace, 0 if none).
func (tx *Txn) IsOtherTemp(r *Relation) bool {
	return r.IsTemp() && r.Namespace != tx.TempNamespace
}

// NamespaceIsEmpty reports whether no relation or routine lives in
// namespace nsp.
func (c *Catalog) NamespaceIsEmpty(tx *Txn, nsp uint32) (bool, error) {
	empty := true
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[cRelnsp].Int()) == nsp {
			empty = false
			return false, nil
		}
		return true, nil
	})
	if err != nil || !empty {
		return empty, err
	}
	procs, err := c.Procs(tx, func(_ string, n uint32) bool { return n == nsp })
	return len(procs) == 0, err
}

// IsOwnTempNamespace reports whether nsp is the temporary namespace of
// tx's session or its TOAST sibling.
func (c *Catalog) IsOwnTempNamespace(tx *Txn, nsp uint32) bool {
	if tx.TempNamespace == 0 {
		return false
	}
	if nsp == tx.TempNamespace {
		return true
	}
	mine := c.NamespaceName(tx.TempNamespace)
	return c.NamespaceName(nsp) == tempToastPrefix+strings.TrimPrefix(mine, TempNamespacePrefix)
}

// LookupIn finds relation name in namespace nsp (nil, nil if none): names
// are unique per namespace, so a temporary index may share a permanent
// one's name.
func (c *Catalog) LookupIn(tx *Txn, nsp uint32, name string) (*Relation, error) {
	return c.lookupIn(tx, nsp, name)
}
