package session

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/xact"
)

// REINDEX rebuilds indexes from their tables into new files, the way
// TRUNCATE gives a table new files: the new relfilenode becomes visible
// with the transaction's commit, and a rollback (or crash) keeps the old
// index. tidal runs CONCURRENTLY the same way (so it blocks writes to the
// table while it builds; the result is the same) but keeps PostgreSQL's
// rule that it cannot run in a transaction block.

type reindexOptions struct {
	verbose, concurrently bool
}

func reindexParams(rs *pg.ReindexStmt) (reindexOptions, error) {
	var o reindexOptions
	for _, p := range rs.Params {
		de := p.GetDefElem()
		if de == nil {
			continue
		}
		on := true
		if de.Arg != nil {
			v := strings.ToLower(defElemString(de.Arg))
			on = v != "false" && v != "off" && v != "0"
		}
		switch de.Defname {
		case "verbose":
			o.verbose = on
		case "concurrently":
			o.concurrently = on
		case "tablespace":
			return o, pgerr.Errorf(pgerr.FeatureNotSupported, "REINDEX TABLESPACE is not supported")
		default:
			return o, pgerr.Errorf(pgerr.SyntaxError, "unrecognized REINDEX option \"%s\"", de.Defname)
		}
	}
	return o, nil
}

// defElemString is an option argument's text (a string or a number).
func defElemString(n *pg.Node) string {
	if s := n.GetString_(); s != nil {
		return s.Sval
	}
	if i := n.GetInteger(); i != nil {
		return fmt.Sprint(i.Ival)
	}
	if b := n.GetBoolean(); b != nil {
		return fmt.Sprint(b.Boolval)
	}
	return ""
}

// reindexNonTransactional: the forms PostgreSQL refuses in a transaction
// block.
func reindexNonTransactional(rs *pg.ReindexStmt) (string, bool) {
	o, _ := reindexParams(rs)
	switch {
	case o.concurrently:
		return "REINDEX CONCURRENTLY", true
	case rs.Kind == pg.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		return "REINDEX SCHEMA", true
	case rs.Kind == pg.ReindexObjectType_REINDEX_OBJECT_DATABASE:
		return "REINDEX DATABASE", true
	case rs.Kind == pg.ReindexObjectType_REINDEX_OBJECT_SYSTEM:
		return "REINDEX SYSTEM", true
	}
	return "", false
}

func (s *Session) reindex(c *exec.Ctx, rs *pg.ReindexStmt, w pgwire.ResultWriter) error {
	o, err := reindexParams(rs)
	if err != nil {
		return err
	}
	mode := xact.ShareLock
	if o.concurrently {
		mode = xact.ShareUpdateExclusiveLock
	}
	switch rs.Kind {
	case pg.ReindexObjectType_REINDEX_OBJECT_INDEX:
		ix, err := s.reindexTarget(c, rs.Relation)
		if err != nil {
			return err
		}
		if ix.Kind != catalog.KindIndex {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not an index", ix.Name)
		}
		table, err := s.eng.Catalog.ByOID(c.Tx, ix.Index.RelID)
		if err != nil || table == nil {
			return err
		}
		if err := s.lockForReindex(c, table, mode); err != nil {
			return err
		}
		if err := s.reindexTable(c, table, map[uint32]bool{ix.OID: true}, o, w); err != nil {
			return err
		}
	case pg.ReindexObjectType_REINDEX_OBJECT_TABLE:
		table, err := s.reindexTarget(c, rs.Relation)
		if err != nil {
			return err
		}
		if table.Kind != catalog.KindTable {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table or materialized view", table.Name)
		}
		if err := s.lockForReindex(c, table, mode); err != nil {
			return err
		}
		if len(table.Indexes) == 0 {
			msg := "table \"%s\" has no indexes to reindex"
			if o.concurrently {
				msg = "table \"%s\" has no indexes that can be reindexed concurrently"
			}
			w.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", msg, table.Name))
		}
		if err := s.reindexTable(c, table, nil, o, w); err != nil {
			return err
		}
	case pg.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		nsp, err := s.eng.Catalog.NamespaceOID(c.Tx, rs.Name)
		if err != nil {
			return err
		}
		if err := s.reindexTables(c, func(r *catalog.Relation) bool { return r.Namespace == nsp }, mode, o, w); err != nil {
			return err
		}
	case pg.ReindexObjectType_REINDEX_OBJECT_DATABASE, pg.ReindexObjectType_REINDEX_OBJECT_SYSTEM:
		if rs.Name != "" && rs.Name != catalog.DatabaseName {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "can only reindex the currently open database")
		}
		if rs.Kind == pg.ReindexObjectType_REINDEX_OBJECT_SYSTEM {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "REINDEX SYSTEM is not supported: tidal's system catalogs have no indexes of their own to rebuild")
		}
		if err := s.reindexTables(c, func(*catalog.Relation) bool { return true }, mode, o, w); err != nil {
			return err
		}
	default:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of REINDEX is not supported")
	}
	return w.CommandComplete("REINDEX")
}

func (s *Session) reindexTarget(c *exec.Ctx, rv *pg.RangeVar) (*catalog.Relation, error) {
	rel, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err
	}
	if rel == nil {
		name := rv.Relname
		if rv.Schemaname != "" {
			name = rv.Schemaname + "." + name
		}
		return nil, pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	return rel, checkOtherTemp(c, rel, "reindex")
}

func (s *Session) lockForReindex(c *exec.Ctx, table *catalog.Relation, mode xact.LockMode) error {
	return s.lockRel(c, table.OID, mode)
}

// reindexTables reindexes every user table that keep accepts.
func (s *Session) reindexTables(c *exec.Ctx, keep func(*catalog.Relation) bool, mode xact.LockMode, o reindexOptions, w pgwire.ResultWriter) error {
	tables, err := s.eng.Catalog.UserTables(c.Tx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if !keep(t) || len(t.Indexes) == 0 || c.Tx.IsOtherTemp(t) {
			continue
		}
		if err := s.lockForReindex(c, t, mode); err != nil {
			return err
		}
		if err := s.reindexTable(c, t, nil, o, w); err != nil {
			return err
		}
	}
	return nil
}

// reindexTable gives the chosen indexes of table (all of them when only
// is nil) new files and builds them from the table's rows.
func (s *Session) reindexTable(c *exec.Ctx, table *catalog.Relation, only map[uint32]bool, o reindexOptions, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	var chosen []uint32
	for _, ix := range table.Indexes {
		if only != nil && !only[ix.OID] {
			continue
		}
		if err := s.lockRel(c, ix.OID, xact.AccessExclusiveLock); err != nil {
			return err
		}
		if _, err := s.eng.Catalog.NewRelFileNode(c.Tx, ix); err != nil {
			return err
		}
		chosen = append(chosen, ix.OID)
	}
	nt, err := s.eng.Catalog.ByOID(c.Tx, table.OID)
	if err != nil {
		return err
	}
	for _, oid := range chosen {
		for _, ix := range nt.Indexes {
			if ix.OID != oid {
				continue
			}
			start, ru := time.Now(), rusage()
			if err := exec.BuildIndex(c, nt, ix); err != nil {
				return err
			}
			if o.verbose {
				ru2 := rusage()
				w.Notice(pgerr.Noticef(pgerr.SevInfo, "00000", "index \"%s\" was reindexed", ix.Name).
					WithDetail("CPU: user: %.2f s, system: %.2f s, elapsed: %.2f s",
						ru2.user-ru.user, ru2.sys-ru.sys, time.Since(start).Seconds()))
			}
		}
	}
	return nil
}

type cpuTimes struct{ user, sys float64 }

// rusage is the process's CPU time so far (PostgreSQL's VERBOSE reports
// its backend's; tidal's sessions share one process).
func rusage() cpuTimes {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return cpuTimes{}
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return cpuTimes{tv(ru.Utime), tv(ru.Stime)}
}
