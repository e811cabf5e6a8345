package session

import (
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// User views (CREATE [OR REPLACE] [TEMP] VIEW, DROP VIEW) and materialized
// views. A view is a pg_class row of relkind 'v' with its columns and a
// pg_rewrite "_RETURN" rule holding the normalized query text
// (exec.NormalizeViewQuery); the planner expands it where it is named
// (exec/userviews.go). pg_depend ties the rule to every relation it reads.

// viewQuery plans a view's (or materialized view's) query and returns
// the definition's stored text, columns (named by aliases where given)
// and the relations and columns it reads. The stored form is the
// normalized query (exec.NormalizeViewQuery); its plan gives the columns,
// so a star over a USING join has PostgreSQL's column order.
func (s *Session) viewQuery(c *exec.Ctx, query *pg.SelectStmt, aliases []*pg.Node, what string) (catalog.ViewDef, error) {
	var d catalog.ViewDef
	if _, _, err := (&exec.Planner{C: c, PlanOnly: true}).PlanSelect(query); err != nil {
		return d, err
	}
	stored := proto.Clone(query).(*pg.SelectStmt)
	(&exec.Planner{C: c}).NormalizeViewQuery(stored)
	p := &exec.Planner{C: c, PlanOnly: true, Uses: map[uint32]bool{}, UsedColumns: map[uint32]map[int16]bool{}}
	_, cols, err := p.PlanSelect(stored)
	if err != nil {
		return d, fmt.Errorf("planning the view's stored query: %w", err)
	}
	if d.Query, err = exec.DeparseSelect(stored); err != nil {
		return d, fmt.Errorf("storing the view's query: %w", err)
	}
	if len(aliases) > len(cols) {
		return d, pgerr.Errorf(pgerr.SyntaxError, "CREATE %s specifies more column names than columns", what)
	}
	seen := map[string]bool{}
	for i, col := range cols {
		name := col.Name
		if i < len(aliases) {
			name = aliases[i].GetString_().GetSval()
		}
		if seen[name] {
			return d, pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		seen[name] = true
		t := col.Type
		if t.OID == types.UnknownOID {
			t = types.Text
		}
		d.Attrs = append(d.Attrs, catalog.Attr{Name: name, Type: t})
	}
	d.UsedColumns = map[uint32][]int16{}
	for oid := range p.Uses {
		d.Uses = append(d.Uses, oid)
		for a := range p.UsedColumns[oid] {
			d.UsedColumns[oid] = append(d.UsedColumns[oid], a)
		}
		sort.Slice(d.UsedColumns[oid], func(i, j int) bool { return d.UsedColumns[oid][i] < d.UsedColumns[oid][j] })
	}
	sort.Slice(d.Uses, func(i, j int) bool { return d.Uses[i] < d.Uses[j] })
	return d, nil
}

// viewOptions checks CREATE VIEW's WITH options and WITH CHECK OPTION
// (PostgreSQL's view reloptions) and returns them as reloptions.
func viewOptions(defs []*pg.Node, check pg.ViewCheckOption) (map[string]string, error) {
	opts := map[string]string{}
	for _, n := range defs {
		de := n.GetDefElem()
		switch de.Defname {
		case "security_barrier", "security_invoker":
			b, err := defBool(de)
			if n := de.Arg.GetInteger(); n != nil && n.Ival != 0 && n.Ival != 1 {
				err = fmt.Errorf("not a boolean")
			}
			if err != nil {
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for boolean option \"%s\": %s", de.Defname, defText(de))
			}
			opts[de.Defname] = fmt.Sprint(b)
		case "check_option":
			v := strings.ToLower(defText(de))
			if v != "local" && v != "cascaded" {
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for enum option \"check_option\": %s", defText(de)).
					WithDetail("Valid values are \"local\" and \"cascaded\".")
			}
			opts["check_option"] = v
		default:
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
		}
	}
	switch check {
	case pg.ViewCheckOption_LOCAL_CHECK_OPTION:
		opts["check_option"] = "local"
	case pg.ViewCheckOption_CASCADED_CHECK_OPTION:
		opts["check_option"] = "cascaded"
	}
	if len(opts) == 0 {
		return nil, nil
	}
	return opts, nil
}

// defText is a DefElem's argument as written.
func defText(de *pg.DefElem) string {
	switch {
	case de.Arg == nil:
		return "true"
	case de.Arg.GetString_() != nil:
		return de.Arg.GetString_().Sval
	case de.Arg.GetInteger() != nil:
		return fmt.Sprint(de.Arg.GetInteger().Ival)
	case de.Arg.GetFloat() != nil:
		return de.Arg.GetFloat().Fval
	case de.Arg.GetTypeName() != nil:
		n := de.Arg.GetTypeName().Names
		return n[len(n)-1].GetString_().GetSval()
	}
	return ""
}

func (s *Session) createView(c *exec.Ctx, vs *pg.ViewStmt, w pgwire.ResultWriter) error {
	sel := vs.Query.GetSelectStmt()
	if sel == nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "views must not contain data-modifying statements in WITH")
	}
	opts, err := viewOptions(vs.Options, vs.WithCheckOption)
	if err != nil {
		return err
	}
	def, err := s.viewQuery(c, sel, vs.Aliases, "VIEW")
	if err != nil {
		return err
	}
	rv := vs.View
	if rv.Relpersistence != "t" && s.readsTemp(c, def.Uses) {
		if rv.Schemaname != "" && rv.Schemaname != "pg_temp" {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
		}
		c.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", "view \"%s\" will be a temporary view", rv.Relname))
		rv = &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Relpersistence: "t", Location: rv.Location}
	}
	if _, ok := opts["check_option"]; ok {
		if err := s.checkOptionAllowed(c, sel); err != nil {
			return err
		}
	}
	nsp, err := s.namespaceFor(c, rv)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	existing, err := s.eng.Catalog.LookupIn(c.Tx, nsp, rv.Relname)
	if err != nil {
		return err
	}
	def.Namespace, def.Name, def.Options = nsp, rv.Relname, opts
	if existing != nil && vs.Replace {
		if existing.Kind != catalog.KindView {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a view", rv.Relname)
		}
		if err := checkViewReplacement(existing, def.Attrs); err != nil {
			return err
		}
		if err := s.lockRel(c, existing.OID, xact.AccessExclusiveLock); err != nil {
			return err
		}
		if err := s.eng.Catalog.ReplaceView(c.Tx, existing, def); err != nil {
			return err
		}
		return w.CommandComplete("CREATE VIEW")
	}
	if _, err := s.eng.Catalog.CreateView(c.Tx, def); err != nil {
		return err
	}
	return w.CommandComplete("CREATE VIEW")
}

// readsTemp: one of the relations is temporary (the view must be too).
func (s *Session) readsTemp(c *exec.Ctx, uses []uint32) bool {
	for _, oid := range uses {
		if r, _ := s.eng.Catalog.ByOID(c.Tx, oid); r != nil && r.IsTemp() {
			return true
		}
	}
	return false
}

// checkViewReplacement applies CREATE OR REPLACE VIEW's rule: the new
// query keeps every old column, same name and type, and may only add
// columns at the end.
func checkViewReplacement(old *catalog.Relation, attrs []catalog.Attr) error {
	var live []catalog.Attr
	for _, a := range old.Attrs {
		if !a.Dropped {
			live = append(live, a)
		}
	}
	if len(attrs) < len(live) {
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, a := range live {
		n := attrs[i]
		if n.Name != a.Name {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", a.Name, n.Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if n.Type.OID != a.Type.OID || n.Type.Typmod != a.Type.Typmod {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s", a.Name, a.Type.String(), n.Type.String())
		}
	}
	return nil
}

// relDescription names a relation as PostgreSQL's getObjectDescription.
func relDescription(r *catalog.Relation) string {
	switch {
	case r.MatView:
		return "materialized view " + r.Name
	case r.Kind == catalog.KindView:
		return "view " + r.Name
	case r.Kind == catalog.KindSequence:
		return "sequence " + r.Name
	case r.Kind == catalog.KindIndex:
		return "index " + r.Name
	}
	return "table " + r.Name
}

// dependentViews lists, depth first, the views that read rel directly or
// through other views, each with the object it depends on, leaving out
// those in dropping (the statement drops them anyway).
func (s *Session) dependentViews(c *exec.Ctx, rel *catalog.Relation, dropping []*catalog.Relation) ([]*catalog.Relation, []string, error) {
	var out []*catalog.Relation
	var on []string
	seen := map[uint32]bool{rel.OID: true}
	for _, d := range dropping {
		seen[d.OID] = true
	}
	var visit func(r *catalog.Relation) error
	visit = func(r *catalog.Relation) error {
		deps, err := s.eng.Catalog.ViewDependents(c.Tx, r.OID)
		if err != nil {
			return err
		}
		for _, oid := range deps {
			if seen[oid] {
				continue
			}
			seen[oid] = true
			v, err := s.eng.Catalog.ByOID(c.Tx, oid)
			if err != nil || v == nil {
				return err
			}
			out = append(out, v)
			on = append(on, relDescription(r))
			if err := visit(v); err != nil {
				return err
			}
		}
		return nil
	}
	return out, on, visit(rel)
}

// dropDependentViews refuses to drop rel while views read it, or with
// CASCADE drops them first (with PostgreSQL's notice).
func (s *Session) dropDependentViews(c *exec.Ctx, rel *catalog.Relation, dropping []*catalog.Relation, cascade bool) error {
	views, on, err := s.dependentViews(c, rel, dropping)
	if err != nil || len(views) == 0 {
		return err
	}
	return s.dropViewsFor(c, relDescription(rel), views, on, cascade)
}

// dropColumnViews is dropDependentViews for a column of rel that is
// being dropped.
func (s *Session) dropColumnViews(c *exec.Ctx, rel *catalog.Relation, num int16, name string, cascade bool) error {
	direct, err := s.eng.Catalog.ColumnViewDependents(c.Tx, rel.OID, num)
	if err != nil || len(direct) == 0 {
		return err
	}
	col := fmt.Sprintf("column %s of %s", name, relDescription(rel))
	var views []*catalog.Relation
	var on []string
	for _, oid := range direct {
		v, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || v == nil {
			return err
		}
		views, on = append(views, v), append(on, col)
		more, moreOn, err := s.dependentViews(c, v, views)
		if err != nil {
			return err
		}
		views, on = append(views, more...), append(on, moreOn...)
	}
	return s.dropViewsFor(c, col, views, on, cascade)
}

// checkColumnTypeChange refuses ALTER COLUMN TYPE of a column a view
// reads, as PostgreSQL does.
func (s *Session) checkColumnTypeChange(c *exec.Ctx, rel *catalog.Relation, num int16, name string) error {
	direct, err := s.eng.Catalog.ColumnViewDependents(c.Tx, rel.OID, num)
	if err != nil || len(direct) == 0 {
		return err
	}
	v, err := s.eng.Catalog.ByOID(c.Tx, direct[0])
	if err != nil || v == nil {
		return err
	}
	return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot alter type of a column used by a view or rule").
		WithDetail("rule _RETURN on %s depends on column \"%s\"", relDescription(v), name)
}

// dropViewsFor refuses to drop what (views depend on it, each on on[i])
// or, with CASCADE, drops the views, last dependent first.
func (s *Session) dropViewsFor(c *exec.Ctx, what string, views []*catalog.Relation, on []string, cascade bool) error {
	var lines []string
	for i, v := range views {
		if cascade {
			lines = append(lines, "drop cascades to "+relDescription(v))
		} else {
			lines = append(lines, relDescription(v)+" depends on "+on[i])
		}
	}
	if !cascade {
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(lines) == 1 {
		c.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", "%s", lines[0]))
	} else {
		n := pgerr.Noticef(pgerr.SevNotice, "00000", "drop cascades to %d other objects", len(lines))
		n.Detail = strings.Join(lines, "\n")
		c.Notice(n)
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	for i := len(views) - 1; i >= 0; i-- {
		if err := s.lockRel(c, views[i].OID, xact.AccessExclusiveLock); err != nil {
			return err
		}
		cur, err := s.eng.Catalog.ByOID(c.Tx, views[i].OID)
		if err != nil {
			return err
		}
		if cur == nil {
			continue
		}
		if err := s.eng.Catalog.DropRelation(c.Tx, cur); err != nil {
			return err
		}
	}
	return nil
}

// relKind is a relation's pg_class.relkind.
func relKind(r *catalog.Relation) byte {
	if r.MatView {
		return catalog.KindMatView
	}
	return r.Kind
}

// wrongDropKind is DROP's error for a relation of another kind
// (DropErrorMsgWrongType).
func wrongDropKind(rel *catalog.Relation, name, what string) error {
	article := "a"
	if what == "index" {
		article = "an"
	}
	cmd := map[byte]string{catalog.KindTable: "TABLE", catalog.KindIndex: "INDEX", catalog.KindSequence: "SEQUENCE",
		catalog.KindView: "VIEW", catalog.KindMatView: "MATERIALIZED VIEW"}[relKind(rel)]
	obj := map[byte]string{catalog.KindTable: "a table", catalog.KindIndex: "an index", catalog.KindSequence: "a sequence",
		catalog.KindView: "a view", catalog.KindMatView: "a materialized view"}[relKind(rel)]
	return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not %s %s", name, article, what).
		WithHint("Use DROP %s to remove %s.", cmd, obj)
}

// checkOptionAllowed refuses WITH CHECK OPTION on a view that is not
// automatically updatable, as PostgreSQL does.
func (s *Session) checkOptionAllowed(c *exec.Ctx, sel *pg.SelectStmt) error {
	if why := exec.ViewNotUpdatable(sel); why != "" {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views").
			WithHint("%s", why)
	}
	return nil
}

// createMatView runs CREATE MATERIALIZED VIEW: a table holding the
// query's rows, with the query kept as its _RETURN rule for REFRESH.
func (s *Session) createMatView(c *exec.Ctx, ctas *pg.CreateTableAsStmt, w pgwire.ResultWriter) error {
	into := ctas.Into
	query := ctas.Query.GetSelectStmt()
	if query == nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "materialized views may not be defined using bound parameters")
	}
	rv := into.Rel
	if existing, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname); err != nil {
		return err
	} else if existing != nil && ctas.IfNotExists {
		w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateTable, "relation \"%s\" already exists, skipping", rv.Relname))
		return w.CommandComplete("CREATE MATERIALIZED VIEW")
	}
	def, err := s.viewQuery(c, query, into.ColNames, "MATERIALIZED VIEW")
	if err != nil {
		return err
	}
	if s.readsTemp(c, def.Uses) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "materialized views must not use temporary tables or views")
	}
	nsp, err := s.namespaceFor(c, rv)
	if err != nil {
		return err
	}
	am, err := s.newTableAM(into.AccessMethod)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	def.Namespace, def.Name, def.Materialized, def.Populated, def.AM = nsp, rv.Relname, true, !into.SkipData, am
	oid, err := s.eng.Catalog.CreateView(c.Tx, def)
	if err != nil {
		return err
	}
	if into.SkipData {
		return w.CommandComplete("CREATE MATERIALIZED VIEW")
	}
	mv, err := s.eng.Catalog.ByOID(c.Tx, oid)
	if err != nil {
		return err
	}
	n, err := s.fillMatView(c, mv)
	if err != nil {
		return err
	}
	return w.CommandComplete(fmt.Sprintf("SELECT %d", n))
}

// matViewTarget names mv for a statement the engine runs on it.
func (s *Session) matViewTarget(mv *catalog.Relation) *pg.RangeVar {
	return &pg.RangeVar{Schemaname: s.eng.Catalog.NamespaceName(mv.Namespace), Relname: mv.Name, Inh: true, Location: -1}
}

// fillMatView inserts the rows of mv's stored query.
func (s *Session) fillMatView(c *exec.Ctx, mv *catalog.Relation) (int64, error) {
	sel, err := exec.ParseViewQuery(mv)
	if err != nil {
		return 0, err
	}
	insert := &pg.InsertStmt{Relation: s.matViewTarget(mv), SelectStmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}
	mt, err := (&exec.Planner{C: c, FillMatView: true}).PlanInsert(insert)
	if err != nil {
		return 0, err
	}
	if err := exec.Run(c, mt, nil); err != nil {
		return 0, err
	}
	return mt.Count, nil
}

// refreshMatView runs REFRESH MATERIALIZED VIEW: the rows are replaced by
// the query's current result in the statement's transaction (MVCC: with
// CONCURRENTLY, readers keep seeing the old rows until it commits).
func (s *Session) refreshMatView(c *exec.Ctx, rs *pg.RefreshMatViewStmt, w pgwire.ResultWriter) error {
	if rs.Concurrent && rs.SkipData {
		return pgerr.Errorf(pgerr.SyntaxError, "%s and %s options cannot be used together", "CONCURRENTLY", "WITH NO DATA")
	}
	rel, err := s.eng.Catalog.Lookup(c.Tx, rs.Relation.Schemaname, rs.Relation.Relname)
	if err != nil {
		return err
	}
	if rel == nil {
		e := pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rs.Relation.Schemaname, rs.Relation.Relname))
		e.Position = rs.Relation.Location + 1
		return e
	}
	if !rel.MatView {
		return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a materialized view", rel.Name)
	}
	mode := xact.AccessExclusiveLock
	if rs.Concurrent {
		mode = xact.ExclusiveLock
		if !rel.Populated {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "CONCURRENTLY cannot be used when the materialized view is not populated")
		}
		if !hasPlainUniqueIndex(rel) {
			return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "cannot refresh materialized view \"%s\" concurrently", qualName(s.eng.Catalog.NamespaceName(rel.Namespace), rel.Name)).
				WithHint("Create a unique index with no WHERE clause on one or more columns of the materialized view.")
		}
	}
	if err := s.lockRel(c, rel.OID, mode); err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	del := &pg.DeleteStmt{Relation: s.matViewTarget(rel)}
	mt, err := (&exec.Planner{C: c, FillMatView: true}).PlanDelete(del)
	if err != nil {
		return err
	}
	if err := exec.Run(c, mt, nil); err != nil {
		return err
	}
	if err := s.eng.Catalog.SetPopulated(c.Tx, rel.OID, !rs.SkipData); err != nil {
		return err
	}
	if !rs.SkipData {
		cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
		if err != nil {
			return err
		}
		if _, err := s.fillMatView(c, cur); err != nil {
			return err
		}
	}
	return w.CommandComplete("REFRESH MATERIALIZED VIEW")
}

func hasPlainUniqueIndex(rel *catalog.Relation) bool {
	for _, ix := range rel.Indexes {
		if ix.Index != nil && ix.Index.Unique {
			return true
		}
	}
	return false
}

// renameInViews rewrites the stored queries of the views that read rel
// for a rename of rel or of one of its columns (before the catalog
// changes, while the old names still resolve).
func (s *Session) renameInViews(c *exec.Ctx, rel *catalog.Relation, r exec.ViewRename) error {
	deps, err := s.eng.Catalog.ViewDependents(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	r.Rel = rel.OID
	for _, oid := range deps {
		v, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || v == nil {
			return err
		}
		sel, err := exec.ParseViewQuery(v)
		if err != nil {
			return err
		}
		(&exec.Planner{C: c}).RenameInViewQuery(sel, r)
		text, err := exec.DeparseSelect(sel)
		if err != nil {
			return fmt.Errorf("renaming in view %s: %w", v.Name, err)
		}
		if err := s.eng.Catalog.SetViewQuery(c.Tx, oid, text); err != nil {
			return err
		}
	}
	return nil
}

// viewTag is the command tag of ALTER VIEW / ALTER MATERIALIZED VIEW
// forms ("" for others).
func viewTag(objType, relType pg.ObjectType) string {
	if objType == pg.ObjectType_OBJECT_COLUMN {
		objType = relType
	}
	switch objType {
	case pg.ObjectType_OBJECT_VIEW:
		return "ALTER VIEW"
	case pg.ObjectType_OBJECT_MATVIEW:
		return "ALTER MATERIALIZED VIEW"
	}
	return ""
}

// checkViewKind refuses ALTER VIEW / ALTER MATERIALIZED VIEW of a
// relation of another kind (ALTER TABLE may name any).
func checkViewKind(rel *catalog.Relation, objType, relType pg.ObjectType) error {
	if objType == pg.ObjectType_OBJECT_COLUMN {
		objType = relType
	}
	switch {
	case objType == pg.ObjectType_OBJECT_VIEW && relKind(rel) != catalog.KindView:
		return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a view", rel.Name)
	case objType == pg.ObjectType_OBJECT_MATVIEW && !rel.MatView:
		return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a materialized view", rel.Name)
	}
	return nil
}

// alterView runs ALTER VIEW / ALTER MATERIALIZED VIEW (and ALTER TABLE
// naming a view): column defaults, options, owner.
func (s *Session) alterView(c *exec.Ctx, rel *catalog.Relation, at *pg.AlterTableStmt, w pgwire.ResultWriter) error {
	if err := checkViewKind(rel, at.Objtype, at.Objtype); err != nil {
		return err
	}
	tag := viewTag(at.Objtype, at.Objtype)
	if tag == "" {
		tag = "ALTER TABLE"
	}
	for _, cmd := range at.Cmds {
		ac := cmd.GetAlterTableCmd()
		cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
		if err != nil {
			return err
		}
		switch ac.Subtype {
		case pg.AlterTableType_AT_ColumnDefault:
			if rel.MatView {
				return pgerr.Errorf(pgerr.WrongObjectType, "ALTER action ALTER COLUMN ... SET DEFAULT cannot be performed on relation \"%s\"", rel.Name).
					WithDetail("This operation is not supported for materialized views.")
			}
			if _, err := s.alterColumnCmd(c, cur, ac); err != nil {
				return err
			}
		case pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions:
			if rel.MatView {
				if _, err := s.alterColumnCmd(c, cur, ac); err != nil {
					return err
				}
				continue
			}
			opts := map[string]string{}
			for k, v := range cur.Options {
				opts[k] = v
			}
			items := ac.Def.GetList().GetItems()
			if ac.Subtype == pg.AlterTableType_AT_ResetRelOptions {
				for _, n := range items {
					delete(opts, n.GetDefElem().Defname)
				}
			} else {
				set, err := viewOptions(items, pg.ViewCheckOption_NO_CHECK_OPTION)
				if err != nil {
					return err
				}
				for k, v := range set {
					opts[k] = v
				}
			}
			if err := s.assignXid(c); err != nil {
				return err
			}
			if err := s.eng.Catalog.SetRelOptions(c.Tx, cur, opts); err != nil {
				return err
			}
		case pg.AlterTableType_AT_ChangeOwner:
			if err := s.setRelOwner(c, cur, ac.Newowner); err != nil {
				return err
			}
		default:
			if action, ok := viewRefusedActions[ac.Subtype]; ok {
				what := map[bool]string{true: "materialized views", false: "views"}[rel.MatView]
				return pgerr.Errorf(pgerr.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", action, rel.Name).
					WithDetail("This operation is not supported for %s.", what)
			}
			if rel.MatView {
				if handled, err := s.alterColumnCmd(c, cur, ac); handled || err != nil {
					if err != nil {
						return err
					}
					continue
				}
				return pgerr.Errorf(pgerr.FeatureNotSupported, "this ALTER MATERIALIZED VIEW form is not supported yet")
			}
			return pgerr.Errorf(pgerr.FeatureNotSupported, "this ALTER VIEW form is not supported yet")
		}
	}
	return w.CommandComplete(tag)
}

// setRelOwner is OWNER TO: pg_class.relowner becomes the role's OID.
func (s *Session) setRelOwner(c *exec.Ctx, rel *catalog.Relation, spec *pg.RoleSpec) error {
	roleName := spec.GetRolename()
	switch spec.GetRoletype() {
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_SESSION_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		roleName = s.currentUser()
	}
	role, err := s.eng.Catalog.LookupRole(c.Tx, roleName)
	if err != nil {
		return err
	}
	if role == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", roleName)
	}
	if role.OID == rel.Owner {
		return nil
	}
	if err := s.checkNewOwner(c, role, rel.Namespace); err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.eng.Catalog.SetRelOwner(c.Tx, rel.OID, role.OID); err != nil {
		return err
	}
	if rel.ACL == nil {
		return nil
	}
	oldName, err := s.eng.Catalog.RoleName(c.Tx, rel.Owner)
	if err != nil {
		return err
	}
	return s.eng.Catalog.SetRelACL(c.Tx, rel.OID, rel.ACL.NewOwner(oldName, role.Name))
}

// lockedView is the view rv names, locked for ALTER (nil when rv names
// no view).
func (s *Session) lockedView(c *exec.Ctx, rv *pg.RangeVar) (*catalog.Relation, error) {
	v, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname)
	if err != nil || v == nil || v.Kind != catalog.KindView {
		return nil, err
	}
	if err := s.lockRel(c, v.OID, xact.AccessExclusiveLock); err != nil {
		return nil, err
	}
	return s.eng.Catalog.ByOID(c.Tx, v.OID)
}

// viewRefusedActions are the ALTER TABLE actions views and materialized
// views refuse, with PostgreSQL's names for them (alter_table_type_to_string).
var viewRefusedActions = map[pg.AlterTableType]string{
	pg.AlterTableType_AT_AddColumn:       "ADD COLUMN",
	pg.AlterTableType_AT_DropColumn:      "DROP COLUMN",
	pg.AlterTableType_AT_AlterColumnType: "ALTER COLUMN ... SET DATA TYPE",
	pg.AlterTableType_AT_SetNotNull:      "ALTER COLUMN ... SET NOT NULL",
	pg.AlterTableType_AT_DropNotNull:     "ALTER COLUMN ... DROP NOT NULL",
	pg.AlterTableType_AT_AddConstraint:   "ADD CONSTRAINT",
	pg.AlterTableType_AT_DropConstraint:  "DROP CONSTRAINT",
	pg.AlterTableType_AT_AddIdentity:     "ALTER COLUMN ... ADD IDENTITY",
}

// lockView is LOCK TABLE of a view: the view and, recursively, the
// relations its query reads (PostgreSQL's LockViewRecurse).
func (s *Session) lockView(c *exec.Ctx, view *catalog.Relation, mode xact.LockMode, nowait bool, depth int) error {
	if err := s.lockOne(c, view, mode, nowait); err != nil {
		return err
	}
	uses, err := s.eng.Catalog.ViewUses(c.Tx, view.OID)
	if err != nil || depth > 100 {
		return err
	}
	for _, oid := range uses {
		r, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || r == nil {
			return err
		}
		if r.Kind == catalog.KindView {
			err = s.lockView(c, r, mode, nowait, depth+1)
		} else {
			err = s.lockOne(c, r, mode, nowait)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
