package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/xact"
)

// lockTable is LOCK [TABLE] [ONLY] name [, ...] [IN mode MODE] [NOWAIT]:
// the relation locks held to the end of the transaction, on the tables
// named and (without ONLY) their inheritance children.
func (s *Session) lockTable(c *exec.Ctx, ls *pg.LockStmt, w pgwire.ResultWriter) error {
	if !s.inBlock {
		return pgerr.Errorf(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	mode := xact.LockMode(ls.Mode)
	if mode < xact.AccessShareLock || mode > xact.AccessExclusiveLock {
		mode = xact.AccessExclusiveLock
	}
	for _, n := range ls.Relations {
		rv := n.GetRangeVar()
		schema, name := rv.Schemaname, rv.Relname
		rel, err := s.eng.Catalog.Lookup(c.Tx, schema, name)
		if err != nil {
			return err
		}
		if rel == nil {
			qual := name
			if schema != "" {
				qual = schema + "." + name
			}
			return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qual)
		}
		if rel.MatView {
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot lock relation \"%s\"", rel.Name).
				WithDetail("This operation is not supported for materialized views.")
		}
		if err := s.requireRelPrivilege(c, rel, lockPrivileges(int(mode))); err != nil {
			return err
		}
		if rel.Kind == catalog.KindView {
			if err := s.lockView(c, rel, mode, ls.Nowait, 0); err != nil {
				return err
			}
			continue
		}
		if rel.Kind != catalog.KindTable {
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot lock relation \"%s\"", rel.Name).
				WithDetail("This operation is not supported for %s.", kindPlural(rel.Kind))
		}
		if err := s.lockOne(c, rel, mode, ls.Nowait); err != nil {
			return err
		}
		if rv.Inh {
			if err := s.lockChildren(c, rel.OID, mode, ls.Nowait); err != nil {
				return err
			}
		}
	}
	return w.CommandComplete("LOCK TABLE")
}

func (s *Session) lockOne(c *exec.Ctx, rel *catalog.Relation, mode xact.LockMode, nowait bool) error {
	err := s.eng.Xact.Lock(c.Context, s.proc, xact.RelationTag(rel.OID), mode, nowait)
	if pgerr.Code(err) == pgerr.LockNotAvailable {
		return pgerr.Errorf(pgerr.LockNotAvailable, "could not obtain lock on relation \"%s\"", rel.Name)
	}
	return err
}

// lockChildren locks every descendant of oid in the inheritance tree.
func (s *Session) lockChildren(c *exec.Ctx, oid uint32, mode xact.LockMode, nowait bool) error {
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, oid)
	if err != nil {
		return err
	}
	for _, k := range kids {
		child, err := s.eng.Catalog.ByOID(c.Tx, k)
		if err != nil {
			return err
		}
		if child == nil {
			continue
		}
		if err := s.lockOne(c, child, mode, nowait); err != nil {
			return err
		}
		if err := s.lockChildren(c, k, mode, nowait); err != nil {
			return err
		}
	}
	return nil
}
