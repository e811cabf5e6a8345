package session

// CREATE [OR REPLACE] [CONSTRAINT] TRIGGER, DROP TRIGGER, ALTER TRIGGER …
// RENAME, ALTER TABLE … ENABLE / DISABLE TRIGGER and SET CONSTRAINTS, with
// PostgreSQL 15's checks and messages (trigger.c's CreateTrigger). The
// rows are internal/catalog/trigger.go's; firing is
// internal/sql/exec/triggers.go's.

import (
	"context"
	"regexp"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

func (s *Session) createTrigger(c *exec.Ctx, st *pg.CreateTrigStmt, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	rel, err := s.triggerTable(c, st.Relation, xact.ShareRowExclusiveLock)
	if err != nil {
		return err
	}
	t := &catalog.Trigger{RelID: rel.OID, Name: st.Trigname, Type: int16(st.Timing | st.Events),
		Deferrable: st.Deferrable, InitDeferred: st.Initdeferred}
	if st.Row {
		t.Type |= catalog.TriggerTypeRow
	}
	if err := checkTriggerTarget(rel, st, t); err != nil {
		return err
	}
	if err := triggerTransitions(rel, st, t); err != nil {
		return err
	}
	if err := s.triggerWhen(c, rel, st, t); err != nil {
		return err
	}
	if t.Attrs, err = triggerColumns(rel, st.Columns); err != nil {
		return err
	}
	for _, a := range st.Args {
		t.Args = append(t.Args, triggerArg(a))
	}
	if t.FuncOID, err = s.triggerFunction(c, st.Funcname); err != nil {
		return err
	}
	if st.Isconstraint {
		if err := s.constraintTrigger(c, st, t); err != nil {
			return err
		}
	}
	cat := s.eng.Catalog
	old, err := cat.TriggerByName(c.Tx, rel.OID, t.Name)
	if err != nil {
		return err
	}
	if old != nil && st.Replace {
		if old.Constraint != 0 {
			return pgerr.Errorf(pgerr.WrongObjectType, "trigger \"%s\" for relation \"%s\" is a constraint trigger", t.Name, rel.Name)
		}
		return cat.ReplaceTrigger(c.Tx, old, t)
	}
	if err := cat.CreateTrigger(c.Tx, t); err != nil {
		return err
	}
	if rel.IsPartitioned() && st.Row {
		if err := s.cloneTriggerToPartitions(c, rel, t); err != nil {
			return err
		}
	}
	return w.CommandComplete("CREATE TRIGGER")
}

// checkTriggerTarget refuses what the relation's kind, the timing and
// the level do not allow together.
func checkTriggerTarget(rel *catalog.Relation, st *pg.CreateTrigStmt, t *catalog.Trigger) error {
	instead := t.Type&catalog.TriggerTypeInstead != 0
	truncate := t.Type&catalog.TriggerTypeTruncate != 0
	switch {
	case rel.Kind == catalog.KindView:
		if !instead && st.Row {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is a view", rel.Name).
				WithDetail("Views cannot have row-level BEFORE or AFTER triggers.")
		}
		if truncate {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is a view", rel.Name).
				WithDetail("Views cannot have TRUNCATE triggers.")
		}
	case rel.Kind == catalog.KindTable && !rel.MatView:
		if instead {
			what, detail := "table", "Tables cannot have INSTEAD OF triggers."
			if rel.IsPartitioned() {
				what, detail = "partitioned table", "Partitioned tables cannot have INSTEAD OF triggers."
			}
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is a %s", rel.Name, what).WithDetail("%s", detail)
		}
		if rel.IsPartitioned() && st.Row && st.Isconstraint {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is a partitioned table", rel.Name).
				WithDetail("Partitioned tables cannot have ROW triggers.")
		}
	default:
		what := "This operation is not supported for materialized views."
		switch rel.Kind {
		case catalog.KindIndex:
			what = "This operation is not supported for indexes."
		case catalog.KindSequence:
			what = "This operation is not supported for sequences."
		}
		return pgerr.Errorf(pgerr.WrongObjectType, "relation \"%s\" cannot have triggers", rel.Name).WithDetail("%s", what)
	}
	if rel.Namespace == catalog.PgCatalogNamespace {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rel.Name)
	}
	if truncate && st.Row {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "TRUNCATE FOR EACH ROW triggers are not supported")
	}
	if instead {
		switch {
		case !st.Row:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "INSTEAD OF triggers must be FOR EACH ROW")
		case st.WhenClause != nil:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have WHEN conditions")
		case len(st.Columns) > 0:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have column lists")
		}
	}
	return nil
}

// triggerTransitions checks and records REFERENCING OLD / NEW TABLE.
func triggerTransitions(rel *catalog.Relation, st *pg.CreateTrigStmt, t *catalog.Trigger) error {
	for _, n := range st.TransitionRels {
		tt := n.GetTriggerTransition()
		if !tt.IsTable {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "ROW variable naming in the REFERENCING clause is not supported").
				WithHint("Use OLD TABLE or NEW TABLE for naming transition tables.")
		}
		if rel.Kind == catalog.KindView {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is a view", rel.Name).
				WithDetail("Triggers on views cannot have transition tables.")
		}
		if rel.PartBound != "" && st.Row {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is a partition", rel.Name).
				WithDetail("ROW triggers with transition tables are not supported on partitions.")
		}
		if len(rel.Parents) > 0 && rel.PartBound == "" && st.Row {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is an inheritance child", rel.Name).
				WithDetail("ROW triggers with transition tables are not supported on inheritance children.")
		}
		if st.Timing != 0 {
			return pgerr.Errorf(pgerr.InvalidObjectDefinition, "transition table name can only be specified for an AFTER trigger")
		}
		if t.Type&catalog.TriggerTypeTruncate != 0 {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "TRUNCATE triggers with transition tables are not supported")
		}
		events := 0
		for _, b := range []int16{catalog.TriggerTypeInsert, catalog.TriggerTypeUpdate, catalog.TriggerTypeDelete} {
			if t.Type&b != 0 {
				events++
			}
		}
		if events > 1 {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "transition tables cannot be specified for triggers with more than one event")
		}
		if len(st.Columns) > 0 {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "transition tables cannot be specified for triggers with column lists")
		}
		if tt.IsNew {
			if t.Type&(catalog.TriggerTypeInsert|catalog.TriggerTypeUpdate) == 0 {
				return pgerr.Errorf(pgerr.InvalidObjectDefinition, "NEW TABLE can only be specified for an INSERT or UPDATE trigger")
			}
			if t.NewTable != "" {
				return pgerr.Errorf(pgerr.InvalidObjectDefinition, "NEW TABLE cannot be specified multiple times")
			}
			t.NewTable = tt.Name
		} else {
			if t.Type&(catalog.TriggerTypeDelete|catalog.TriggerTypeUpdate) == 0 {
				return pgerr.Errorf(pgerr.InvalidObjectDefinition, "OLD TABLE can only be specified for a DELETE or UPDATE trigger")
			}
			if t.OldTable != "" {
				return pgerr.Errorf(pgerr.InvalidObjectDefinition, "OLD TABLE cannot be specified multiple times")
			}
			t.OldTable = tt.Name
		}
	}
	if t.OldTable != "" && t.OldTable == t.NewTable {
		return pgerr.Errorf(pgerr.InvalidObjectDefinition, "OLD TABLE name and NEW TABLE name cannot be the same")
	}
	return nil
}

var (
	whenRowRef = regexp.MustCompile(`"ColumnRef":\{"fields":\[\{"String":\{"sval":"(old|new)"\}\}(,\{"String":\{"sval":"([^"]*)"\}\}|,\{"A_Star")`)
	sysColumns = map[string]bool{"ctid": true, "xmin": true, "xmax": true, "cmin": true, "cmax": true, "tableoid": true, "oid": true}
)

// triggerWhen checks the WHEN condition and stores its text.
func (s *Session) triggerWhen(c *exec.Ctx, rel *catalog.Relation, st *pg.CreateTrigStmt, t *catalog.Trigger) error {
	if st.WhenClause == nil {
		return nil
	}
	text, err := deparseExpr(st.WhenClause)
	if err != nil {
		return err
	}
	js, err := pg.ParseToJSON("SELECT " + text)
	if err != nil {
		return err
	}
	if strings.Contains(js, `"SubLink"`) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot use subquery in trigger WHEN condition")
	}
	for _, m := range whenRowRef.FindAllStringSubmatch(js, -1) {
		isOld := m[1] == "old"
		switch {
		case !st.Row:
			return pgerr.Errorf(pgerr.InvalidObjectDefinition, "statement trigger's WHEN condition cannot reference column values")
		case isOld && t.Type&catalog.TriggerTypeInsert != 0:
			return pgerr.Errorf(pgerr.InvalidObjectDefinition, "INSERT trigger's WHEN condition cannot reference OLD values")
		case !isOld && t.Type&catalog.TriggerTypeDelete != 0:
			return pgerr.Errorf(pgerr.InvalidObjectDefinition, "DELETE trigger's WHEN condition cannot reference NEW values")
		case !isOld && st.Timing == catalog.TriggerTypeBefore && sysColumns[m[3]]:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "BEFORE trigger's WHEN condition cannot reference NEW system columns")
		}
	}
	if _, err := exec.CompileTriggerWhen(c, rel, text); err != nil {
		return err
	}
	t.Qual = text
	return nil
}

// triggerColumns resolves UPDATE OF's columns.
func triggerColumns(rel *catalog.Relation, cols []*pg.Node) ([]int16, error) {
	var out []int16
	for _, n := range cols {
		name := n.GetString_().GetSval()
		i := rel.AttrByName(name)
		if i < 0 {
			return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, rel.Name)
		}
		for _, a := range out {
			if a == rel.Attrs[i].Num {
				return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
			}
		}
		out = append(out, rel.Attrs[i].Num)
	}
	return out, nil
}

// triggerArg is an argument as the trigger stores it: the literal's text.
func triggerArg(n *pg.Node) string {
	switch {
	case n.GetString_() != nil:
		return n.GetString_().Sval
	case n.GetInteger() != nil:
		return itoa(int(n.GetInteger().Ival))
	case n.GetFloat() != nil:
		return n.GetFloat().Fval
	}
	return ""
}

func itoa(i int) string { return types.FormatText(types.Int4, types.Int(int64(i))) }

// triggerFunction finds the function of EXECUTE FUNCTION name(): one
// without arguments, returning trigger.
func (s *Session) triggerFunction(c *exec.Ctx, funcname []*pg.Node) (uint32, error) {
	schema, name, err := routine.QualifiedName(funcname)
	if err != nil {
		return 0, err
	}
	nsps := []uint32{catalog.PublicNamespace}
	if schema != "" {
		o, err := s.routineNamespace(c, schema)
		if err != nil {
			return 0, err
		}
		nsps = []uint32{o}
	}
	procs, err := s.eng.Catalog.ProcsNamed(c.Tx, name, nsps)
	if err != nil {
		return 0, err
	}
	qname := name
	if schema != "" {
		qname = schema + "." + name
	}
	for _, p := range procs {
		if len(p.ArgTypes) != 0 || p.Kind == catalog.ProcProcedure {
			continue
		}
		if p.RetType != types.TriggerOID {
			return 0, pgerr.Errorf(pgerr.InvalidObjectDefinition, "function %s must return type trigger", qname)
		}
		return p.OID, nil
	}
	return 0, pgerr.Errorf(pgerr.UndefinedFunction, "function %s() does not exist", qname)
}

// constraintTrigger fills in a CONSTRAINT TRIGGER's FROM table and
// stands its constraint for it (tidal records no pg_constraint row for
// it; tgconstraint is the trigger's own OID, so it reads as a constraint
// trigger).
func (s *Session) constraintTrigger(c *exec.Ctx, st *pg.CreateTrigStmt, t *catalog.Trigger) error {
	if st.Replace {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE OR REPLACE CONSTRAINT TRIGGER is not supported")
	}
	if st.Constrrel != nil {
		p := &exec.Planner{C: c}
		from, err := p.OpenRelation(st.Constrrel, int(xact.AccessShareLock))
		if err != nil {
			return err
		}
		t.ConstrRelID = from.OID
	}
	oid, err := s.eng.Catalog.NewOid()
	if err != nil {
		return err
	}
	t.OID, t.Constraint = oid, oid
	return nil
}

// triggerTable opens the table or view a trigger statement names.
func (s *Session) triggerTable(c *exec.Ctx, rv *pg.RangeVar, lock xact.LockMode) (*catalog.Relation, error) {
	if v, err := s.lockedView(c, rv); err != nil || v != nil {
		return v, err
	}
	p := &exec.Planner{C: c}
	return p.OpenRelation(rv, int(lock))
}

// triggerOn finds trigger name of the table rv names.
func (s *Session) triggerOn(c *exec.Ctx, rv *pg.RangeVar, name string, lock xact.LockMode, missingOK bool) (*catalog.Relation, *catalog.Trigger, error) {
	rel, err := s.triggerTable(c, rv, lock)
	if err != nil {
		return nil, nil, err
	}
	t, err := s.eng.Catalog.TriggerByName(c.Tx, rel.OID, name)
	if err != nil {
		return nil, nil, err
	}
	if t == nil && !missingOK {
		return nil, nil, pgerr.Errorf(pgerr.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, rel.Name)
	}
	return rel, t, nil
}

// dropTrigger is DROP TRIGGER [IF EXISTS] name ON table.
func (s *Session) dropTrigger(c *exec.Ctx, ds *pg.DropStmt, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	for _, o := range ds.Objects {
		var parts []string
		for _, n := range o.GetList().GetItems() {
			parts = append(parts, n.GetString_().GetSval())
		}
		if len(parts) < 2 {
			return pgerr.Errorf(pgerr.SyntaxError, "improper trigger name")
		}
		name := parts[len(parts)-1]
		rv := &pg.RangeVar{Relname: parts[len(parts)-2], Inh: true}
		if len(parts) > 2 {
			rv.Schemaname = parts[len(parts)-3]
		}
		_, t, err := s.triggerOn(c, rv, name, xact.AccessExclusiveLock, ds.MissingOk)
		if err != nil {
			if ds.MissingOk && pgerr.Code(err) == pgerr.UndefinedTable {
				w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname))
				continue
			}
			return err
		}
		if t == nil {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "trigger \"%s\" for relation \"%s\" does not exist, skipping", name, rv.Relname))
			continue
		}
		if t.ParentID != 0 {
			if err := s.refuseDropClone(c, rv.Relname, t); err != nil {
				return err
			}
		}
		if err := s.dropTriggerTree(c, t); err != nil {
			return err
		}
	}
	return w.CommandComplete("DROP TRIGGER")
}

// renameTrigger is ALTER TRIGGER name ON table RENAME TO new.
func (s *Session) renameTrigger(c *exec.Ctx, rs *pg.RenameStmt, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	rel, t, err := s.triggerOn(c, rs.Relation, rs.Subname, xact.AccessExclusiveLock, false)
	if err != nil {
		return err
	}
	if other, err := s.eng.Catalog.TriggerByName(c.Tx, rel.OID, rs.Newname); err != nil {
		return err
	} else if other != nil {
		return pgerr.Errorf(pgerr.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", rs.Newname, rel.Name)
	}
	nt := *t
	nt.Name = rs.Newname
	if err := s.eng.Catalog.ReplaceTrigger(c.Tx, t, &nt); err != nil {
		return err
	}
	return w.CommandComplete("ALTER TRIGGER")
}

// alterTriggerCmd runs ALTER TABLE … ENABLE [ALWAYS | REPLICA] / DISABLE
// TRIGGER name | ALL | USER.
func (s *Session) alterTriggerCmd(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd) (bool, error) {
	var state byte
	all, user := false, false
	switch ac.Subtype {
	case pg.AlterTableType_AT_EnableTrig:
		state = catalog.TriggerEnabledOrigin
	case pg.AlterTableType_AT_EnableAlwaysTrig:
		state = catalog.TriggerEnabledAlways
	case pg.AlterTableType_AT_EnableReplicaTrig:
		state = catalog.TriggerEnabledReplica
	case pg.AlterTableType_AT_DisableTrig:
		state = catalog.TriggerDisabled
	case pg.AlterTableType_AT_EnableTrigAll, pg.AlterTableType_AT_EnableTrigUser:
		state, all, user = catalog.TriggerEnabledOrigin, true, ac.Subtype == pg.AlterTableType_AT_EnableTrigUser
	case pg.AlterTableType_AT_DisableTrigAll, pg.AlterTableType_AT_DisableTrigUser:
		state, all, user = catalog.TriggerDisabled, true, ac.Subtype == pg.AlterTableType_AT_DisableTrigUser
	default:
		return false, nil
	}
	_ = user // tidal's foreign keys are not triggers: ALL and USER are the same set
	if err := s.assignXid(c); err != nil {
		return true, err
	}
	cat := s.eng.Catalog
	var list []*catalog.Trigger
	if all {
		list = rel.Triggers
	} else {
		t, err := cat.TriggerByName(c.Tx, rel.OID, ac.Name)
		if err != nil {
			return true, err
		}
		if t == nil {
			return true, pgerr.Errorf(pgerr.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", ac.Name, rel.Name)
		}
		list = []*catalog.Trigger{t}
	}
	for _, t := range list {
		if t.Enabled == state {
			continue
		}
		nt := *t
		nt.Enabled = state
		if err := cat.ReplaceTrigger(c.Tx, t, &nt); err != nil {
			return true, err
		}
	}
	return true, nil
}

// DeferredTriggers is the transaction's queue of deferred constraint
// triggers (exec.DeferredTriggerQueue).
func (s *Session) DeferredTriggers() *exec.DeferredTriggers {
	if s.deferredTrig.Level == nil {
		s.deferredTrig.Level = func() int { return len(s.savepoints) + 1 }
	}
	return &s.deferredTrig
}

// setConstraints is SET CONSTRAINTS { ALL | name, … } { DEFERRED |
// IMMEDIATE }: names are constraint triggers' names, searched in the
// schema given or along the search path.
func (s *Session) setConstraints(c *exec.Ctx, cs *pg.ConstraintsSetStmt, w pgwire.ResultWriter) error {
	var oids []uint32
	if len(cs.Constraints) > 0 {
		oids = []uint32{}
		for _, n := range cs.Constraints {
			rv := n.GetRangeVar()
			ts, err := s.constraintTriggersNamed(c, rv.Schemaname, rv.Relname)
			if err != nil {
				return err
			}
			for _, t := range ts {
				if !t.Deferrable {
					return pgerr.Errorf(pgerr.WrongObjectType, "constraint \"%s\" is not deferrable", rv.Relname)
				}
				oids = append(oids, t.OID)
			}
		}
	}
	if err := s.DeferredTriggers().SetConstraints(c, oids, cs.Deferred); err != nil {
		return err
	}
	return w.CommandComplete("SET CONSTRAINTS")
}

func (s *Session) constraintTriggersNamed(c *exec.Ctx, schema, name string) ([]*catalog.Trigger, error) {
	var out []*catalog.Trigger
	all, err := s.eng.Catalog.AllTriggers(c.Tx)
	if err != nil {
		return nil, err
	}
	for _, t := range all {
		if t.Constraint == 0 || t.Name != name {
			continue
		}
		if schema != "" {
			rel, err := s.eng.Catalog.ByOID(c.Tx, t.RelID)
			if err != nil {
				return nil, err
			}
			if rel == nil || s.eng.Catalog.NamespaceName(rel.Namespace) != schema {
				continue
			}
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" does not exist", name)
	}
	return out, nil
}

// fireDeferredTriggers fires the transaction's deferred constraint
// triggers before it commits; an error makes the commit fail.
func (s *Session) fireDeferredTriggers() error {
	d := s.DeferredTriggers()
	if !d.Pending() {
		return nil
	}
	w := s.lastWriter
	if w == nil {
		return nil
	}
	c := s.newCtx(context.Background(), w)
	return d.FireAtCommit(c)
}

// dropProcTriggers refuses to drop a trigger function triggers use, or
// with CASCADE drops them first.
func (s *Session) dropProcTriggers(c *exec.Ctx, p *catalog.Proc, word string, cascade bool, w pgwire.ResultWriter) error {
	ts, err := s.eng.Catalog.TriggersUsingProc(c.Tx, p.OID)
	if err != nil || len(ts) == 0 {
		return err
	}
	sig := exec.ProcSignature(p)
	var lines []string
	for _, t := range ts {
		rel, err := s.eng.Catalog.ByOID(c.Tx, t.RelID)
		if err != nil {
			return err
		}
		name := "?"
		if rel != nil {
			name = rel.Name
		}
		lines = append(lines, "trigger "+t.Name+" on table "+name)
	}
	if !cascade {
		detail := make([]string, len(lines))
		for i, l := range lines {
			detail[i] = l + " depends on " + word + " " + sig
		}
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", word, sig).
			WithDetail("%s", strings.Join(detail, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(lines) == 1 {
		w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to %s", lines[0]))
	} else {
		w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(lines)).
			WithDetail("drop cascades to %s", strings.Join(lines, "\ndrop cascades to ")))
	}
	for _, t := range ts {
		if err := s.eng.Catalog.DropTrigger(c.Tx, t); err != nil {
			return err
		}
	}
	return nil
}

// Row triggers of a partitioned table are cloned onto each partition
// (tgparentid the parent's trigger), as PostgreSQL 13+ does: the rows
// live in the partitions, whose triggers fire. Partitions added later
// get clones; DETACH drops them; DROP TRIGGER on the parent drops them
// with it, and a clone cannot be dropped by itself.

// cloneTriggerToPartitions clones row trigger t of partitioned table rel
// onto each partition, recursively.
func (s *Session) cloneTriggerToPartitions(c *exec.Ctx, rel *catalog.Relation, t *catalog.Trigger) error {
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := s.cloneTrigger(c, t, k); err != nil {
			return err
		}
	}
	return nil
}

// cloneTrigger gives table oid a clone of parent trigger t (and its
// partitions clones of that).
func (s *Session) cloneTrigger(c *exec.Ctx, t *catalog.Trigger, oid uint32) error {
	cat := s.eng.Catalog
	child, err := cat.ByOID(c.Tx, oid)
	if err != nil || child == nil {
		return err
	}
	if existing, err := cat.TriggerByName(c.Tx, oid, t.Name); err != nil {
		return err
	} else if existing != nil {
		return pgerr.Errorf(pgerr.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", t.Name, child.Name)
	}
	ct := *t
	ct.OID, ct.RelID, ct.ParentID = 0, oid, t.OID
	if t.Constraint != 0 {
		ct.Constraint = 0
	}
	// UPDATE OF names columns by number: the partition's may differ.
	parent, err := cat.ByOID(c.Tx, t.RelID)
	if err != nil || parent == nil {
		return err
	}
	ct.Attrs = nil
	for _, a := range t.Attrs {
		if i := child.AttrByName(parent.Attrs[a-1].Name); i >= 0 {
			ct.Attrs = append(ct.Attrs, child.Attrs[i].Num)
		}
	}
	if t.Constraint != 0 {
		if ct.OID, err = cat.NewOid(); err != nil {
			return err
		}
		ct.Constraint = ct.OID
	}
	if err := cat.CreateTrigger(c.Tx, &ct); err != nil {
		return err
	}
	if child.IsPartitioned() {
		return s.cloneTriggerToPartitions(c, child, &ct)
	}
	return nil
}

// cloneParentTriggers gives a new partition oid clones of parent's row
// triggers.
func (s *Session) cloneParentTriggers(c *exec.Ctx, parent *catalog.Relation, oid uint32) error {
	for _, t := range parent.Triggers {
		if t.Type&catalog.TriggerTypeRow == 0 {
			continue
		}
		if err := s.cloneTrigger(c, t, oid); err != nil {
			return err
		}
	}
	return nil
}

// dropClonedTriggers drops a detached partition's clones.
func (s *Session) dropClonedTriggers(c *exec.Ctx, rel *catalog.Relation) error {
	for _, t := range rel.Triggers {
		if t.ParentID != 0 {
			if err := s.dropTriggerTree(c, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropTriggerTree drops trigger t and its clones on partitions.
func (s *Session) dropTriggerTree(c *exec.Ctx, t *catalog.Trigger) error {
	all, err := s.eng.Catalog.AllTriggers(c.Tx)
	if err != nil {
		return err
	}
	for _, k := range all {
		if k.ParentID == t.OID {
			if err := s.dropTriggerTree(c, k); err != nil {
				return err
			}
		}
	}
	return s.eng.Catalog.DropTrigger(c.Tx, t)
}

// refuseDropClone is PostgreSQL's error for dropping a clone by itself.
func (s *Session) refuseDropClone(c *exec.Ctx, table string, t *catalog.Trigger) error {
	parent, err := s.eng.Catalog.TriggerByOID(c.Tx, t.ParentID)
	if err != nil || parent == nil {
		return err
	}
	prel, err := s.eng.Catalog.ByOID(c.Tx, parent.RelID)
	if err != nil || prel == nil {
		return err
	}
	return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop trigger %s on table %s because trigger %s on table %s requires it", t.Name, table, parent.Name, prel.Name).
		WithHint("You can drop trigger %s on table %s instead.", parent.Name, prel.Name)
}

// dropColumnTriggers refuses to drop a column a trigger depends on
// (UPDATE OF it, or its WHEN reads it), or with CASCADE drops them.
func (s *Session) dropColumnTriggers(c *exec.Ctx, rel *catalog.Relation, num int16, name string, cascade bool) error {
	var deps []*catalog.Trigger
	for _, t := range rel.Triggers {
		uses, err := exec.TriggerUsesColumn(c, rel, t, num)
		if err != nil {
			return err
		}
		if uses {
			deps = append(deps, t)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].OID < deps[j].OID })
	col := "column " + name + " of table " + rel.Name
	if !cascade {
		lines := make([]string, len(deps))
		for i, t := range deps {
			lines[i] = "trigger " + t.Name + " on table " + rel.Name + " depends on " + col
		}
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", col).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, t := range deps {
		c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to trigger %s on table %s", t.Name, rel.Name))
		if err := s.dropTriggerTree(c, t); err != nil {
			return err
		}
	}
	return nil
}
