package catalog

import (
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Schemas (pg_namespace rows) and the search path, as PostgreSQL's
// namespace.c resolves it.
//
// The session says which search_path setting and role are in force
// (Txn.PathSetting); the path is resolved lazily, the first time a name
// needs it, and reused while the setting, the role, the session's
// temporary namespace and the catalog state it was resolved against stay
// the same (a transaction that changed catalogs resolves it again at each
// command, since a schema it creates may now exist).

// Namespace is a pg_namespace row.
type Namespace struct {
	OID   uint32
	Name  string
	Owner uint32
	ACL   types.Datum
}

// tempSentinel stands in a resolved path for the session's temporary
// namespace, which may not exist yet when the path is resolved.
const tempSentinel = ^uint32(0)

// searchPath is a resolved search_path.
type searchPath struct {
	key pathKey
	// explicit: the schemas the setting names that exist, in order
	// (tempSentinel for pg_temp).
	explicit []uint32
	// implicitCatalog / implicitTemp: pg_catalog / pg_temp are not named
	// and so are searched first (temp before pg_catalog).
	implicitCatalog, implicitTemp bool
}

type pathKey struct {
	setting, user string
	version       uint64
	cid           uint32
	dirty         bool
}

// Namespaces lists every pg_namespace row.
func (c *Catalog) Namespaces(tx *Txn) ([]Namespace, error) {
	var out []Namespace
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		out = append(out, Namespace{OID: uint32(v[0].Int()), Name: v[1].Str(), Owner: uint32(v[2].Int()), ACL: v[3]})
		return true, nil
	})
	return out, err
}

// NamespaceByName is the pg_namespace row named name; nil if none.
func (c *Catalog) NamespaceByName(tx *Txn, name string) (*Namespace, error) {
	var found *Namespace
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if v[1].Str() == name {
			found = &Namespace{OID: uint32(v[0].Int()), Name: name, Owner: uint32(v[2].Int()), ACL: v[3]}
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// NamespaceByOID is the pg_namespace row oid; nil if none.
func (c *Catalog) NamespaceByOID(tx *Txn, oid uint32) (*Namespace, error) {
	var found *Namespace
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == oid {
			found = &Namespace{OID: oid, Name: v[1].Str(), Owner: uint32(v[2].Int()), ACL: v[3]}
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// CreateNamespace adds a schema. The caller has checked the name is free
// (under a lock on pg_namespace).
func (c *Catalog) CreateNamespace(tx *Txn, name string, owner uint32) (uint32, error) {
	oid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	if _, err := c.insert(tx, PgNamespace, []types.Datum{ov(oid), types.Str(name), ov(owner), types.Null()}); err != nil {
		return 0, err
	}
	c.noteNamespaceName(oid, name)
	tx.Heap.Cid++
	return oid, nil
}

// UpdateNamespace rewrites schema oid's row with change applied.
func (c *Catalog) UpdateNamespace(tx *Txn, oid uint32, change func(n *Namespace)) error {
	var tid page.ItemPointer
	var row *Namespace
	err := c.scan(tx, PgNamespace, func(v []types.Datum, t page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == oid {
			row, tid = &Namespace{OID: oid, Name: v[1].Str(), Owner: uint32(v[2].Int()), ACL: v[3]}, t
			return false, nil
		}
		return true, nil
	})
	if err != nil || row == nil {
		return err
	}
	change(row)
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgNamespace, tid, []types.Datum{ov(oid), types.Str(row.Name), ov(row.Owner), row.ACL})
	if err == nil && oc.Result != tableam.Ok {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	c.noteNamespaceName(oid, row.Name)
	tx.Heap.Cid++
	return err
}

// DropNamespaceRow deletes schema oid's row (its objects are gone already).
func (c *Catalog) DropNamespaceRow(tx *Txn, oid uint32) error {
	var tid page.ItemPointer
	found := false
	err := c.scan(tx, PgNamespace, func(v []types.Datum, t page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == oid {
			tid, found = t, true
			return false, nil
		}
		return true, nil
	})
	if err != nil || !found {
		return err
	}
	if err := c.delete(tx, PgNamespace, tid); err != nil {
		return err
	}
	if err := c.DropDescriptions(tx, PgNamespaceRelID, oid); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// noteNamespaceName remembers a schema's name for NamespaceName, which
// has no transaction to read the catalog with. A name noted by a
// transaction that then rolls back is forgotten at the next reload (an
// OID is never reused, so a created-then-rolled-back schema's entry is
// merely unused).
func (c *Catalog) noteNamespaceName(oid uint32, name string) {
	c.mu.Lock()
	if c.nspNames == nil {
		c.nspNames = map[uint32]string{}
	}
	c.nspNames[oid] = name
	c.mu.Unlock()
}

// userNamespaceName is the name of a schema that is neither built in nor
// temporary, from the committed catalog (reloaded after each catalog
// change) and the names this engine's transactions noted since.
func (c *Catalog) userNamespaceName(oid uint32) (string, bool) {
	c.mu.Lock()
	if c.nspNamesV != c.version.Load() {
		c.mu.Unlock()
		c.reloadNamespaceNames()
		c.mu.Lock()
	}
	name, ok := c.nspNames[oid]
	c.mu.Unlock()
	return name, ok
}

// reloadNamespaceNames reads the committed pg_namespace in a read-only
// transaction of its own.
func (c *Catalog) reloadNamespaceNames() {
	v := c.version.Load()
	if c.env == nil || c.env.Xact == nil {
		return
	}
	proc := c.env.Xact.NewProc()
	defer c.env.Xact.ReleaseProc(proc)
	tx := &Txn{Heap: &tableam.Txn{Proc: proc, Snap: c.env.Xact.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: &stats.Usage{}}
	defer c.env.Xact.ResetXmin(proc)
	nsps, err := c.Namespaces(tx)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nspNames == nil {
		c.nspNames = map[uint32]string{}
	}
	for _, n := range nsps {
		c.nspNames[n.OID] = n.Name
	}
	c.nspNamesV = v
}

// NamespaceNameTx is schema oid's name as tx sees it ("" if none).
func (c *Catalog) NamespaceNameTx(tx *Txn, oid uint32) (string, error) {
	if !tx.Dirty {
		if name, ok := c.knownNamespaceName(oid); ok {
			return name, nil
		}
	}
	n, err := c.NamespaceByOID(tx, oid)
	if err != nil || n == nil {
		return "", err
	}
	return n.Name, nil
}

// PathSetting reports the search_path setting and the current role's
// name, for resolving the search path.
type PathSetting func() (searchPath, user string)

// resolvedPath is tx's search path, resolved now if what it depends on
// changed since it last was.
func (c *Catalog) resolvedPath(tx *Txn) (*searchPath, error) {
	setting, user := `"$user", public`, ""
	if tx.PathSetting != nil {
		setting, user = tx.PathSetting()
	}
	key := pathKey{setting: setting, user: user, version: c.version.Load(), dirty: tx.Dirty}
	if tx.Dirty && tx.Heap != nil {
		key.cid = tx.Heap.Cid
	}
	if tx.path != nil && tx.path.key == key {
		return tx.path, nil
	}
	p := &searchPath{key: key, implicitCatalog: true, implicitTemp: true}
	for _, name := range SplitIdentifierList(setting) {
		switch name {
		case "$user":
			if user == "" {
				continue
			}
			n, err := c.NamespaceByName(tx, user)
			if err != nil {
				return nil, err
			}
			if n != nil && !c.IsTempNamespace(n.OID) {
				p.explicit = appendUnique(p.explicit, n.OID)
			}
		case "pg_temp":
			p.implicitTemp = false
			p.explicit = appendUnique(p.explicit, tempSentinel)
		default:
			n, err := c.NamespaceByName(tx, name)
			if err != nil {
				return nil, err
			}
			if n == nil {
				continue
			}
			if n.OID == PgCatalogNamespace {
				p.implicitCatalog = false
			}
			p.explicit = appendUnique(p.explicit, n.OID)
		}
	}
	tx.path = p
	return p, nil
}

func appendUnique(list []uint32, oid uint32) []uint32 {
	for _, o := range list {
		if o == oid {
			return list
		}
	}
	return append(list, oid)
}

// SearchNamespaces is the schemas an unqualified name is looked for in,
// in order: pg_temp (relations and types only, once the session has a
// temporary namespace) and pg_catalog first unless the setting places
// them, then the setting's schemas that exist.
func (c *Catalog) SearchNamespaces(tx *Txn, withTemp bool) ([]uint32, error) {
	p, err := c.resolvedPath(tx)
	if err != nil {
		return nil, err
	}
	var out []uint32
	if p.implicitTemp && withTemp && tx.TempNamespace != 0 {
		out = append(out, tx.TempNamespace)
	}
	if p.implicitCatalog {
		out = append(out, PgCatalogNamespace)
	}
	for _, o := range p.explicit {
		if o == tempSentinel {
			if withTemp && tx.TempNamespace != 0 {
				out = append(out, tx.TempNamespace)
			}
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

// CreationNamespace is where an unqualified new object goes: the first
// schema of the setting that exists. temp reports that this is pg_temp
// (the session's temporary namespace, which the caller makes if need be).
// With no such schema it is PostgreSQL's 3F000 error.
func (c *Catalog) CreationNamespace(tx *Txn) (nsp uint32, temp bool, err error) {
	p, err := c.resolvedPath(tx)
	if err != nil {
		return 0, false, err
	}
	if len(p.explicit) == 0 {
		return 0, false, pgerr.Errorf(pgerr.InvalidSchemaName, "no schema has been selected to create in")
	}
	if p.explicit[0] == tempSentinel {
		return tx.TempNamespace, true, nil
	}
	return p.explicit[0], false, nil
}

// CurrentSchemas is current_schemas(implicit): the names of the search
// path's schemas, with pg_temp and pg_catalog when searched implicitly
// if implicit is set. pg_temp is listed only once the session has its
// temporary namespace.
func (c *Catalog) CurrentSchemas(tx *Txn, implicit bool) ([]string, error) {
	p, err := c.resolvedPath(tx)
	if err != nil {
		return nil, err
	}
	var oids []uint32
	if implicit {
		if oids, err = c.SearchNamespaces(tx, true); err != nil {
			return nil, err
		}
	} else {
		for _, o := range p.explicit {
			if o == tempSentinel {
				if tx.TempNamespace == 0 {
					continue
				}
				o = tx.TempNamespace
			}
			oids = append(oids, o)
		}
	}
	out := make([]string, 0, len(oids))
	for _, o := range oids {
		name, err := c.NamespaceNameTx(tx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, nil
}

// SplitIdentifierList splits a list setting such as search_path into
// identifiers as PostgreSQL's SplitIdentifierString does: separated by
// commas, unquoted names folded to lower case and trimmed, double-quoted
// names kept as written ("" for a quote).
func SplitIdentifierList(s string) []string {
	var out []string
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			break
		}
		var name strings.Builder
		if s[i] == '"' {
			i++
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						name.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				name.WriteByte(s[i])
				i++
			}
		} else {
			start := i
			for i < len(s) && s[i] != ',' {
				i++
			}
			name.WriteString(strings.ToLower(strings.TrimSpace(s[start:i])))
		}
		for i < len(s) && s[i] != ',' {
			i++
		}
		i++ // the comma
		if name.Len() > 0 {
			out = append(out, name.String())
		}
	}
	return out
}

// NamespaceSearched: nsp is on tx's search path (for relations and types:
// the temporary namespace included), so a name in it may be printed
// unqualified if nothing before it has the same name.
func (c *Catalog) NamespaceSearched(tx *Txn, nsp uint32) (bool, error) {
	nsps, err := c.SearchNamespaces(tx, true)
	for _, o := range nsps {
		if o == nsp {
			return true, err
		}
	}
	return false, err
}

// NamespaceQualifier is "schema." for an object of namespace nsp that is
// not on tx's search path, "" for one that is: how PostgreSQL's
// format_type and regclass output name objects.
func (c *Catalog) NamespaceQualifier(tx *Txn, nsp uint32) string {
	if ok, err := c.NamespaceSearched(tx, nsp); err == nil && ok {
		return ""
	}
	return types.QuoteIdent(c.NamespaceName(nsp)) + "."
}

// NamespaceMember is an object a schema holds directly.
type NamespaceMember struct {
	OID  uint32
	Name string
	// Kind: pg_class.relkind for a relation; 'T' a type (enum, composite
	// or domain: TypeKind says which), 'f' a routine.
	Kind     byte
	TypeKind byte
}

// NamespaceMembers lists the relations (not indexes or composite types'
// rows), user-defined types (not array types) and routines of schema nsp,
// each kind in OID order.
func (c *Catalog) NamespaceMembers(tx *Txn, nsp uint32) ([]NamespaceMember, error) {
	var out []NamespaceMember
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[cRelnsp].Int()) == nsp {
			switch k := byte(v[cRelkind].Int()); k {
			case KindIndex, 'I', 'c', 't':
			default:
				out = append(out, NamespaceMember{OID: uint32(v[cOid].Int()), Name: v[cRelname].Str(), Kind: k})
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	err = c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[tyNsp].Int()) != nsp || uint32(v[tyOid].Int()) < FirstNormalObjectID {
			return true, nil
		}
		switch k := byte(v[tyType].Int()); k {
		case TypeEnum, 'c', 'd':
			if k == 'c' {
				// A table's row type is the table's; only CREATE TYPE's
				// composites are members of their own.
				rel, err := c.ByOID(tx, uint32(v[PgType.ColumnIndex("typrelid")].Int()))
				if err != nil || (rel != nil && rel.Kind != 'c') {
					return err == nil, err
				}
			}
			out = append(out, NamespaceMember{OID: uint32(v[tyOid].Int()), Name: v[tyName].Str(), Kind: 'T', TypeKind: k})
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	procs, err := c.Procs(tx, func(_ string, n uint32) bool { return n == nsp })
	for _, p := range procs {
		out = append(out, NamespaceMember{OID: p.OID, Name: p.Name, Kind: 'f'})
	}
	sortMembers(out)
	return out, err
}

func sortMembers(m []NamespaceMember) {
	rank := func(x NamespaceMember) int {
		switch x.Kind {
		case 'T':
			return 1
		case 'f':
			return 2
		}
		return 0
	}
	for i := 1; i < len(m); i++ {
		for j := i; j > 0 && (rank(m[j]) < rank(m[j-1]) || (rank(m[j]) == rank(m[j-1]) && m[j].OID < m[j-1].OID)); j-- {
			m[j], m[j-1] = m[j-1], m[j]
		}
	}
}

// RenameNamespaceInDefaults keeps the column defaults that name a
// sequence of schema nsp (qualified, as a regclass constant) pointing at
// it when the schema is renamed from oldName to newName. Defaults are
// stored as SQL text, where PostgreSQL stores the sequence's OID.
func (c *Catalog) RenameNamespaceInDefaults(tx *Txn, nsp uint32, oldName, newName string) error {
	members, err := c.NamespaceMembers(tx, nsp)
	if err != nil {
		return err
	}
	lit := func(schema, name string) string {
		return "'" + strings.ReplaceAll(types.QuoteIdent(schema)+"."+types.QuoteIdent(name), "'", "''") + "'::regclass"
	}
	var pairs []string
	for _, m := range members {
		if m.Kind == KindSequence {
			pairs = append(pairs, lit(oldName, m.Name), lit(newName, m.Name))
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	r := strings.NewReplacer(pairs...)
	tables, err := c.UserTables(tx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		for _, a := range t.Attrs {
			if !a.HasDefault {
				continue
			}
			if text := r.Replace(a.Default); text != a.Default {
				if err := c.SetColumnDefault(tx, t, a.Num, text); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SetRelationNamespace moves relation oid, its indexes and its
// constraints to schema nsp (ALTER … SET SCHEMA; the caller moves owned
// sequences and rewrites the stored texts that name the relation).
func (c *Catalog) SetRelationNamespace(tx *Txn, rel *Relation, nsp uint32) error {
	if err := c.updateClassRow(tx, rel.OID, map[int]types.Datum{cRelnsp: ov(nsp)}); err != nil {
		return err
	}
	for _, ix := range rel.Indexes {
		if err := c.updateClassRow(tx, ix.OID, map[int]types.Datum{cRelnsp: ov(nsp)}); err != nil {
			return err
		}
	}
	conNsp, conRel := PgConstraint.ColumnIndex("connamespace"), PgConstraint.ColumnIndex("conrelid")
	type row struct {
		tid  page.ItemPointer
		vals []types.Datum
	}
	var rows []row
	err := c.scan(tx, PgConstraint, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[conRel].Int()) == rel.OID {
			rows = append(rows, row{tid, append([]types.Datum(nil), v...)})
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, r := range rows {
		r.vals[conNsp] = ov(nsp)
		tx.Dirty = true
		if _, oc, err := c.updateRow(tx, PgConstraint, r.tid, r.vals); err != nil {
			return err
		} else if oc.Result != tableam.Ok {
			return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
		}
	}
	tx.Heap.Cid++
	return nil
}

// MoveSequenceInDefaults rewrites the defaults that name sequence name of
// schema oldNsp as a qualified regclass constant to name it in newNsp.
func (c *Catalog) MoveSequenceInDefaults(tx *Txn, name, oldNsp, newNsp string) error {
	lit := func(schema string) string {
		return "'" + strings.ReplaceAll(types.QuoteIdent(schema)+"."+types.QuoteIdent(name), "'", "''") + "'::regclass"
	}
	from, to := lit(oldNsp), lit(newNsp)
	tables, err := c.UserTables(tx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		for _, a := range t.Attrs {
			if a.HasDefault && strings.Contains(a.Default, from) {
				if err := c.SetColumnDefault(tx, t, a.Num, strings.ReplaceAll(a.Default, from, to)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
