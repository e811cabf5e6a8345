package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// sequenceCall answers the sequence functions. Their first argument is a
// regclass, here an OID (the compiler turns 'name' into regclassin).
func (f *catalogFuncs) sequenceCall(name string, args []types.Datum) (types.Datum, error) {
	c := f.c
	if name == "pg_get_serial_sequence" {
		return f.serialSequence(args[0].Str(), args[1].Str())
	}
	if c.Seqs == nil {
		return types.Null(), pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not available here", name)
	}
	var oid uint32
	if name == "lastval" {
		oid = c.Seqs.LastOID()
		if oid == 0 {
			return types.Null(), pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
	} else {
		oid = uint32(args[0].Int())
	}
	mode := xact.RowExclusiveLock
	reads := name == "currval" || name == "lastval"
	if reads {
		mode = xact.AccessShareLock
	}
	seq, err := f.openSequence(oid, mode)
	if err != nil {
		if name == "lastval" && pgerr.Code(err) == pgerr.UndefinedTable {
			return types.Null(), pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
		return types.Null(), err
	}
	if seq.IsTemp() {
		c.Tx.AccessedTemp = true
	}
	// A read-only transaction may still advance its own temporary sequences.
	if !reads && !seq.IsTemp() && c.Setting != nil && c.Setting("transaction_read_only") == "on" {
		return types.Null(), pgerr.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s() in a read-only transaction", name)
	}
	if c.Tx.IsOtherTemp(seq) {
		return types.Null(), catalog.OtherSessionTempError("access")
	}
	rel := c.Eng.Catalog.SeqRel(seq)
	switch name {
	case "nextval":
		v, err := c.Seqs.Next(c.U(), rel, seq.OID, seq.Seq.Options, c.Tx.Heap.Xid)
		return types.Int(v), err
	case "currval", "lastval":
		v, err := c.Seqs.Current(seq.OID, seq.Name)
		return types.Int(v), err
	case "setval":
		isCalled := len(args) < 3 || args[2].Bool()
		v := args[1].Int()
		return types.Int(v), c.Seqs.Set(c.U(), rel, seq.OID, seq.Seq.Options, v, isCalled, c.Tx.Heap.Xid)
	}
	return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
}

// openSequence locks and describes sequence oid.
func (f *catalogFuncs) openSequence(oid uint32, mode xact.LockMode) (*catalog.Relation, error) {
	c := f.c
	if c.LockRel != nil {
		if err := c.LockRel(oid, int(mode)); err != nil {
			return nil, err
		}
	}
	r, err := c.Eng.Catalog.ByOID(c.Tx, oid)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, pgerr.Errorf(pgerr.UndefinedTable, "could not open relation with OID %d", oid)
	}
	if r.Kind != catalog.KindSequence || r.Seq == nil {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a sequence", r.Name)
	}
	return r, nil
}

// serialSequence is pg_get_serial_sequence: the sequence a column's
// serial default or identity uses, schema-qualified, or NULL.
func (f *catalogFuncs) serialSequence(table, column string) (types.Datum, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	schema, name := splitQualified(table)
	rel, err := cat.Lookup(tx, schema, name)
	if err != nil {
		return types.Null(), err
	}
	if rel == nil {
		return types.Null(), pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", table)
	}
	i := rel.AttrByName(column)
	if i < 0 {
		return types.Null(), pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, rel.Name)
	}
	owned, err := cat.OwnedSequences(tx, rel.OID)
	if err != nil {
		return types.Null(), err
	}
	for oid, o := range owned {
		if o.Attnum != rel.Attrs[i].Num {
			continue
		}
		seq, err := cat.ByOID(tx, oid)
		if err != nil || seq == nil {
			return types.Null(), err
		}
		return types.Str(types.QuoteIdent(nspName(cat, seq.Namespace)) + "." + types.QuoteIdent(seq.Name)), nil
	}
	return types.Null(), nil
}

// splitQualified parses a possibly schema-qualified, possibly quoted
// relation name as regclass input does: unquoted parts fold to lower case.
func splitQualified(s string) (schema, name string) {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		case ch == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		case !quoted:
			cur.WriteString(strings.ToLower(string(ch)))
		default:
			cur.WriteByte(ch)
		}
	}
	parts = append(parts, cur.String())
	if len(parts) > 1 {
		return parts[len(parts)-2], parts[len(parts)-1]
	}
	return "", parts[0]
}
