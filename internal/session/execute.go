package session

import (
	"context"
	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
)

func (s *Session) execute(ctx context.Context, stmt *pg.Node, text string, w pgwire.ResultWriter) error {
	c := s.newCtx(ctx, w)
	switch {
	case stmt.GetSelectStmt() != nil && stmt.GetSelectStmt().IntoClause != nil:
		// The query is the statement without its INTO clause.
		sel := stmt.GetSelectStmt()
		into := sel.IntoClause
		sel.IntoClause = nil
		defer func() { sel.IntoClause = into }()
		return s.createTableAs(c, into, sel, false, w)
	case stmt.GetViewStmt() != nil:
		return s.createView(c, stmt.GetViewStmt(), w)
	case stmt.GetCreateTableAsStmt() != nil && stmt.GetCreateTableAsStmt().Objtype == pg.ObjectType_OBJECT_MATVIEW:
		return s.createMatView(c, stmt.GetCreateTableAsStmt(), w)
	case stmt.GetRefreshMatViewStmt() != nil:
		return s.refreshMatView(c, stmt.GetRefreshMatViewStmt(), w)
	case stmt.GetCreateTableAsStmt() != nil:
		ctas := stmt.GetCreateTableAsStmt()
		if ctas.Objtype != pg.ObjectType_OBJECT_TABLE || ctas.Query.GetSelectStmt() == nil {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE %s AS %s is not supported yet", strings.TrimPrefix(ctas.Objtype.String(), "OBJECT_"), stmtKind(ctas.Query))
		}
		return s.createTableAs(c, ctas.Into, ctas.Query.GetSelectStmt(), ctas.IfNotExists, w)
	case stmt.GetSelectStmt() != nil:
		p := &exec.Planner{C: c}
		node, cols, err := p.PlanSelect(stmt.GetSelectStmt())
		if err != nil {
			return err
		}
		n, err := sendRows(s.typeSettings(), w, cols, func(emit func(exec.Row) error) error { return exec.Run(c, node, emit) })
		if err != nil {
			return err
		}
		s.tracking.rows = int64(n)
		return w.CommandComplete("SELECT " + strconv.FormatInt(int64(n), 10))
	case stmt.GetInsertStmt() != nil, stmt.GetUpdateStmt() != nil, stmt.GetDeleteStmt() != nil:
		mt, err := s.planModify(c, stmt)
		if err != nil {
			return err
		}
		if mt.Returning != nil {
			if _, err := sendRows(s.typeSettings(), w, mt.RetCols, func(emit func(exec.Row) error) error { return exec.Run(c, mt, emit) }); err != nil {
				return err
			}
		} else if err := exec.Run(c, mt, nil); err != nil {
			return err
		}
		s.tracking.rows = int64(mt.Count)
		switch mt.Kind {
		case "Insert":
			return w.CommandComplete("INSERT 0 " + strconv.FormatInt(int64(mt.Count), 10))
		case "Update":
			return w.CommandComplete("UPDATE " + strconv.FormatInt(int64(mt.Count), 10))
		default:
			return w.CommandComplete("DELETE " + strconv.FormatInt(int64(mt.Count), 10))
		}
	case stmt.GetCreateExtensionStmt() != nil:
		return s.createExtension(stmt.GetCreateExtensionStmt(), w)
	case stmt.GetExplainStmt() != nil:
		return s.explain(c, stmt.GetExplainStmt(), text, w)
	case stmt.GetCreateStmt() != nil:
		return s.createTable(c, stmt.GetCreateStmt(), w)
	case stmt.GetIndexStmt() != nil:
		return s.createIndex(c, stmt.GetIndexStmt(), w)
	case stmt.GetDropStmt() != nil:
		return s.drop(c, stmt.GetDropStmt(), w)
	case stmt.GetAlterTableStmt() != nil:
		return s.alterTable(c, stmt.GetAlterTableStmt(), w)
	case stmt.GetRenameStmt() != nil:
		return s.rename(c, stmt.GetRenameStmt(), w)
	case stmt.GetCreateSeqStmt() != nil:
		return s.createSequence(c, stmt.GetCreateSeqStmt(), w)
	case stmt.GetAlterSeqStmt() != nil:
		return s.alterSequence(c, stmt.GetAlterSeqStmt(), w)
	case stmt.GetTruncateStmt() != nil:
		return s.truncate(c, stmt.GetTruncateStmt(), w)
	case stmt.GetReindexStmt() != nil:
		return s.reindex(c, stmt.GetReindexStmt(), w)
	case stmt.GetLockStmt() != nil:
		return s.lockTable(c, stmt.GetLockStmt(), w)
	case stmt.GetVacuumStmt() != nil:
		return s.vacuum(c, stmt.GetVacuumStmt(), w)
	case stmt.GetCreateRoleStmt() != nil, stmt.GetAlterRoleStmt() != nil, stmt.GetDropRoleStmt() != nil,
		stmt.GetGrantRoleStmt() != nil:
		return s.roleStmt(c, stmt, w)
	case stmt.GetReassignOwnedStmt() != nil:
		return s.reassignOwned(c, stmt.GetReassignOwnedStmt(), w)
	case stmt.GetDropOwnedStmt() != nil:
		return s.dropOwned(c, stmt.GetDropOwnedStmt(), w)
	case stmt.GetGrantStmt() != nil:
		return s.grantStmt(c, stmt.GetGrantStmt(), w)
	case stmt.GetCheckPointStmt() != nil:
		if err := s.eng.RequestCheckpoint(); err != nil {
			return err
		}
		return w.CommandComplete("CHECKPOINT")
	case stmt.GetVariableSetStmt() != nil:
		if vs := stmt.GetVariableSetStmt(); isRoleSetting(vs.Name) && vs.Kind != pg.VariableSetKind_VAR_RESET_ALL {
			return s.setIdentityStmt(c, vs, w)
		}
		return s.setStmt(stmt.GetVariableSetStmt(), w)
	case stmt.GetVariableShowStmt() != nil:
		return s.show(stmt.GetVariableShowStmt().Name, w)
	case stmt.GetCopyStmt() != nil:
		return s.copyStmt(c, stmt.GetCopyStmt(), w)
	case stmt.GetDiscardStmt() != nil:
		return s.discard(c, stmt.GetDiscardStmt(), w)
	case stmt.GetPrepareStmt() != nil, stmt.GetExecuteStmt() != nil, stmt.GetDeallocateStmt() != nil:
		return s.prepareStmt(ctx, c, stmt, w)
	case stmt.GetDeclareCursorStmt() != nil:
		return s.declareCursor(ctx, stmt.GetDeclareCursorStmt(), w)
	case stmt.GetFetchStmt() != nil:
		return s.fetchStmt(ctx, stmt.GetFetchStmt(), w)
	case stmt.GetClosePortalStmt() != nil:
		return s.closeCursorStmt(stmt.GetClosePortalStmt(), w)
	case stmt.GetListenStmt() != nil, stmt.GetUnlistenStmt() != nil, stmt.GetNotifyStmt() != nil:
		return s.listenStmt(stmt, w)
	case stmt.GetCreateFunctionStmt() != nil:
		return s.createFunction(c, stmt.GetCreateFunctionStmt(), w)
	case stmt.GetCreateTrigStmt() != nil:
		return s.createTrigger(c, stmt.GetCreateTrigStmt(), w)
	case stmt.GetConstraintsSetStmt() != nil:
		return s.setConstraints(c, stmt.GetConstraintsSetStmt(), w)
	case stmt.GetCallStmt() != nil:
		return s.callStmt(c, stmt.GetCallStmt(), w)
	case stmt.GetDoStmt() != nil:
		return s.doStmt(c, stmt.GetDoStmt(), w)
	case stmt.GetAlterFunctionStmt() != nil:
		return s.alterFunction(c, stmt.GetAlterFunctionStmt(), w)
	case stmt.GetCompositeTypeStmt() != nil:
		return s.createComposite(c, stmt.GetCompositeTypeStmt(), w)
	case stmt.GetCreateEnumStmt() != nil:
		return s.createEnum(c, stmt.GetCreateEnumStmt(), w)
	case stmt.GetAlterEnumStmt() != nil:
		return s.alterEnum(c, stmt.GetAlterEnumStmt(), w)
	case stmt.GetCreateDomainStmt() != nil:
		return s.createDomain(c, stmt.GetCreateDomainStmt(), w)
	case stmt.GetAlterDomainStmt() != nil:
		return s.alterDomain(c, stmt.GetAlterDomainStmt(), w)
	case stmt.GetAlterOwnerStmt() != nil && isRoutineObject(stmt.GetAlterOwnerStmt().ObjectType):
		return s.alterRoutineOwner(c, stmt.GetAlterOwnerStmt(), w)
	}
	if handled, err := s.executeSchemaStmt(c, stmt, w); handled {
		return err
	}
	return pgerr.Errorf(pgerr.FeatureNotSupported, "statement %s is not supported yet", stmtKind(stmt))
}

func stmtKind(n *pg.Node) string {
	s := n.String()
	if i := strings.IndexByte(s, ':'); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func (s *Session) planModify(c *exec.Ctx, stmt *pg.Node) (*exec.ModifyTable, error) {
	p := &exec.Planner{C: c}
	switch {
	case stmt.GetInsertStmt() != nil:
		return p.PlanInsert(stmt.GetInsertStmt())
	case stmt.GetUpdateStmt() != nil:
		return p.PlanUpdate(stmt.GetUpdateStmt())
	default:
		return p.PlanDelete(stmt.GetDeleteStmt())
	}
}

func defBool(de *pg.DefElem) (bool, error) {
	if de.Arg == nil {
		return true, nil
	}
	var v string
	switch {
	case de.Arg.GetString_() != nil:
		v = de.Arg.GetString_().Sval
	case de.Arg.GetAConst() != nil:
		ac := de.Arg.GetAConst()
		switch {
		case ac.GetSval() != nil:
			v = ac.GetSval().Sval
		case ac.GetIval() != nil:
			v = fmt.Sprint(ac.GetIval().Ival)
		case ac.GetBoolval() != nil:
			return ac.GetBoolval().Boolval, nil
		}
	case de.Arg.GetBoolean() != nil:
		return de.Arg.GetBoolean().Boolval, nil
	case de.Arg.GetInteger() != nil:
		return de.Arg.GetInteger().Ival != 0, nil
	}
	switch strings.ToLower(v) {
	case "true", "on", "1", "yes":
		return true, nil
	case "false", "off", "0", "no":
		return false, nil
	}
	return false, pgerr.Errorf(pgerr.SyntaxError, "%s requires a Boolean value", de.Defname)
}

func (s *Session) explain(c *exec.Ctx, es *pg.ExplainStmt, text string, w pgwire.ResultWriter) error {
	opt := exec.ExplainOptions{Costs: true, Timing: true}
	summarySet := false
	for _, o := range es.Options {
		de := o.GetDefElem()
		switch de.Defname {
		case "analyze", "buffers", "wal", "costs", "timing", "verbose", "summary", "settings", "generic_plan", "memory", "serialize":
			b, err := defBool(de)
			if err != nil {
				return err
			}
			switch de.Defname {
			case "analyze":
				opt.Analyze = b
			case "buffers":
				opt.Buffers = b
			case "wal":
				opt.WAL = b
			case "costs":
				opt.Costs = b
			case "timing":
				opt.Timing = b
			case "verbose":
				opt.Verbose = b
			case "summary":
				opt.Summary, summarySet = b, true
			case "settings":
				opt.Settings = b
			}
		case "format":
			f, err := explainFormat(de)
			if err != nil {
				return err
			}
			opt.Format = f
		default:
			return pgerr.Errorf(pgerr.SyntaxError, "unrecognized EXPLAIN option \"%s\"", de.Defname)
		}
	}
	if !summarySet {
		opt.Summary = opt.Analyze
	}
	if opt.WAL && !opt.Analyze {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "EXPLAIN option WAL requires ANALYZE")
	}
	if !opt.Analyze {
		opt.Timing = false
	}
	s.explainContext(text, &opt)
	planStart := time.Now()
	before := *c.U()
	p := &exec.Planner{C: c}
	var node exec.Node
	var err error
	q := es.Query
	if dc := q.GetDeclareCursorStmt(); dc != nil {
		q = dc.Query // EXPLAIN DECLARE explains the cursor's query
	}
	switch {
	case q.GetSelectStmt() != nil:
		node, _, err = p.PlanSelect(q.GetSelectStmt())
	case q.GetInsertStmt() != nil, q.GetUpdateStmt() != nil, q.GetDeleteStmt() != nil:
		node, err = s.planModify(c, q)
	default:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "EXPLAIN of this statement is not supported")
	}
	if err != nil {
		return err
	}
	planUsage := c.U().Sub(before)
	planTime := time.Since(planStart)
	var execTime time.Duration
	if opt.Analyze {
		c.Instrument = true
		c.Timing = opt.Timing
		start := time.Now()
		if err := exec.Run(c, node, nil); err != nil {
			return err
		}
		execTime = time.Since(start)
	}
	lines := exec.Explain(node, opt, planUsage, planTime, execTime)
	fields := []pgwire.FieldDesc{{Name: "QUERY PLAN", TypeOID: explainResultType(opt.Format), TypeLen: -1, TypeMod: -1}}
	if err := w.RowDescription(fields); err != nil {
		return err
	}
	for _, l := range lines {
		if err := w.DataRow([][]byte{[]byte(l)}); err != nil {
			return err
		}
	}
	return w.CommandComplete("EXPLAIN")
}

func (s *Session) setStmt(vs *pg.VariableSetStmt, w pgwire.ResultWriter) error {
	if vs.IsLocal && !s.inTransactionBlock() {
		// It still applies, for the rest of the implicit transaction.
		w.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks"))
	}
	switch vs.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		var parts []string
		for _, a := range vs.Args {
			ac := a.GetAConst()
			switch {
			case ac == nil:
				if tc := a.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil {
					if z, ok, err := intervalTimeZone(vs.Name, tc); ok {
						if err != nil {
							return err
						}
						parts = append(parts, z)
						continue
					}
					parts = append(parts, tc.Arg.GetAConst().GetSval().GetSval())
				}
			case ac.GetSval() != nil:
				parts = append(parts, ac.GetSval().Sval)
			case ac.GetIval() != nil:
				parts = append(parts, fmt.Sprint(ac.GetIval().Ival))
			case ac.GetFval() != nil:
				parts = append(parts, ac.GetFval().Fval)
			case ac.GetBoolval() != nil:
				parts = append(parts, fmt.Sprint(ac.GetBoolval().Boolval))
			}
		}
		if err := s.set(vs.Name, strings.Join(parts, ", "), vs.IsLocal); err != nil {
			return err
		}
	case pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET:
		d, err := guc.Lookup(vs.Name)
		if err != nil {
			return err
		}
		if err := s.checkSetPermission(d); err != nil {
			return err
		}
		s.changeSetting(strings.ToLower(d.Name), noSetting, vs.IsLocal)
	case pg.VariableSetKind_VAR_RESET_ALL:
		for k := range s.settings {
			if isRoleSetting(k) || k == "is_superuser" {
				continue // GUC_NO_RESET_ALL
			}
			s.changeSetting(k, noSetting, false)
		}
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION … / SET SESSION CHARACTERISTICS AS TRANSACTION …
		prefix := ""
		if vs.Name == "SESSION CHARACTERISTICS" {
			prefix = "default_"
		} else if !s.inTransactionBlock() {
			w.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.NoActiveSQLTransaction, "SET TRANSACTION can only be used in transaction blocks"))
		}
		if err := s.applyModeOptions(vs.Args, prefix); err != nil {
			return err
		}
	default:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "this form of SET is not supported yet")
	}
	if vs.Kind == pg.VariableSetKind_VAR_RESET || vs.Kind == pg.VariableSetKind_VAR_RESET_ALL {
		return w.CommandComplete("RESET")
	}
	return w.CommandComplete("SET")
}

func (s *Session) show(name string, w pgwire.ResultWriter) error {
	if strings.EqualFold(name, "all") {
		fields := []pgwire.FieldDesc{{Name: "name", TypeOID: types.TextOID, TypeLen: -1, TypeMod: -1}, {Name: "setting", TypeOID: types.TextOID, TypeLen: -1, TypeMod: -1}, {Name: "description", TypeOID: types.TextOID, TypeLen: -1, TypeMod: -1}}
		if err := w.RowDescription(fields); err != nil {
			return err
		}
		shown := 0
		for _, n := range guc.Names() {
			d, _ := guc.Lookup(n)
			if !d.Shown() {
				continue
			}
			w.DataRow([][]byte{[]byte(d.Name), []byte(s.Get(n)), []byte(d.ShortDesc())})
			shown++
		}
		return w.CommandComplete(fmt.Sprintf("SHOW %d", shown))
	}
	d, err := guc.Lookup(name)
	if err != nil {
		return err
	}
	val := s.Get(name)
	if strings.EqualFold(d.Name, "transaction_isolation") {
		val = s.Setting("transaction_isolation")
	}
	fields := []pgwire.FieldDesc{{Name: d.Name, TypeOID: types.TextOID, TypeLen: -1, TypeMod: -1}}
	if err := w.RowDescription(fields); err != nil {
		return err
	}
	if err := w.DataRow([][]byte{[]byte(val)}); err != nil {
		return err
	}
	return w.CommandComplete("SHOW")
}

// analyzeRel fills relpages and reltuples (ANALYZE) by counting the
// table's live rows.
func (s *Session) analyzeRel(c *exec.Ctx, rel *catalog.Relation) error {
	nb, err := rel.Table.NBlocks()
	if err != nil {
		return err
	}
	sc, err := rel.Table.BeginScan(c.U(), c.Tx.Heap, tableam.ScanOptions{Interrupts: c.Interrupts, Maintenance: true})
	if err != nil {
		return err
	}
	defer sc.Close()
	var n int64
	for {
		_, _, ok, err := sc.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		n++
	}
	if err := s.eng.Catalog.SetStats(c.Tx, rel.OID, int32(nb), float32(n)); err != nil {
		return err
	}
	s.eng.Stats.Analyzed(rel.OID, s.autovacuum != nil, n, time.Now())
	for _, ix := range rel.Indexes {
		inb, err := s.eng.Smgr.NBlocks(smgrRel(ix.RelFileNode), 0)
		if err != nil {
			return err
		}
		if err := s.eng.Catalog.SetStats(c.Tx, ix.OID, int32(inb), float32(n)); err != nil {
			return err
		}
	}
	return nil
}

var _ = stats.Usage{}
