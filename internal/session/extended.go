package session

// The extended query protocol: prepared statements, portals and the
// implicit transaction of a batch (the messages up to Sync).
//
// A prepared statement keeps the parse tree, the parameter types (declared
// by the client, or inferred from context while the statement is analyzed
// at Parse; still unknown ones become text) and the result columns. Each
// Execute plans the statement again with those parameter types, unless a
// plan kept from an earlier execution is still valid (plancache.go: same
// catalog version and settings), so plans cannot go stale after DDL. If
// DDL changed the result columns, Execute fails with 0A000 "cached plan
// must not change result type", as PostgreSQL does (pgx then re-prepares).
//
// A portal of a SELECT / INSERT / UPDATE / DELETE keeps its plan open
// between Executes: Execute with a row limit sends that many rows and
// suspends; the next Execute continues from the same executor state, with
// the snapshot and command id the portal started with. Other statements
// (utility commands) run to completion at their first Execute and their
// rows, if any, are handed out from a buffer.
//
// Transactions follow PostgreSQL: outside BEGIN … COMMIT, the messages up
// to Sync run in one implicit transaction that Sync commits; an error
// aborts it (or fails the explicit block) and pgwire then skips to Sync.
// Portals belong to their transaction and are dropped when it ends.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

var _ pgwire.ExtendedSession = (*Session)(nil)

// SQLSTATEs of prepared statements and portals.
const (
	codeDuplicatePreparedStatement  = "42P05"
	codeDuplicateCursor             = "42P03"
	codeInvalidSQLStatementName     = "26000"
	codeInvalidCursorName           = "34000"
	codeIndeterminateDatatype       = "42P18"
	codeInvalidBinaryRepresentation = "22P03"
)

// prepared is a prepared statement.
type prepared struct {
	name       string
	text       string
	stmt       *pg.Node // nil: empty query
	paramTypes []types.Type
	cols       []exec.Column // result columns; nil: no rows
	fromSQL    bool          // created by PREPARE
	// nparams is the highest $n in stmt, when known (paramsKnown)
	nparams     int
	paramsKnown bool
	// an is the reusable analysis the statement was made with (nil for
	// none); it may hold a plan to reuse (plancache.go)
	an *analysis
}

// portal is a bound statement, possibly part-way through execution.
type portal struct {
	name    string
	ps      *prepared
	params  []types.Datum
	formats []int16 // per result column
	txStart time.Time
	// createLevel is the savepoint level the portal was bound at; failed:
	// its own execution failed inside a savepoint that was rolled back,
	// so it cannot run again (portallife.go).
	createLevel int
	failed      bool
	created     int64 // µs since 2000-01-01 (pg_cursors)

	started bool
	done    bool
	// plannable statements: the open plan
	c      *exec.Ctx
	node   exec.Node
	mt     *exec.ModifyTable
	snap   *xact.Snapshot
	cid    uint32
	cached *cachedPlan // node is a kept plan, lent to this portal
	// utility statements: buffered results
	rows  [][][]byte
	tag   string
	empty bool
	// where notices go during the current Execute
	w pgwire.ResultWriter
}

type extState struct {
	stmts   map[string]*prepared
	portals map[string]*portal
}

func (s *Session) ext() *extState {
	if s.extended == nil {
		s.extended = &extState{stmts: map[string]*prepared{}, portals: map[string]*portal{}}
	}
	return s.extended
}

func isPlannable(n *pg.Node) bool {
	return n.GetSelectStmt() != nil || n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil || n.GetDeleteStmt() != nil
}

// isTransactionExit reports the statements a failed block still runs
// (PostgreSQL's IsTransactionExitStmt).
func isTransactionExit(n *pg.Node) bool {
	ts := n.GetTransactionStmt()
	if ts == nil {
		return false
	}
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK,
		pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO, pg.TransactionStmtKind_TRANS_STMT_PREPARE:
		return true
	}
	return false
}

func abortedError() error {
	return pgerr.Errorf(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// maxParam is the highest $n in a parse tree.
func maxParam(m proto.Message) int {
	n := 0
	parser.Walk(m, func(m proto.Message) bool {
		if pr, ok := m.(*pg.ParamRef); ok {
			n = max(n, int(pr.Number))
		}
		return true
	})
	return n
}

func (p *portal) close() {
	if p.node != nil && p.c != nil && !p.done {
		exec.Close(p.c, p.node)
	}
	p.releasePlan()
	p.node = nil
	p.done = true
}

// portalsRunning reports an open, suspended plan (its snapshot must stay).
func (s *Session) portalsRunning() bool {
	if s.extended == nil {
		return false
	}
	for _, p := range s.extended.portals {
		if p.started && !p.done && p.node != nil {
			return true
		}
	}
	return false
}

// withStatement runs f as one statement step: with statement_timeout, and
// cancellable by a CancelRequest. Cancellation errors get PostgreSQL's
// wording.
func (s *Session) withStatement(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, end := s.statementContext(ctx)
	defer end()
	return s.interruptedError(ctx, s.recovering(func() error { return f(ctx) }))
}

// ---------------------------------------------------------------------------
// Parse

// Parse implements pgwire.ExtendedSession.
func (s *Session) Parse(ctx context.Context, name, query string, paramOIDs []uint32) error {
	s.reportActive(query)
	s.gcPortals()
	err := s.parse(ctx, name, query, paramOIDs)
	if err != nil {
		s.extFail()
	}
	return err
}

func (s *Session) parse(ctx context.Context, name, query string, paramOIDs []uint32) error {
	pt, err := s.parseText(query)
	if err != nil {
		return err
	}
	if pt.multi {
		return pgerr.Errorf(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	ps := &prepared{name: name, text: pt.text, stmt: pt.stmt, nparams: pt.nparams, paramsKnown: true}
	if s.failed && (ps.stmt == nil || !isTransactionExit(ps.stmt)) {
		return abortedError()
	}
	st := s.ext()
	if name != "" {
		if _, dup := st.stmts[name]; dup {
			return pgerr.Errorf(codeDuplicatePreparedStatement, "prepared statement \"%s\" already exists", name)
		}
	}
	var declared []types.Type
	for _, oid := range paramOIDs {
		t := types.Unknown
		if oid != 0 {
			var ok bool
			if t, ok = types.TypeByOID(oid); !ok {
				return pgerr.Errorf(pgerr.UndefinedObject, "type with OID %d does not exist", oid)
			}
		}
		declared = append(declared, t)
	}
	if a := s.reusableAnalysis(pt, paramOIDs); a != nil {
		// What analyze would do besides planning: the statement's
		// transaction and snapshot.
		if !s.inTx {
			s.begin()
		}
		if err := s.statementSnapshot(); err != nil {
			return err
		}
		ps.paramTypes, ps.cols, ps.an = a.paramTypes, a.cols, a
	} else {
		v := s.eng.Catalog.Version()
		if err := s.analyze(ctx, ps, declared, false); err != nil {
			return err
		}
		ps.an = s.keepAnalysis(pt, paramOIDs, v, ps)
	}
	if name == "" {
		delete(st.stmts, "")
	}
	st.stmts[name] = ps
	return nil
}

// analyze fills in a prepared statement's parameter types and result
// columns, planning it once if it is plannable (inside the current or a
// new implicit transaction, as PostgreSQL's parse analysis).
//
// nested: called from inside a running statement (SQL PREPARE), which has
// its transaction, snapshot and cancellation set up already.
func (s *Session) analyze(ctx context.Context, ps *prepared, declared []types.Type, nested bool) error {
	n := len(declared)
	if ps.stmt != nil {
		if !ps.paramsKnown {
			ps.nparams, ps.paramsKnown = maxParam(ps.stmt), true
		}
		n = max(n, ps.nparams)
	}
	pts := make([]types.Type, n)
	for i := range pts {
		pts[i] = types.Unknown
		if i < len(declared) {
			pts[i] = declared[i]
		}
	}
	switch {
	case ps.stmt == nil:
	case isPlannable(ps.stmt), ps.stmt.GetDeclareCursorStmt() != nil:
		plan := func(ctx context.Context) error {
			c := s.newCtx(ctx, discardWriter{})
			if dc := ps.stmt.GetDeclareCursorStmt(); dc != nil {
				// DECLARE's parameters are its query's (it returns no rows).
				_, _, _, err := s.planStmt(c, dc.Query, pts)
				return err
			}
			_, cols, _, err := s.planStmt(c, ps.stmt, pts)
			ps.cols = cols
			return err
		}
		if nested {
			if err := plan(ctx); err != nil {
				return err
			}
			break
		}
		if !s.inTx {
			s.begin()
		}
		if err := s.statementSnapshot(); err != nil {
			return err
		}
		if err := s.withStatement(ctx, plan); err != nil {
			return err
		}
	default:
		if n > 0 && ps.stmt.GetExecuteStmt() == nil {
			return pgerr.Errorf(codeIndeterminateDatatype, "could not determine data type of parameter $1")
		}
		cols, err := s.utilityCols(ps.stmt)
		if err != nil {
			return err
		}
		ps.cols = cols
	}
	for i := range pts {
		if pts[i].OID == types.UnknownOID {
			pts[i] = types.Text
		}
	}
	ps.paramTypes = pts
	return nil
}

// planStmt plans a SELECT, INSERT, UPDATE or DELETE with parameter types
// pts (which inference may fill in).
func (s *Session) planStmt(c *exec.Ctx, stmt *pg.Node, pts []types.Type) (exec.Node, []exec.Column, *exec.ModifyTable, error) {
	p := &exec.Planner{C: c, ParamTypes: pts}
	var mt *exec.ModifyTable
	var err error
	switch {
	case stmt.GetSelectStmt() != nil:
		node, cols, err := p.PlanSelect(stmt.GetSelectStmt())
		return node, cols, nil, err
	case stmt.GetInsertStmt() != nil:
		mt, err = p.PlanInsert(stmt.GetInsertStmt())
	case stmt.GetUpdateStmt() != nil:
		mt, err = p.PlanUpdate(stmt.GetUpdateStmt())
	case stmt.GetDeleteStmt() != nil:
		mt, err = p.PlanDelete(stmt.GetDeleteStmt())
	default:
		return nil, nil, nil, pgerr.Errorf(pgerr.InternalError, "statement is not plannable")
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var cols []exec.Column
	if mt.Returning != nil {
		cols = mt.RetCols
	}
	return mt, cols, mt, nil
}

// utilityCols are the result columns of a statement that is not planned.
func (s *Session) utilityCols(stmt *pg.Node) ([]exec.Column, error) {
	text := func(n string) exec.Column { return exec.Column{Name: n, Type: types.Text} }
	switch {
	case stmt.GetVariableShowStmt() != nil:
		name := stmt.GetVariableShowStmt().Name
		if strings.EqualFold(name, "all") {
			return []exec.Column{text("name"), text("setting"), text("description")}, nil
		}
		return []exec.Column{text(strings.ToLower(name))}, nil
	case stmt.GetExplainStmt() != nil:
		return []exec.Column{text("QUERY PLAN")}, nil
	case stmt.GetFetchStmt() != nil && !stmt.GetFetchStmt().Ismove:
		return s.cursorColumns(stmt.GetFetchStmt().Portalname), nil
	case stmt.GetExecuteStmt() != nil:
		ps := s.ext().stmts[stmt.GetExecuteStmt().Name]
		if ps == nil {
			return nil, pgerr.Errorf(codeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", stmt.GetExecuteStmt().Name)
		}
		return ps.cols, nil
	}
	return nil, nil
}

// ---------------------------------------------------------------------------
// Bind

// Bind implements pgwire.ExtendedSession.
func (s *Session) Bind(ctx context.Context, portalName, stmtName string, paramFormats []int16, params [][]byte, resultFormats []int16) error {
	s.gcPortals()
	err := s.bind(portalName, stmtName, paramFormats, params, resultFormats)
	if err != nil {
		s.extFail()
	}
	return err
}

func (s *Session) bind(portalName, stmtName string, paramFormats []int16, params [][]byte, resultFormats []int16) error {
	st := s.ext()
	ps := st.stmts[stmtName]
	if ps == nil {
		if stmtName == "" {
			return pgerr.Errorf(codeInvalidSQLStatementName, "unnamed prepared statement does not exist")
		}
		return pgerr.Errorf(codeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", stmtName)
	}
	if len(paramFormats) > 1 && len(paramFormats) != len(params) {
		return pgerr.Errorf(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", len(paramFormats), len(params))
	}
	if len(params) != len(ps.paramTypes) {
		return pgerr.Errorf(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", len(params), stmtName, len(ps.paramTypes))
	}
	if s.failed && (ps.stmt == nil || !isTransactionExit(ps.stmt)) {
		return abortedError()
	}
	if portalName != "" && s.nameTaken(portalName) {
		// Portals and cursors share one namespace.
		return pgerr.Errorf(codeDuplicateCursor, "cursor \"%s\" already exists", portalName)
	}
	vals := make([]types.Datum, len(params))
	for i, b := range params {
		if b == nil {
			continue
		}
		f := int16(0)
		if len(paramFormats) == 1 {
			f = paramFormats[0]
		} else if len(paramFormats) > 1 {
			f = paramFormats[i]
		}
		t := ps.paramTypes[i]
		var err error
		switch f {
		case 0:
			vals[i], err = types.ParseWith(s.typeSettings(), t, string(b))
			if err != nil {
				if pe, ok := err.(*pgerr.Error); ok && pe.Where == "" {
					pe.Where = fmt.Sprintf("unnamed portal parameter $%d = '%s'", i+1, b)
					if portalName != "" {
						pe.Where = fmt.Sprintf("portal \"%s\" parameter $%d = '%s'", portalName, i+1, b)
					}
				}
			}
		case 1:
			vals[i], err = types.ParseBinary(t, b)
			if err != nil && pgerr.Code(err) == types.ErrBinaryFormat {
				err = pgerr.Errorf(codeInvalidBinaryRepresentation, "incorrect binary data format in bind parameter %d", i+1)
			}
		default:
			err = pgerr.Errorf(pgerr.ProtocolViolation, "unsupported format code: %d", f)
		}
		if err != nil {
			return err
		}
	}
	ncols := len(ps.cols)
	if len(resultFormats) > 1 && len(resultFormats) != ncols {
		return pgerr.Errorf(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(resultFormats), ncols)
	}
	formats := make([]int16, ncols)
	for i := range formats {
		if len(resultFormats) == 1 {
			formats[i] = resultFormats[0]
		} else if len(resultFormats) > 1 {
			formats[i] = resultFormats[i]
		}
		if formats[i] != 0 && formats[i] != 1 {
			return pgerr.Errorf(pgerr.ProtocolViolation, "unsupported format code: %d", formats[i])
		}
	}
	// Bind opens the implicit transaction the portal belongs to.
	if !s.inTx {
		s.begin()
	}
	if old := st.portals[portalName]; old != nil {
		old.close()
	}
	level := s.proc.SubLevel()
	st.portals[portalName] = &portal{name: portalName, ps: ps, params: vals, formats: formats, txStart: s.txStart, createLevel: level,
		created: types.TimestampFromTime(time.Now().UTC())}
	return nil
}

// ---------------------------------------------------------------------------
// Describe, Close, Sync

func fieldDescs(cols []exec.Column, formats []int16) []pgwire.FieldDesc {
	fields := make([]pgwire.FieldDesc, len(cols))
	for i, c := range cols {
		l := c.Type.Layout()
		fields[i] = pgwire.FieldDesc{Name: c.Name, TableOID: c.Table, ColumnAttr: uint16(c.Attr), TypeOID: c.Type.OID, TypeLen: l.Len, TypeMod: c.Type.Typmod}
		if formats != nil {
			fields[i].Format = formats[i]
		}
	}
	return fields
}

// DescribeStatement implements pgwire.ExtendedSession.
func (s *Session) DescribeStatement(name string) ([]uint32, []pgwire.FieldDesc, error) {
	s.gcPortals()
	ps := s.ext().stmts[name]
	if ps == nil {
		s.extFail()
		if name == "" {
			return nil, nil, pgerr.Errorf(codeInvalidSQLStatementName, "unnamed prepared statement does not exist")
		}
		return nil, nil, pgerr.Errorf(codeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
	}
	if s.failed && ps.cols != nil {
		// As PostgreSQL: only a statement without result columns can be
		// described in a failed block (the transaction exits).
		s.extFail()
		return nil, nil, abortedError()
	}
	oids := make([]uint32, len(ps.paramTypes))
	for i, t := range ps.paramTypes {
		oids[i] = t.OID
	}
	if ps.cols == nil {
		return oids, nil, nil
	}
	return oids, fieldDescs(ps.cols, nil), nil
}

// DescribePortal implements pgwire.ExtendedSession.
func (s *Session) DescribePortal(name string) ([]pgwire.FieldDesc, error) {
	s.gcPortals()
	p := s.ext().portals[name]
	if cur := s.cursors.get(name); p == nil && cur != nil && !s.failed {
		return fieldDescs(cur.cols, make([]int16, len(cur.cols))), nil
	}
	if p == nil {
		s.extFail()
		return nil, pgerr.Errorf(codeInvalidCursorName, "portal \"%s\" does not exist", name)
	}
	if s.failed && p.ps.cols != nil {
		s.extFail()
		return nil, abortedError()
	}
	if p.ps.cols == nil {
		return nil, nil
	}
	return fieldDescs(p.ps.cols, p.formats), nil
}

// CloseStatement implements pgwire.ExtendedSession.
func (s *Session) CloseStatement(name string) error {
	delete(s.ext().stmts, name)
	return nil
}

// ClosePortal implements pgwire.ExtendedSession.
func (s *Session) ClosePortal(name string) error {
	st := s.ext()
	if p := st.portals[name]; p != nil {
		p.close()
		delete(st.portals, name)
	} else if cur := s.cursors.get(name); cur != nil {
		s.cursors.drop(cur)
		s.keepCursorSnapshots()
	}
	return nil
}

// Sync implements pgwire.ExtendedSession: outside an explicit block it
// commits the batch's implicit transaction.
func (s *Session) Sync() error {
	defer s.reportIdle()
	if s.inTx && !s.inBlock {
		s.dropPortals(nil)
		return s.commit()
	}
	s.gcPortals()
	return nil
}

// ---------------------------------------------------------------------------
// Execute

// Execute implements pgwire.ExtendedSession.
func (s *Session) Execute(ctx context.Context, name string, maxRows int, w pgwire.ResultWriter) (bool, error) {
	s.gcPortals()
	p := s.ext().portals[name]
	if cur := s.cursors.get(name); p == nil && cur != nil {
		if s.failed {
			s.extFail()
			return false, abortedError()
		}
		suspended, err := s.executeCursor(ctx, cur, maxRows, w)
		if err != nil {
			s.extFail()
		}
		return suspended, err
	}
	if p == nil {
		s.extFail()
		return false, pgerr.Errorf(codeInvalidCursorName, "portal \"%s\" does not exist", name)
	}
	p.w = w
	defer func() { p.w = nil }()
	s.reportActive(p.ps.text)
	if s.failed && (p.ps.stmt == nil || !isTransactionExit(p.ps.stmt)) {
		s.extFail()
		return false, abortedError()
	}
	if p.failed {
		s.extFail()
		return false, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", p.name)
	}
	if p.ps.stmt == nil {
		p.done = true
		return false, w.EmptyQuery()
	}
	if p.done {
		// Executing a completed portal again returns no more rows.
		return false, w.CommandComplete(p.completionTag(0))
	}
	var suspended bool
	var err error
	if isPlannable(p.ps.stmt) {
		suspended, err = s.runPlanned(ctx, p, maxRows, w)
	} else {
		suspended, err = s.runUtility(ctx, p, maxRows, w)
	}
	if err != nil {
		p.close()
		s.failingPortal = p
		s.extFail()
		s.failingPortal = nil
		return false, err
	}
	if !suspended && !s.portalsRunning() && !s.usesTxSnapshot() {
		s.eng.Xact.ResetXmin(s.proc)
	}
	return suspended, nil
}

// completionTag is the CommandComplete tag of a finished portal.
func (p *portal) completionTag(n int64) string {
	if p.mt != nil {
		switch p.mt.Kind {
		case "Insert":
			return "INSERT 0 " + strconv.FormatInt(int64(p.mt.Count), 10)
		case "Update":
			return "UPDATE " + strconv.FormatInt(int64(p.mt.Count), 10)
		default:
			return "DELETE " + strconv.FormatInt(int64(p.mt.Count), 10)
		}
	}
	if p.tag != "" {
		return p.tag
	}
	return "SELECT " + strconv.FormatInt(int64(n), 10)
}

func sameColumns(a, b []exec.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type.OID != b[i].Type.OID {
			return false
		}
	}
	return true
}

// runPlanned starts or resumes a portal of a plannable statement.
func (s *Session) runPlanned(ctx context.Context, p *portal, maxRows int, w pgwire.ResultWriter) (bool, error) {
	suspended := false
	err := s.withStatement(ctx, func(ctx context.Context) error {
		resumed := p.started
		if !p.started {
			if err := s.checkReadOnly(p.ps.stmt); err != nil {
				return err
			}
			if !s.inTx {
				s.begin()
				p.txStart = s.txStart
			}
			if err := s.statementSnapshot(); err != nil {
				return err
			}
			c := s.newCtx(ctx, noticeTo{p})
			c.Env.Params = p.params
			c.Env.Exec = c // subquery runners of a kept plan must use this execution's context
			node, cols, mt, err := s.portalPlan(c, p)
			if err != nil {
				return err
			}
			if !sameColumns(cols, p.ps.cols) {
				p.releasePlan()
				return pgerr.Errorf(pgerr.FeatureNotSupported, "cached plan must not change result type")
			}
			if err := exec.Open(c, node); err != nil {
				exec.Close(c, node)
				return err
			}
			p.started, p.c, p.node, p.mt = true, c, node, mt
			p.snap, p.cid = s.htx.Snap, s.htx.Cid
		} else {
			saveSnap, saveCid := s.htx.Snap, s.htx.Cid
			s.htx.Snap, s.htx.Cid = p.snap, p.cid
			defer func() { s.htx.Snap, s.htx.Cid = saveSnap, saveCid }()
			p.c.Context = ctx
		}
		cols := p.ps.cols
		vals := make([][]byte, len(cols))
		var buf []byte
		sent := 0
		for maxRows == 0 || sent < maxRows {
			if err := s.sig.state.Check(); err != nil {
				return err
			}
			row, err := exec.Next(p.c, p.node)
			if err != nil {
				return err
			}
			if row == nil {
				exec.Close(p.c, p.node)
				p.releasePlan()
				p.done = true
				if !resumed {
					s.nextCommand()
				}
				// The tag counts this Execute's rows, as PostgreSQL's.
				return w.CommandComplete(p.completionTag(int64(sent)))
			}
			buf = encodeRow(s.typeSettings(), buf[:0], vals, cols, p.formats, row)
			if err := w.DataRow(vals); err != nil {
				return err
			}
			sent++
		}
		suspended = true
		return nil
	})
	return suspended, err
}

// encodeRow formats a row's values in the result formats into vals,
// using buf as the backing store.
func encodeRow(st *types.Settings, buf []byte, vals [][]byte, cols []exec.Column, formats []int16, row exec.Row) []byte {
	starts := make([]int, len(cols)+1)
	for i := range cols {
		starts[i] = len(buf)
		if row[i].IsNull() {
			continue
		}
		if formats[i] == 1 {
			buf = types.AppendBinary(buf, cols[i].Type, row[i])
		} else {
			buf = types.AppendTextWith(st, buf, cols[i].Type, row[i])
		}
	}
	starts[len(cols)] = len(buf)
	for i := range cols {
		if row[i].IsNull() {
			vals[i] = nil
		} else {
			vals[i] = buf[starts[i]:starts[i+1]:starts[i+1]]
			if vals[i] == nil { // buf is still nil: every value so far was empty
				vals[i] = notNullEmpty
			}
		}
	}
	return buf
}

// runUtility runs a utility statement at its first Execute, buffering its
// rows, and hands the rows out maxRows at a time.
func (s *Session) runUtility(ctx context.Context, p *portal, maxRows int, w pgwire.ResultWriter) (bool, error) {
	if !p.started {
		p.started = true
		cw := &captureWriter{w: w, p: p}
		s.queryString = p.ps.text
		s.boundParams = boundParams{vals: p.params, types: p.ps.paramTypes}
		err := s.runStatement(ctx, p.ps.stmt, p.ps.text, cw, true)
		s.boundParams = boundParams{}
		if err != nil {
			return false, err
		}
		// Binary results of utility statements: their rows come as text.
		for ci, f := range p.formats {
			if f != 1 || ci >= len(p.ps.cols) || p.ps.cols[ci].Type.OID == types.TextOID {
				continue
			}
			t := p.ps.cols[ci].Type
			for _, r := range p.rows {
				if ci < len(r) && r[ci] != nil {
					if d, err := types.ParseWith(s.typeSettings(), t, string(r[ci])); err == nil {
						r[ci] = types.AppendBinary(nil, t, d)
					}
				}
			}
		}
	}
	if p.empty {
		p.done = true
		return false, w.EmptyQuery()
	}
	sent := 0
	for len(p.rows) > 0 && (maxRows == 0 || sent < maxRows) {
		if err := w.DataRow(p.rows[0]); err != nil {
			return false, err
		}
		p.rows = p.rows[1:]
		sent++
	}
	if maxRows > 0 && sent == maxRows && p.ps.cols != nil {
		// As PostgreSQL, no look-ahead: the next Execute ends the portal.
		return true, nil
	}
	p.done = true
	if p.tag == "" {
		return false, nil
	}
	return false, w.CommandComplete(p.tag)
}

// captureWriter buffers a utility statement's rows and tag; notices and
// COPY go straight to the client.
type captureWriter struct {
	w pgwire.ResultWriter
	p *portal
}

func (c *captureWriter) RowDescription([]pgwire.FieldDesc) error { return nil }
func (c *captureWriter) DataRow(values [][]byte) error {
	row := make([][]byte, len(values))
	for i, v := range values {
		if v != nil {
			row[i] = append([]byte{}, v...)
		}
	}
	c.p.rows = append(c.p.rows, row)
	return nil
}
func (c *captureWriter) CommandComplete(tag string) error { c.p.tag = tag; return nil }
func (c *captureWriter) EmptyQuery() error                { c.p.empty = true; return nil }
func (c *captureWriter) Notice(n *pgerr.Error) error      { return c.w.Notice(n) }

// The copy sub-protocol goes straight to the client.
func (c *captureWriter) copy() (pgwire.CopyWriter, error) {
	cw, ok := c.w.(pgwire.CopyWriter)
	if !ok {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY FROM STDIN / TO STDOUT is not supported by this connection")
	}
	return cw, nil
}

func (c *captureWriter) CopyIn(format int8, ncols int) (io.Reader, error) {
	cw, err := c.copy()
	if err != nil {
		return nil, err
	}
	return cw.CopyIn(format, ncols)
}

func (c *captureWriter) CopyOut(format int8, ncols int) error {
	cw, err := c.copy()
	if err != nil {
		return err
	}
	return cw.CopyOut(format, ncols)
}

func (c *captureWriter) CopyData(p []byte) error {
	cw, err := c.copy()
	if err != nil {
		return err
	}
	return cw.CopyData(p)
}

func (c *captureWriter) CopyDone() error {
	cw, err := c.copy()
	if err != nil {
		return err
	}
	return cw.CopyDone()
}

// noticeTo sends a portal's notices to the Execute that runs it.
type noticeTo struct{ p *portal }

func (n noticeTo) RowDescription([]pgwire.FieldDesc) error { return nil }
func (n noticeTo) DataRow([][]byte) error                  { return nil }
func (n noticeTo) CommandComplete(string) error            { return nil }
func (n noticeTo) EmptyQuery() error                       { return nil }
func (n noticeTo) Notice(e *pgerr.Error) error {
	if n.p.w != nil {
		return n.p.w.Notice(e)
	}
	return nil
}

// discardWriter drops everything (parse analysis).
type discardWriter struct{}

func (discardWriter) RowDescription([]pgwire.FieldDesc) error { return nil }
func (discardWriter) DataRow([][]byte) error                  { return nil }
func (discardWriter) CommandComplete(string) error            { return nil }
func (discardWriter) EmptyQuery() error                       { return nil }
func (discardWriter) Notice(*pgerr.Error) error               { return nil }
