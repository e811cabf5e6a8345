// Package session is one backend: it turns query strings into statements,
// runs each inside the right transaction (implicit or an explicit block,
// with PostgreSQL's failed-block rules), keeps the session's settings, and
// writes results through the wire layer's ResultWriter.
package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/tidal-db/tidal/internal/access/sequence"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
	"github.com/tidal-db/tidal/internal/xact"
)

// Server opens sessions on an engine; it implements pgwire.Engine.
type Server struct {
	Eng  *engine.Engine
	Conf map[string]string // tidal.conf and command-line settings

	mu       sync.Mutex
	sessions map[pgwire.CancelKey]*Session
	count    atomic.Int32

	beforeStatement atomic.Pointer[func(text string)] // tests (panics.go)
	parallelWorker  atomic.Pointer[func()]            // tests (panics.go)
}

// NewServer makes a session factory for eng.
func NewServer(eng *engine.Engine, conf map[string]string) *Server {
	if conf == nil {
		conf = map[string]string{}
	}
	return &Server{Eng: eng, Conf: conf, sessions: map[pgwire.CancelKey]*Session{}}
}

// Open implements pgwire.Engine.
func (s *Server) Open(startup map[string]string, key pgwire.CancelKey) (pgwire.Session, error) {
	user := startup["user"]
	db := startup["database"]
	if db == "" {
		db = user
	}
	role, err := s.loginRole(user)
	if err != nil {
		return nil, err
	}
	if db != "postgres" {
		return nil, pgerr.Errorf(pgerr.InvalidCatalogName, "database \"%s\" does not exist", db)
	}
	max := 100
	if v, ok := s.Conf["max_connections"]; ok {
		max, _ = strconv.Atoi(v)
	}
	if int(s.count.Add(1)) > max {
		s.count.Add(-1)
		return nil, pgerr.Errorf(pgerr.TooManyConnections, "sorry, too many clients already")
	}
	sess := newSession(s.Eng, s.Conf, int32(key.PID), role.OID)
	sess.srv, sess.key = s, key
	sess.setRole(role)
	for k, v := range startup {
		switch k {
		case "user", "database", "replication":
			continue
		case "options":
			if err := sess.applyOptions(v); err != nil {
				sess.Close()
				return nil, err
			}
			continue
		}
		if d, err := guc.Lookup(k); err == nil && (d.Context == guc.User || d.Context == guc.Superuser) {
			if err := sess.checkSetPermission(d); err != nil {
				sess.Close()
				return nil, err
			}
			if nv, err := d.Normalize(v); err == nil {
				if strings.EqualFold(d.Name, "TimeZone") {
					if nv, err = canonicalTimeZone(nv); err != nil {
						sess.Close()
						return nil, err
					}
				}
				if strings.EqualFold(d.Name, "DateStyle") {
					if nv, err = sess.canonicalDateStyle(nv); err != nil {
						sess.Close()
						return nil, err
					}
				}
				sess.storeSetting(strings.ToLower(d.Name), nv)
			}
		}
	}
	sess.publishClient(role.OID)
	s.mu.Lock()
	s.sessions[key] = sess
	s.mu.Unlock()
	return sess, nil
}

// Cancel implements pgwire.Engine.
func (s *Server) Cancel(key pgwire.CancelKey) {
	s.mu.Lock()
	sess := s.sessions[key]
	s.mu.Unlock()
	if sess != nil {
		sess.signal(interrupt.QueryCancel)
	}
}

// NewBackendPID implements pgwire.PIDAllocator: wire sessions and
// embedded ones draw their process IDs from one registry.
func (s *Server) NewBackendPID() uint32 { return uint32(s.Eng.Backends.NewPID()) }

// ServerParams implements pgwire.Engine.
func (s *Server) ServerParams(ps pgwire.Session) [][2]string {
	sess := ps.(*Session)
	var out [][2]string
	for _, n := range []string{"application_name", "client_encoding", "DateStyle", "default_transaction_read_only", "in_hot_standby", "integer_datetimes", "IntervalStyle", "is_superuser", "server_encoding", "server_version", "session_authorization", "standard_conforming_strings", "TimeZone"} {
		out = append(out, [2]string{n, sess.Get(n)})
	}
	return out
}

// Session is one backend.
type Session struct {
	eng *engine.Engine
	srv *Server
	key pgwire.CancelKey

	proc  *xact.Proc
	usage stats.Usage
	// statUsage is usage as last counted in pg_stat_database, endReason
	// how the wire layer says the session ends, timesFlushed when its
	// time counters were last added (activity.go).
	statUsage    stats.Usage
	endReason    stats.SessionEnd
	timesFlushed time.Time
	settings     map[string]string
	conf         map[string]string

	// transaction state
	inBlock    bool // explicit BEGIN … COMMIT
	failed     bool // a statement failed inside the block
	inTx       bool
	txStart    time.Time
	htx        tableam.Txn
	ctx        catalog.Txn
	combo      tableam.ComboCids
	snapshot   *xact.Snapshot // repeatable read: the transaction's snapshot
	snapTaken  bool           // a statement of this transaction took a snapshot
	isolation  string
	readOnly   bool // transaction_read_only of the running transaction
	deferrable bool // transaction_deferrable of the running transaction
	// savepoints are the block's open subtransactions, innermost last
	// (savepoint.go); txAborted: the top-level transaction was already
	// aborted by an error outside every savepoint (the block is failed).
	savepoints []*savepoint
	txAborted  bool
	// routineCache is what languages compiled of routines (plcalls.go).
	routineCache map[string]any
	gucs         gucStack // settings to restore per transaction level (gucstack.go)
	// settingsGen counts changes of settings (storeSetting).
	settingsGen uint64

	extended *extState // prepared statements and portals (extended.go)
	// failingPortal is the portal whose execution raised the error being
	// handled, if any (portallife.go).
	failingPortal *portal
	// multiStatement: the running simple Query holds several statements.
	multiStatement bool
	stmts          *stmtCache   // parse trees and analyses to reuse (stmtcache.go)
	tracking       stmtTracking // pg_stat_statements (stmtstats.go)
	seqs           sequence.Session
	temp           tempState       // temporary namespace and ON COMMIT actions (temp.go)
	tempFiles      *tempfile.Space // spill files of sorts and hashes (tempfiles.go)
	cursors        cursorSet       // DECLAREd cursors (cursor.go)
	notifies       notifyState     // LISTEN/NOTIFY (notify.go)
	// deferredTrig are the transaction's deferred constraint triggers;
	// lastWriter is where the last statement wrote, where their notices
	// go when COMMIT fires them (triggers.go).
	deferredTrig exec.DeferredTriggers
	lastWriter   pgwire.ResultWriter
	queryString  string      // the query string being run (pg_cursors.statement)
	xminFloor    xact.XID    // the oldest snapshot xmin an open cursor reads with
	boundParams  boundParams // a utility statement's Bind parameters (DECLARE)
	routineFloor xact.XID    // the xmin floor while VOLATILE routines run (routines.go)

	sig    signals // interrupts and how other backends reach this one (interrupts.go)
	closed bool
	// autovacuum is set in an autovacuum worker's session (autovacuum.go).
	autovacuum *autovacuumState
	// authUser is the role that logged in, authSuper whether it is a
	// superuser (SET SESSION AUTHORIZATION; setrole.go).
	authUser  string
	authSuper bool
}

// New makes a session (used by the server and by the embedded driver).
func New(eng *engine.Engine, conf map[string]string) *Session {
	return newSession(eng, conf, eng.Backends.NewPID(), catalog.BootstrapSuperuserID)
}

func newSession(eng *engine.Engine, conf map[string]string, pid int32, role uint32) *Session {
	s := &Session{eng: eng, proc: eng.Xact.NewProc(), settings: map[string]string{}, conf: conf, authUser: "postgres", authSuper: true}
	s.syncWALCompression()
	s.syncIOSettings()
	s.registerBackend(pid, role)
	s.startActivity(role)
	return s
}

// Get returns a setting's current value as SHOW prints it.
func (s *Session) Get(name string) string {
	d, err := guc.Lookup(name)
	if err != nil {
		return ""
	}
	return d.Display(s.raw(d))
}

func (s *Session) raw(d *guc.Def) string {
	k := strings.ToLower(d.Name)
	if v, ok := s.txSetting(k); ok {
		return v
	}
	if v, ok := s.settings[k]; ok {
		return v
	}
	if v, ok := s.conf[k]; ok {
		return v
	}
	return d.Default
}

// Setting returns a raw setting value (base units), for the executor.
func (s *Session) Setting(name string) string {
	d, err := guc.Lookup(name)
	if err != nil {
		return ""
	}
	if v, ok := s.txSetting(strings.ToLower(d.Name)); ok {
		return v
	}
	return s.raw(d)
}

func (s *Session) applyOptions(opts string) error {
	fields := splitOptions(opts)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		var kv string
		switch {
		case f == "-c" && i+1 < len(fields):
			i++
			kv = fields[i]
		case strings.HasPrefix(f, "-c"):
			kv = f[2:]
		case strings.HasPrefix(f, "--"):
			kv = f[2:]
		default:
			return pgerr.Errorf(pgerr.SyntaxError, "invalid command-line argument for server process: %s", f)
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return pgerr.Errorf(pgerr.SyntaxError, "invalid command-line argument for server process: %s", kv)
		}
		if err := s.set(strings.ReplaceAll(k, "-", "_"), v, false); err != nil {
			return err
		}
	}
	return nil
}

// splitOptions splits a startup packet's options string as PostgreSQL's
// pg_split_opts does: at runs of whitespace, where a backslash makes the
// next character (a space, or a backslash) part of the word, so that
// "-c default_transaction_isolation=repeatable\ read" carries one value.
func splitOptions(opts string) []string {
	var out []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(opts); i++ {
		c := opts[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
			continue
		case c == '\\' && i+1 < len(opts):
			i++
			c = opts[i]
		}
		word.WriteByte(c)
		inWord = true
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}

func (s *Session) set(name, value string, local bool) error {
	d, err := guc.Lookup(name)
	if err != nil {
		return err
	}
	switch d.Context {
	case guc.Internal:
		return pgerr.Errorf(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", d.Name)
	case guc.Postmaster:
		return pgerr.Errorf(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed without restarting the server", d.Name)
	case guc.Sighup:
		return pgerr.Errorf(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed now", d.Name)
	}
	if err := s.checkSetPermission(d); err != nil {
		return err
	}
	nv, err := d.Normalize(value)
	if err != nil {
		return err
	}
	k := strings.ToLower(d.Name)
	if k == "timezone" {
		if nv, err = canonicalTimeZone(nv); err != nil {
			return err
		}
	}
	if k == "datestyle" {
		if nv, err = s.canonicalDateStyle(nv); err != nil {
			return err
		}
	}
	if err := s.checkTxSetting(k, nv); err != nil {
		return err
	}
	if k == "default_table_access_method" {
		if err := s.checkDefaultTableAM(nv); err != nil {
			return err
		}
	}
	s.changeSetting(k, nv, local)
	return nil
}

// TxStatus implements pgwire.Session.
func (s *Session) TxStatus() byte {
	switch {
	case s.failed:
		return 'E'
	case s.inBlock:
		return 'T'
	}
	return 'I'
}

// Close implements pgwire.Session.
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.inTx {
		s.abort()
	}
	s.atClose()
	s.endTemp()
	s.eng.Xact.ReleaseProc(s.proc)
	s.endActivity()
	s.unregisterBackend()
	if s.srv != nil {
		s.srv.mu.Lock()
		delete(s.srv.sessions, s.key)
		s.srv.mu.Unlock()
		s.srv.count.Add(-1)
	}
}

// begin starts a transaction.
func (s *Session) begin() {
	s.inTx = true
	s.txStart = time.Now()
	s.reportXact(s.txStart)
	s.combo.Reset()
	s.htx = tableam.Txn{Proc: s.proc, Combo: &s.combo}
	s.ctx = catalog.Txn{Heap: &s.htx, U: &s.usage, TempNamespace: s.temp.nsp, PathSetting: s.pathSetting}
	s.snapshot = nil
	s.snapTaken = false
	s.isolation = s.Setting("default_transaction_isolation")
	s.readOnly = s.Setting("default_transaction_read_only") == "on"
	s.deferrable = s.Setting("default_transaction_deferrable") == "on"
	s.gucBegin()
}

// commit ends the transaction as committed (with every savepoint still
// open in it).
func (s *Session) commit() error {
	if !s.inTx {
		return nil
	}
	if err := s.atPreCommit(); err != nil {
		s.abort()
		return err
	}
	if err := s.preCommitTemp(context.Background()); err != nil {
		s.abort()
		return err
	}
	sync := s.Setting("synchronous_commit") != "off"
	var drops []uint32
	drops = append(drops, s.ctx.Dropped...)
	invalidate := func() {
		if s.ctx.Dirty {
			s.eng.Catalog.Invalidate()
		}
	}
	_, err := s.eng.Xact.Commit(&s.usage, s.proc, xact.CommitOptions{DropRels: drops, Sync: sync || len(drops) > 0, BeforeUnlock: invalidate})
	if err != nil {
		s.countXact(false)
		s.cleanupStorage(false)
		s.gucEnd(false)
		s.atAbort()
		s.endTx()
		return err
	}
	s.countXact(true)
	s.cleanupStorage(true)
	s.gucEnd(true)
	s.endTx()
	s.atCommit()
	return nil
}

// abort ends the transaction as aborted, whatever state its block is in.
func (s *Session) abort() {
	if !s.inTx {
		return
	}
	if !s.txAborted {
		s.eng.Xact.Abort(s.proc)
		s.cleanupStorage(false)
	}
	s.countXact(false)
	s.gucEnd(false)
	s.atAbort()
	s.endTx()
}

// cleanupStorage removes the files of relations dropped by a committed
// transaction, or created by an aborted one.
func (s *Session) cleanupStorage(committed bool) {
	rels := s.ctx.Created
	if committed {
		rels = s.ctx.Dropped
	}
	s.dropRelationFiles(rels)
	if s.ctx.Dirty {
		s.eng.Catalog.Invalidate()
	}
}

// dropRelationFiles removes relation files and forgets what is cached of
// them.
func (s *Session) dropRelationFiles(rels []uint32) {
	for _, r := range rels {
		s.eng.Pool.DropRelation(smgr.RelFileNumber(r), 0, 0, true)
		s.eng.Smgr.Unlink(smgr.RelFileNumber(r))
		s.eng.Catalog.ForgetHeap(r)
		exec.ForgetIndex(s.eng, r)
	}
}

func (s *Session) endTx() {
	s.closeTempFiles()
	s.reportXact(time.Time{})
	s.inTx = false
	s.inBlock = false
	s.failed = false
	s.txAborted = false
	s.savepoints = nil
	s.gucs = nil
	s.snapshot = nil
	s.ctx = catalog.Txn{}
}

// statementSnapshot sets up the snapshot for the next statement. Only
// SERIALIZABLE READ ONLY DEFERRABLE can fail (interrupted while waiting for
// a safe snapshot).
func (s *Session) statementSnapshot() error {
	s.snapTaken = true
	if s.usesTxSnapshot() {
		if s.snapshot == nil && s.isolation == "serializable" {
			snap, err := s.serializableSnapshot()
			if err != nil {
				return err
			}
			s.snapshot = snap
		}
		if s.snapshot == nil {
			s.snapshot = s.eng.Xact.GetSnapshot(s.proc)
		}
		snap := *s.snapshot
		snap.Own = s.htx.Xid
		s.htx.Snap = &snap
		return nil
	}
	s.htx.Snap = s.eng.Xact.GetSnapshot(s.proc)
	return nil
}

// SimpleQuery implements pgwire.Session.
func (s *Session) SimpleQuery(ctx context.Context, sql string, w pgwire.ResultWriter) error {
	s.queryString = sql
	s.reportActive(sql)
	defer s.reportIdle()
	s.dropUnnamedPortal()
	handled, shape, scanned, err := s.simpleCached(ctx, sql, w)
	if handled {
		return err
	}
	tree, err := s.cachedTxnStmt(sql)
	if err != nil {
		return err
	}
	if tree == nil {
		if tree, err = pg.Parse(sql); err != nil {
			// Like any error inside BEGIN … COMMIT, a syntax error aborts the
			// transaction block (PostgreSQL: later statements get 25P02).
			s.failBlock()
			return parseError(err)
		}
		if scanned {
			s.noteShape(sql, shape, tree)
		}
		s.noteTxnStmt(sql, tree)
	}
	if len(tree.Stmts) == 0 {
		return w.EmptyQuery()
	}
	// Several statements in one Query message run in one implicit
	// transaction unless they control transactions themselves.
	implicitBlock := len(tree.Stmts) > 1 && !s.inBlock
	// A multi-statement message is an implicit transaction block for all
	// its statements (PostgreSQL's TBLOCK_IMPLICIT_INPROGRESS): VACUUM
	// refuses to run in it when reached, and SET LOCAL / SET TRANSACTION
	// do not warn.
	s.multiStatement = len(tree.Stmts) > 1
	defer func() { s.multiStatement = false }()
	for i, raw := range tree.Stmts {
		text := stmtText(sql, raw)
		last := i == len(tree.Stmts)-1
		err := s.runStatement(ctx, raw.Stmt, text, w, implicitBlock && !last)
		if err != nil {
			if implicitBlock && s.inTx && !s.inBlock {
				s.abort()
			}
			return err
		}
	}
	return nil
}

func stmtText(sql string, raw *pg.RawStmt) string {
	start := int(raw.StmtLocation)
	end := len(sql)
	if raw.StmtLen > 0 {
		end = start + int(raw.StmtLen)
	}
	if start < 0 || start > len(sql) || end > len(sql) {
		return sql
	}
	return strings.TrimSpace(sql[start:end])
}

func parseError(err error) error {
	var pe *pgparser.Error
	if errors.As(err, &pe) {
		e := pgerr.Errorf(pgerr.SyntaxError, "%s", pe.Message)
		e.Position = int32(pe.Cursorpos)
		if strings.Contains(pe.Message, "unterminated") {
			e.Code = pgerr.SyntaxError
		}
		return e
	}
	return pgerr.Errorf(pgerr.SyntaxError, "%v", err)
}

// runStatement runs one statement in the right transaction context.
// keepOpen: the statement is part of an implicit multi-statement block.
func (s *Session) runStatement(ctx context.Context, stmt *pg.Node, text string, w pgwire.ResultWriter, keepOpen bool) error {
	if ts := stmt.GetTransactionStmt(); ts != nil {
		err := s.trackStatement(stmt, text, func() error { return s.transactionStmt(ts, w) })
		if err != nil {
			// Like any error in a block (RELEASE of an unknown savepoint,
			// say), it fails the block.
			s.statementFailed(keepOpen)
		}
		return err
	}
	if s.failed {
		return pgerr.Errorf(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if isNonTransactional(stmt) && (s.inBlock || keepOpen || s.multiStatement) {
		// An error like any other: it aborts the enclosing block.
		s.failBlock()
		return pgerr.Errorf(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", nonTxName(stmt))
	}
	implicit := !s.inTx
	if implicit {
		s.begin()
	}
	if err := s.checkReadOnly(stmt); err != nil {
		s.statementFailed(keepOpen)
		return err
	}
	if needsSnapshot(stmt) {
		if err := s.statementSnapshot(); err != nil {
			s.statementFailed(keepOpen)
			return err
		}
	}
	ctx, end := s.statementContext(ctx)
	err := s.interruptedError(ctx, s.recovering(func() error {
		s.runBeforeStatement(text)
		return s.trackStatement(stmt, text, func() error { return s.execute(ctx, stmt, text, w) })
	}))
	end()
	if err != nil {
		s.statementFailed(keepOpen)
		return err
	}
	s.nextCommand()
	if !s.usesTxSnapshot() {
		// READ COMMITTED needs no snapshot between statements; the other
		// levels keep the transaction's horizon until it ends.
		s.eng.Xact.ResetXmin(s.proc)
	}
	// Outside BEGIN … COMMIT, the statement that ends the Query message
	// commits: a lone statement's own transaction, or the implicit
	// transaction that earlier statements of a multi-statement message
	// opened (implicit is false for those later statements, but the
	// transaction must not stay open past the message: it would silently
	// join the session's next transaction and share its fate).
	if !keepOpen && !s.inBlock {
		return s.commit()
	}
	return nil
}

// inTransactionBlock is PostgreSQL's IsTransactionBlock: an explicit
// block, or the implicit one of a multi-statement message.
func (s *Session) inTransactionBlock() bool { return s.inBlock || s.multiStatement }

// statementFailed ends what a failed statement leaves: an explicit block
// becomes failed; a lone statement's transaction is rolled back (a
// multi-statement message's implicit block is rolled back by its caller).
func (s *Session) statementFailed(keepOpen bool) {
	if s.inBlock {
		s.failBlock()
	} else if !keepOpen {
		s.abort()
	}
}

// failBlock handles an error inside an explicit block: the innermost
// savepoint's subtransaction is rolled back at once, or, outside every
// savepoint, the whole transaction (so its locks go at once and a deadlock
// victim's partner can go on). The block is then failed: every statement
// but COMMIT, ROLLBACK or ROLLBACK TO gets 25P02 until one ends it. Outside
// a block, or in a block that already failed, it does nothing.
func (s *Session) failBlock() {
	if !s.inBlock || s.failed {
		return
	}
	s.failed = true
	if n := len(s.savepoints); n > 0 {
		s.abortSubXact(s.savepoints[n-1])
		return
	}
	s.portalsAtAbort()
	s.eng.Xact.Abort(s.proc)
	s.cleanupStorage(false)
	s.txAborted = true
	s.reportXact(time.Time{}) // PostgreSQL: no transaction runs, only the block
	s.atAbort()
}

// needsSnapshot reports whether a statement reads or writes data and so
// needs an MVCC snapshot. As in PostgreSQL (PlannedStmtRequiresSnapshot),
// SET, SHOW and CHECKPOINT do not: in particular they must not fix a
// REPEATABLE READ transaction's snapshot, which the transaction's first
// query takes (BEGIN; SET TRANSACTION ISOLATION LEVEL …; SHOW …; SELECT).
func needsSnapshot(n *pg.Node) bool {
	return n.GetVariableSetStmt() == nil && n.GetVariableShowStmt() == nil && n.GetCheckPointStmt() == nil &&
		n.GetFetchStmt() == nil && n.GetListenStmt() == nil && n.GetUnlistenStmt() == nil && n.GetNotifyStmt() == nil
}

func (s *Session) intSetting(name string) int64 {
	v, _ := strconv.ParseInt(s.Setting(name), 10, 64)
	return v
}

func isNonTransactional(n *pg.Node) bool {
	if rs := n.GetReindexStmt(); rs != nil {
		_, ok := reindexNonTransactional(rs)
		return ok
	}
	return n.GetVacuumStmt() != nil && n.GetVacuumStmt().IsVacuumcmd
}

func nonTxName(n *pg.Node) string {
	if n.GetVacuumStmt() != nil {
		return "VACUUM"
	}
	if rs := n.GetReindexStmt(); rs != nil {
		name, _ := reindexNonTransactional(rs)
		return name
	}
	return "this statement"
}

// newCtx builds the executor context for a statement.
func (s *Session) newCtx(ctx context.Context, w pgwire.ResultWriter) *exec.Ctx {
	s.ctx.User = s.currentUser()
	c := &exec.Ctx{
		Context: ctx,
		Eng:     s.eng,
		Tx:      &s.ctx,
		Env:     &expr.Env{TxnTime: types.TimestampFromTime(s.txStart.UTC()), StmtTime: types.NowMicros(), Settings: s.typeSettings()},
		Notice:  func(n *pgerr.Error) { w.Notice(n) },
		Setting: s.Setting,
		Seqs:    &s.seqs,

		Interrupts: &s.sig.state,
		TempFiles:  s.tempFileSpace(),
		BackendPID: s.BackendPID(),
		LockRel: func(oid uint32, mode int) error {
			return s.eng.Xact.Lock(ctx, s.proc, xact.RelationTag(oid), xact.LockMode(mode), false)
		},
		Session: s,
	}
	c.Env.Catalog = c.CatalogFuncs()
	c.ParallelWorkerHook = s.parallelWorkerHook()
	s.lastWriter = w
	return c
}

// sendRows writes a result set.
func sendRows(st *types.Settings, w pgwire.ResultWriter, cols []exec.Column, rows func(emit func(exec.Row) error) error) (int64, error) {
	fields := make([]pgwire.FieldDesc, len(cols))
	for i, c := range cols {
		l := c.Type.Layout()
		fields[i] = pgwire.FieldDesc{Name: c.Name, TableOID: c.Table, ColumnAttr: uint16(c.Attr), TypeOID: c.Type.OID, TypeLen: l.Len, TypeMod: c.Type.Typmod}
	}
	if err := w.RowDescription(fields); err != nil {
		return 0, err
	}
	var n int64
	vals := make([][]byte, len(cols))
	err := rows(func(r exec.Row) error {
		for i := range cols {
			if r[i].IsNull() {
				vals[i] = nil
			} else {
				vals[i] = types.AppendTextWith(st, vals[i][:0], cols[i].Type, r[i])
				if vals[i] == nil {
					vals[i] = notNullEmpty // nil would go out as NULL
				}
			}
		}
		n++
		return w.DataRow(vals)
	})
	return n, err
}

// notNullEmpty is an empty value that is not SQL NULL: the wire layer
// sends a nil value as NULL, so an empty string must be a non-nil slice.
var notNullEmpty = []byte{}

var _ = fmt.Sprintf
