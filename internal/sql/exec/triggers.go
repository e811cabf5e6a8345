package exec

// Firing triggers (CREATE TRIGGER; the catalog side is
// internal/catalog/trigger.go). What fires when, as PostgreSQL 15:
//
//   - BEFORE STATEMENT triggers fire when a ModifyTable opens, AFTER
//     STATEMENT ones are queued when it has run all its rows, even when no
//     row changed. Only the named table's statement triggers fire.
//   - BEFORE ROW triggers run as each row is inserted, updated or deleted,
//     on the table the row is in (a partition, an inheritance child), in
//     name order; each sees the NEW row the previous one returned; NULL
//     skips the row (and the triggers after it).
//   - AFTER ROW triggers are queued with copies of the rows (WHEN is
//     evaluated at queue time) on the statement's after-trigger queue,
//     which also holds the NO ACTION foreign key checks, and are fired in
//     queue order when the statement's rows are all done. A constraint
//     trigger whose constraint is deferred goes to the transaction's
//     queue (DeferredTriggers) and fires at COMMIT or SET CONSTRAINTS …
//     IMMEDIATE.
//   - Transition tables (REFERENCING OLD/NEW TABLE) collect the
//     statement's rows of the table per event; the trigger function's
//     queries read them by name (TransitionScan).

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// TriggerData is what a trigger function is called with (PostgreSQL's
// TriggerData and the TG_* variables).
type TriggerData struct {
	Trigger *catalog.Trigger
	Rel     *catalog.Relation
	Event   string // INSERT, UPDATE, DELETE, TRUNCATE
	When    string // BEFORE, AFTER, INSTEAD OF
	Level   string // ROW, STATEMENT
	// Old and New are the rows in Rel's layout (nil: none).
	Old, New Row
	// tables are the transition tables by name.
	tables map[string]*transitionTable
}

// SchemaName is the namespace of the trigger's table (TG_TABLE_SCHEMA).
func (td *TriggerData) SchemaName(c *Ctx) string { return nspName(c.Eng.Catalog, td.Rel.Namespace) }

// TriggerLanguage is a Language that runs trigger functions. The result
// is the row the trigger returns in Rel's layout, nil for NULL.
type TriggerLanguage interface {
	CallTrigger(c *Ctx, proc *catalog.Proc, td *TriggerData) (Row, error)
}

// callTrigger runs trigger t's function with td.
func callTrigger(c *Ctx, proc *catalog.Proc, td *TriggerData) (Row, error) {
	lang, err := LanguageOf(proc)
	if err != nil {
		return nil, err
	}
	tl, ok := lang.(TriggerLanguage)
	if !ok {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "trigger functions in this language are not supported")
	}
	if err := c.CheckRoutineDepth(); err != nil {
		return nil, err
	}
	tc := *c
	tc.trigger = td
	tc.triggerDepth = c.triggerDepth + 1
	return tl.CallTrigger(&tc, proc, td)
}

// TransitionTables is what a trigger function's body may read by name:
// the transition tables of the trigger it was called for.
func (c *Ctx) TransitionTables() map[string]*transitionTable {
	if c.trigger == nil {
		return nil
	}
	return c.trigger.tables
}

// relTrigger is a trigger with what firing it needs, resolved once per
// statement.
type relTrigger struct {
	t    *catalog.Trigger
	proc *catalog.Proc
	when expr.Expr // nil: no WHEN
}

// relTriggers are the enabled triggers of one table, prepared for a
// statement.
type relTriggers struct {
	rel  *catalog.Relation
	list []*relTrigger
}

func triggerEventBit(kind string) int16 {
	switch kind {
	case "Insert", "INSERT":
		return catalog.TriggerTypeInsert
	case "Update", "UPDATE":
		return catalog.TriggerTypeUpdate
	case "Delete", "DELETE":
		return catalog.TriggerTypeDelete
	}
	return catalog.TriggerTypeTruncate
}

func eventName(bit int16) string {
	switch bit {
	case catalog.TriggerTypeInsert:
		return "INSERT"
	case catalog.TriggerTypeUpdate:
		return "UPDATE"
	case catalog.TriggerTypeDelete:
		return "DELETE"
	}
	return "TRUNCATE"
}

// triggerEnabled: whether trigger t fires under session_replication_role.
func triggerEnabled(c *Ctx, t *catalog.Trigger) bool {
	replica := c.Setting != nil && c.Setting("session_replication_role") == "replica"
	switch t.Enabled {
	case catalog.TriggerEnabledAlways:
		return true
	case catalog.TriggerEnabledReplica:
		return replica
	case catalog.TriggerEnabledOrigin:
		return !replica
	}
	return false
}

// prepareTriggers resolves rel's enabled triggers (nil when it has none).
func prepareTriggers(c *Ctx, rel *catalog.Relation) (*relTriggers, error) {
	if len(rel.Triggers) == 0 {
		return nil, nil
	}
	rt := &relTriggers{rel: rel}
	for _, t := range rel.Triggers {
		if !triggerEnabled(c, t) {
			continue
		}
		proc, err := c.Eng.Catalog.ProcByOID(c.Tx, t.FuncOID)
		if err != nil {
			return nil, err
		}
		if proc == nil {
			return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function %d does not exist", t.FuncOID)
		}
		x := &relTrigger{t: t, proc: proc}
		if t.Qual != "" {
			if x.when, err = CompileTriggerWhen(c, rel, t.Qual); err != nil {
				return nil, err
			}
		}
		rt.list = append(rt.list, x)
	}
	return rt, nil
}

// CompileTriggerWhen compiles a WHEN condition over the row OLD's
// columns followed by NEW's.
func CompileTriggerWhen(c *Ctx, rel *catalog.Relation, text string) (expr.Expr, error) {
	tree, err := parser.Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	n := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	sc := &scope{qualify: true}
	natts := len(rel.Attrs)
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol("old", a, a.Name, i))
	}
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol("new", a, a.Name, natts+i))
	}
	p := &Planner{C: c}
	e, err := p.compiler(sc).Compile(n)
	if err != nil {
		return nil, err
	}
	return coerceBoolArg("WHEN", e)
}

// fires picks the triggers of a timing, level and event; cols are the
// UPDATE's SET columns (a trigger with UPDATE OF fires when one of its
// columns is among them).
func (rt *relTriggers) fires(timing int16, row bool, event int16, cols []bool) []*relTrigger {
	if rt == nil {
		return nil
	}
	var out []*relTrigger
	for _, x := range rt.list {
		if !x.t.Fires(timing, row, event) {
			continue
		}
		if event == catalog.TriggerTypeUpdate && len(x.t.Attrs) > 0 && !anyColumnSet(x.t.Attrs, cols) {
			continue
		}
		out = append(out, x)
	}
	return out
}

func anyColumnSet(attrs []int16, cols []bool) bool {
	for _, a := range attrs {
		if int(a) >= 1 && int(a) <= len(cols) && cols[a-1] {
			return true
		}
	}
	return false
}

// whenHolds evaluates a trigger's WHEN on the rows old and new.
func (x *relTrigger) whenHolds(c *Ctx, rel *catalog.Relation, old, new Row) (bool, error) {
	if x.when == nil {
		return true, nil
	}
	natts := len(rel.Attrs)
	row := make(Row, 2*natts)
	for i := range row {
		row[i] = types.Null()
	}
	copy(row, old)
	copy(row[natts:], new)
	return expr.IsTrue(c.Env, x.when, row)
}

func timingName(timing int16) string {
	switch timing {
	case catalog.TriggerTypeBefore:
		return "BEFORE"
	case catalog.TriggerTypeInstead:
		return "INSTEAD OF"
	}
	return "AFTER"
}

// fireBeforeRow runs the BEFORE (or INSTEAD OF) ROW triggers of an event
// on a row: old is the row being updated or deleted, new the row being
// inserted or the new version. It returns the row to go on with (the
// last trigger's NEW; for DELETE, old) and false when a trigger returned
// NULL.
func (rt *relTriggers) fireBeforeRow(c *Ctx, timing, event int16, cols []bool, old, new Row) (Row, bool, error) {
	cur := new
	for _, x := range rt.fires(timing, true, event, cols) {
		ok, err := x.whenHolds(c, rt.rel, old, cur)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		td := &TriggerData{Trigger: x.t, Rel: rt.rel, Event: eventName(event), When: timingName(timing), Level: "ROW", Old: old, New: cur}
		res, err := callTrigger(c, x.proc, td)
		if err != nil {
			return nil, false, err
		}
		if res == nil {
			return nil, false, nil
		}
		if event != catalog.TriggerTypeDelete {
			cur = res
		}
	}
	if event == catalog.TriggerTypeDelete {
		return old, true, nil
	}
	return cur, true, nil
}

// fireStatement runs (BEFORE) or queues (AFTER) the statement triggers
// of an event.
func (rt *relTriggers) fireStatement(c *Ctx, q *afterQueue, timing, event int16, cols []bool) error {
	for _, x := range rt.fires(timing, false, event, cols) {
		td := &TriggerData{Trigger: x.t, Rel: rt.rel, Event: eventName(event), When: timingName(timing), Level: "STATEMENT"}
		if timing == 0 {
			td.tables = q.tablesFor(rt.rel, x.t, event)
			q.add(c, &triggerEvent{td: td, proc: x.proc})
			continue
		}
		if _, err := callTrigger(c, x.proc, td); err != nil {
			return err
		}
	}
	return nil
}

// queueAfterRow records a changed row for the AFTER ROW triggers of the
// event and the transition tables of the table's AFTER triggers.
func (rt *relTriggers) queueAfterRow(c *Ctx, q *afterQueue, event int16, cols []bool, old, new Row) error {
	if rt == nil {
		return nil
	}
	q.capture(rt, event, old, new)
	for _, x := range rt.fires(0, true, event, cols) {
		ok, err := x.whenHolds(c, rt.rel, old, new)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		td := &TriggerData{Trigger: x.t, Rel: rt.rel, Event: eventName(event), When: "AFTER", Level: "ROW",
			Old: copyRow(old), New: copyRow(new), tables: q.tablesFor(rt.rel, x.t, event)}
		q.add(c, &triggerEvent{td: td, proc: x.proc})
	}
	return nil
}

func copyRow(r Row) Row {
	if r == nil {
		return nil
	}
	return append(Row(nil), r...)
}

// afterEvent is one entry of an after-trigger queue: a trigger to fire
// or a foreign key check to make.
type afterEvent interface {
	fire(c *Ctx) error
}

// triggerEvent is an AFTER trigger's call.
type triggerEvent struct {
	td   *TriggerData
	proc *catalog.Proc
}

func (e *triggerEvent) fire(c *Ctx) error {
	_, err := callTrigger(c, e.proc, e.td)
	return err
}

// afterQueue is a statement's after-trigger queue (PostgreSQL's per-query
// AfterTriggerEventList), shared by the statement's cascaded changes, and
// its transition tables.
type afterQueue struct {
	events []afterEvent
	tables map[transitionKey]*transitionTable
}

type transitionKey struct {
	rel   uint32
	event int16
	old   bool
}

// transitionTable is the rows of a transition table.
type transitionTable struct {
	rel  *catalog.Relation
	rows []Row
}

// add queues an event: on the statement's queue, or the transaction's
// when it is a deferred constraint trigger.
func (q *afterQueue) add(c *Ctx, e afterEvent) {
	if te, ok := e.(*triggerEvent); ok && te.td.Trigger.Deferrable {
		if d := c.deferredTriggers(); d != nil && d.isDeferred(te.td.Trigger) {
			d.add(te)
			return
		}
	}
	q.events = append(q.events, e)
}

// capture adds a changed row to the transition tables the table's AFTER
// triggers of the event name (once, however many triggers name them).
func (q *afterQueue) capture(rt *relTriggers, event int16, old, new Row) {
	needOld, needNew := false, false
	for _, x := range rt.list {
		t := x.t
		if t.Type&(catalog.TriggerTypeBefore|catalog.TriggerTypeInstead) != 0 || t.Type&event == 0 {
			continue
		}
		needOld = needOld || t.OldTable != ""
		needNew = needNew || t.NewTable != ""
	}
	if needOld && old != nil {
		tt := q.table(rt.rel, event, true)
		tt.rows = append(tt.rows, copyRow(old))
	}
	if needNew && new != nil {
		tt := q.table(rt.rel, event, false)
		tt.rows = append(tt.rows, copyRow(new))
	}
}

func (q *afterQueue) table(rel *catalog.Relation, event int16, old bool) *transitionTable {
	if q.tables == nil {
		q.tables = map[transitionKey]*transitionTable{}
	}
	k := transitionKey{rel.OID, event, old}
	tt := q.tables[k]
	if tt == nil {
		tt = &transitionTable{rel: rel}
		q.tables[k] = tt
	}
	return tt
}

// tablesFor are trigger t's transition tables by name.
func (q *afterQueue) tablesFor(rel *catalog.Relation, t *catalog.Trigger, event int16) map[string]*transitionTable {
	if t.OldTable == "" && t.NewTable == "" {
		return nil
	}
	m := map[string]*transitionTable{}
	if t.OldTable != "" {
		m[t.OldTable] = q.table(rel, event, true)
	}
	if t.NewTable != "" {
		m[t.NewTable] = q.table(rel, event, false)
	}
	return m
}

// fireAll fires the queued events in order; events a fired trigger's
// own statements queue belong to those statements.
func (q *afterQueue) fireAll(c *Ctx) error {
	if q == nil {
		return nil
	}
	for len(q.events) > 0 {
		if err := c.checkCancel(); err != nil {
			return err
		}
		e := q.events[0]
		q.events = q.events[1:]
		if err := e.fire(c); err != nil {
			return err
		}
	}
	return nil
}

// transitionNames lists a trigger's REFERENCING clause as pg_get_triggerdef
// prints it.
func transitionNames(t *catalog.Trigger) string {
	var parts []string
	if t.OldTable != "" {
		parts = append(parts, "OLD TABLE AS "+types.QuoteIdent(t.OldTable))
	}
	if t.NewTable != "" {
		parts = append(parts, "NEW TABLE AS "+types.QuoteIdent(t.NewTable))
	}
	if len(parts) == 0 {
		return ""
	}
	return "REFERENCING " + strings.Join(parts, " ") + " "
}

// triggers are the table's prepared triggers (nil: none), loaded at
// first use in a statement.
func (m *ModifyTable) triggers(c *Ctx) (*relTriggers, error) {
	if !m.trigLoaded {
		rt, err := prepareTriggers(c, m.Rel)
		if err != nil {
			return nil, err
		}
		m.trig, m.trigLoaded = rt, true
	}
	return m.trig, nil
}

// queue is the statement's after-trigger queue.
func (m *ModifyTable) queue() *afterQueue {
	switch {
	case m.routedFrom != nil && m.routedFrom != m:
		return m.routedFrom.queue()
	case m.inhParent != nil:
		return m.inhParent.queue()
	}
	if m.after == nil {
		m.after = &afterQueue{}
	}
	return m.after
}

// setCols are the statement's SET columns in m.Rel's layout (nil: an
// inheritance member or a cascaded change, whose columns are all taken
// as set).
func (m *ModifyTable) setCols() []bool {
	if m.SetCols != nil || m.Kind != "Update" {
		return m.SetCols
	}
	all := make([]bool, len(m.Rel.Attrs))
	for i := range all {
		all[i] = true
	}
	return all
}

// beforeRow runs the table's BEFORE ROW triggers of an event.
func (m *ModifyTable) beforeRow(c *Ctx, event int16, old, new Row) (Row, bool, error) {
	rt, err := m.triggers(c)
	if err != nil || rt == nil {
		if event == catalog.TriggerTypeDelete {
			return old, err == nil, err
		}
		return new, err == nil, err
	}
	return rt.fireBeforeRow(c, catalog.TriggerTypeBefore, event, m.setCols(), old, new)
}

// afterRow queues the table's AFTER ROW triggers of an event.
func (m *ModifyTable) afterRow(c *Ctx, event int16, old, new Row) error {
	rt, err := m.triggers(c)
	if err != nil || rt == nil {
		return err
	}
	return rt.queueAfterRow(c, m.queue(), event, m.setCols(), old, new)
}

// statementTriggers fires the statement's BEFORE (timing
// TriggerTypeBefore) or queues its AFTER (0) statement triggers.
func (m *ModifyTable) statementTriggers(c *Ctx, timing int16) error {
	rt, err := m.triggers(c)
	if err != nil || rt == nil {
		return err
	}
	events := []int16{triggerEventBit(m.Kind)}
	if m.Conflict != nil && m.Conflict.DoUpdate {
		events = append(events, catalog.TriggerTypeUpdate)
	}
	for _, ev := range events {
		cols := m.SetCols
		if ev == catalog.TriggerTypeUpdate && cols == nil {
			cols = m.setCols()
		}
		if err := rt.fireStatement(c, m.queue(), timing, ev, cols); err != nil {
			return err
		}
	}
	return nil
}

// setColumns marks the columns an UPDATE's SET list names.
func setColumns(rel *catalog.Relation, targets []*pg.Node) []bool {
	cols := make([]bool, len(rel.Attrs))
	for _, t := range targets {
		if i := rel.AttrByName(t.GetResTarget().GetName()); i >= 0 {
			cols[i] = true
		}
	}
	return cols
}

// TransitionScan reads a transition table of the trigger whose function
// runs the statement; it finds the table by name when it opens, so a
// plan kept by the function serves each call's rows.
type TransitionScan struct {
	nodeBase
	Name, Alias string
	cols        []Column
	rows        []Row
	i           int
}

func (s *TransitionScan) Columns() []Column { return s.cols }
func (s *TransitionScan) Open(c *Ctx) error {
	s.i, s.rows = 0, nil
	if tt := c.transitions[s.Name]; tt != nil {
		s.rows = tt.rows
	}
	return nil
}
func (s *TransitionScan) Next(c *Ctx) (Row, error) {
	if s.i >= len(s.rows) {
		return nil, nil
	}
	s.i++
	return s.rows[s.i-1], nil
}
func (s *TransitionScan) Close(c *Ctx) {}

// addTransitionLeaf puts a transition table in FROM.
func (p *Planner) addTransitionLeaf(sc *scope, name string, tt *transitionTable, alias string, colAliases []string) *jtree {
	ts := &TransitionScan{Name: name, Alias: alias}
	var cols []scopeCol
	visible := 0
	for i, a := range tt.rel.Attrs {
		ts.cols = append(ts.cols, Column{Name: a.Name, Type: a.Type})
		n := a.Name
		if !a.Dropped {
			if visible < len(colAliases) {
				n = colAliases[visible]
			}
			visible++
		}
		cols = append(cols, tableScopeCol(alias, a, n, i))
	}
	return p.addLeaf(sc, &fromItem{node: ts, alias: alias}, cols)
}

// triggerDef is pg_get_triggerdef: the CREATE TRIGGER statement of a
// trigger, in PostgreSQL's words. Not pretty: the table is always
// schema-qualified and the WHEN condition keeps its parentheses.
func triggerDef(c *Ctx, oid uint32, pretty bool) (types.Datum, error) {
	cat := c.Eng.Catalog
	t, err := cat.TriggerByOID(c.Tx, oid)
	if err != nil || t == nil {
		return types.Null(), err
	}
	rel, err := cat.ByOID(c.Tx, t.RelID)
	if err != nil || rel == nil {
		return types.Null(), err
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	if t.Constraint != 0 {
		b.WriteString("CONSTRAINT ")
	}
	b.WriteString("TRIGGER " + types.QuoteIdent(t.Name) + " ")
	b.WriteString(timingName(t.Type & (catalog.TriggerTypeBefore | catalog.TriggerTypeInstead)))
	first := true
	for _, ev := range []int16{catalog.TriggerTypeInsert, catalog.TriggerTypeDelete, catalog.TriggerTypeUpdate, catalog.TriggerTypeTruncate} {
		if t.Type&ev == 0 {
			continue
		}
		if first {
			b.WriteString(" ")
		} else {
			b.WriteString(" OR ")
		}
		first = false
		b.WriteString(eventName(ev))
		if ev == catalog.TriggerTypeUpdate && len(t.Attrs) > 0 {
			b.WriteString(" OF " + quotedCols(rel, t.Attrs))
		}
	}
	name, err := relationName(c, rel, !pretty)
	if err != nil {
		return types.Null(), err
	}
	b.WriteString(" ON " + name + " ")
	if t.Constraint != 0 {
		if t.ConstrRelID != 0 {
			from, err := cat.ByOID(c.Tx, t.ConstrRelID)
			if err != nil {
				return types.Null(), err
			}
			if from != nil {
				fname, err := relationName(c, from, !pretty)
				if err != nil {
					return types.Null(), err
				}
				b.WriteString("FROM " + fname + " ")
			}
		}
		if !t.Deferrable {
			b.WriteString("NOT ")
		}
		b.WriteString("DEFERRABLE INITIALLY ")
		if t.InitDeferred {
			b.WriteString("DEFERRED ")
		} else {
			b.WriteString("IMMEDIATE ")
		}
	}
	b.WriteString(transitionNames(t))
	if t.Type&catalog.TriggerTypeRow != 0 {
		b.WriteString("FOR EACH ROW ")
	} else {
		b.WriteString("FOR EACH STATEMENT ")
	}
	if t.Qual != "" {
		e, err := CompileTriggerWhen(c, rel, t.Qual)
		if err != nil {
			return types.Null(), err
		}
		if pretty {
			b.WriteString("WHEN (" + prettyExpr(e) + ") ")
		} else {
			b.WriteString("WHEN (" + e.String() + ") ")
		}
	}
	proc, err := cat.ProcByOID(c.Tx, t.FuncOID)
	if err != nil || proc == nil {
		return types.Null(), err
	}
	fname := types.QuoteIdent(proc.Name)
	if proc.Namespace != catalog.PublicNamespace && proc.Namespace != catalog.PgCatalogNamespace {
		fname = types.QuoteIdent(nspName(cat, proc.Namespace)) + "." + fname
	}
	args := make([]string, len(t.Args))
	for i, a := range t.Args {
		args[i] = types.QuoteLiteral(a)
	}
	b.WriteString("EXECUTE FUNCTION " + fname + "(" + strings.Join(args, ", ") + ")")
	return types.Str(b.String()), nil
}

// relationName is rel's name, schema-qualified when qualify says so or
// when the search path would not find it.
func relationName(c *Ctx, rel *catalog.Relation, qualify bool) (string, error) {
	name := types.QuoteIdent(rel.Name)
	if !qualify {
		vis, err := relationVisible(c, rel)
		if err != nil || vis {
			return name, err
		}
	}
	return types.QuoteIdent(nspName(c.Eng.Catalog, rel.Namespace)) + "." + name, nil
}

// TruncateTriggers fires the BEFORE (timing TriggerTypeBefore) or AFTER
// (0) TRUNCATE triggers of the tables TRUNCATE empties.
func TruncateTriggers(c *Ctx, rels []*catalog.Relation, timing int16) error {
	q := &afterQueue{}
	for _, rel := range rels {
		rt, err := prepareTriggers(c, rel)
		if err != nil {
			return err
		}
		if err := rt.fireStatement(c, q, timing, catalog.TriggerTypeTruncate, nil); err != nil {
			return err
		}
	}
	return q.fireAll(c)
}

// TriggerUsesColumn reports whether trigger t depends on column num of
// rel: UPDATE OF names it or the WHEN condition reads it.
func TriggerUsesColumn(c *Ctx, rel *catalog.Relation, t *catalog.Trigger, num int16) (bool, error) {
	for _, a := range t.Attrs {
		if a == num {
			return true, nil
		}
	}
	if t.Qual == "" {
		return false, nil
	}
	e, err := CompileTriggerWhen(c, rel, t.Qual)
	if err != nil {
		return false, err
	}
	i, natts := -1, len(rel.Attrs)
	for k, a := range rel.Attrs {
		if a.Num == num {
			i = k
		}
	}
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if v, ok := x.(*expr.Var); ok && (v.Index == i || v.Index == natts+i) {
			found = true
		}
		return !found
	})
	return found, nil
}
