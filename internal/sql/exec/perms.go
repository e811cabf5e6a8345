package exec

// Privilege checks for the relations a statement reads and writes, as
// PostgreSQL's ExecCheckRTPerms: while a statement is planned, each
// relation it opens notes what it needs (SELECT for what it reads,
// INSERT/UPDATE/DELETE for the target, UPDATE for FOR UPDATE) and which
// columns it reads, inserts and updates; once planning succeeds, every
// note is checked against the relation's ACL and, where the table-level
// privilege is missing, its columns'. A view's own query is checked as
// the view's owner. Superusers skip all of it, so a superuser's
// statements (pgbench's) pay one setting lookup per statement. A kept
// plan (plancache) is valid only under the settings it was planned with,
// role included, and only until the catalog changes (GRANT does), so a
// plan that passed its checks stays allowed.

import (
	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/xact"
)

const lockRowShare = int(xact.RowShareLock)

// relAccess is what a statement needs of one relation (a range table
// entry's requiredPerms and column sets).
type relAccess struct {
	rel *catalog.Relation
	// as is the role checked (a view owner's OID; 0: the current user).
	as     uint32
	target bool // the statement's INSERT/UPDATE/DELETE target
	need   acl.Mode
	sel    map[int16]bool
	ins    map[int16]bool
	upd    map[int16]bool
}

// accessChecks collects a statement's relAccess notes while it is
// planned.
type accessChecks struct {
	rels []*relAccess
	as   uint32   // the role checked for relations opened now (a view's owner)
	dml  acl.Mode // what the statement's target needs (Insert, Update, Delete)
}

// startAccessChecks begins collecting for a statement about to be
// planned, unless the current user is a superuser.
func (p *Planner) startAccessChecks() {
	p.acc = nil
	if p.PlanOnly || p.C == nil || p.C.Setting == nil || p.C.Setting("is_superuser") == "on" {
		return
	}
	p.acc = &accessChecks{}
}

// setDMLAccess says what the statement being planned needs of its
// target relation.
func (p *Planner) setDMLAccess(m acl.Mode) {
	if p.acc != nil {
		p.acc.dml = m
	}
}

// noteRelAccess records a relation OpenRelation opened with lockMode.
func (p *Planner) noteRelAccess(rel *catalog.Relation, lockMode int) {
	if p.acc == nil {
		return
	}
	var need acl.Mode
	target := false
	switch lockMode {
	case lockAccessShare:
		need = acl.Select
	case lockRowShare:
		need = acl.Select | acl.Update
	case lockRowExclusive:
		need, target = p.acc.dml, true
		if need == 0 {
			need = acl.Update
		}
	default:
		return
	}
	ra := p.acc.find(rel.OID, target)
	if ra == nil {
		ra = &relAccess{rel: rel, as: p.acc.as, target: target}
		p.acc.rels = append(p.acc.rels, ra)
	}
	ra.need |= need
}

func (a *accessChecks) find(oid uint32, target bool) *relAccess {
	for _, ra := range a.rels {
		if ra.rel.OID == oid && ra.as == a.as && ra.target == target {
			return ra
		}
	}
	return nil
}

// noteColumnRead records that the statement reads column attnum of
// table (a reference resolved in a scope).
func (p *Planner) noteColumnRead(table uint32, attnum int16) {
	if p.acc == nil {
		return
	}
	for _, ra := range p.acc.rels {
		if ra.rel.OID == table && ra.as == p.acc.as {
			ra.sel = addCol(ra.sel, attnum)
		}
	}
}

// noteColumnWrite records that the statement inserts (m = Insert) or
// updates (m = Update) column attnum of its target rel.
func (p *Planner) noteColumnWrite(rel *catalog.Relation, m acl.Mode, attnum int16) {
	if p.acc == nil {
		return
	}
	ra := p.acc.find(rel.OID, true)
	if ra == nil {
		return
	}
	if m == acl.Insert {
		ra.ins = addCol(ra.ins, attnum)
	} else {
		ra.upd = addCol(ra.upd, attnum)
		ra.need |= acl.Update
	}
}

func addCol(m map[int16]bool, attnum int16) map[int16]bool {
	if m == nil {
		m = map[int16]bool{}
	}
	m[attnum] = true
	return m
}

// asViewOwner makes the relations opened until done be checked as
// view's owner.
func (p *Planner) asViewOwner(view *catalog.Relation) (done func()) {
	if p.acc == nil {
		return func() {}
	}
	prior := p.acc.as
	p.acc.as = view.Owner
	return func() { p.acc.as = prior }
}

// checkAccess checks every note of the statement just planned.
func (p *Planner) checkAccess() error {
	if p.acc == nil || len(p.acc.rels) == 0 {
		return nil
	}
	az, err := p.C.Eng.Catalog.NewAuthz(p.C.Tx)
	if err != nil {
		return err
	}
	current := az.Role(p.C.CurrentUser())
	if current == nil {
		current = &catalog.Role{}
	}
	for _, ra := range p.acc.rels {
		user := current
		if ra.as != 0 {
			if user = az.RoleByOID(ra.as); user == nil {
				user = &catalog.Role{OID: ra.as}
			}
		}
		if user.Super || ra.allowed(az, user) {
			continue
		}
		return PermissionDenied(ra.rel)
	}
	return nil
}

// allowed is ExecCheckRTEPerms for one relation.
func (ra *relAccess) allowed(az *catalog.Authz, user *catalog.Role) bool {
	need := ra.need
	if ra.target && len(ra.sel) > 0 {
		need |= acl.Select // the statement reads the target's columns
	}
	have, _ := az.Mask(user, catalog.RelationKind(ra.rel), ra.rel.Owner, az.RelationACL(ra.rel))
	missing := need &^ have
	if missing == 0 {
		return true
	}
	if missing&^(acl.Select|acl.Insert|acl.Update) != 0 || ra.rel.Kind == catalog.KindSequence {
		return false
	}
	for _, m := range []struct {
		priv acl.Mode
		cols map[int16]bool
	}{{acl.Select, ra.sel}, {acl.Insert, ra.ins}, {acl.Update, ra.upd}} {
		if missing&m.priv != 0 && !columnsAllowed(az, user, ra.rel, m.priv, m.cols) {
			return false
		}
	}
	return true
}

// columnsAllowed: user holds priv on every column of cols, or — for an
// empty set (SELECT count(*)) — on at least one column.
func columnsAllowed(az *catalog.Authz, user *catalog.Role, rel *catalog.Relation, priv acl.Mode, cols map[int16]bool) bool {
	if len(cols) == 0 {
		for i := range rel.Attrs {
			if a := &rel.Attrs[i]; !a.Dropped && az.ColumnPrivileges(user, rel, a)&priv != 0 {
				return true
			}
		}
		return false
	}
	for i := range rel.Attrs {
		a := &rel.Attrs[i]
		if cols[a.Num] && az.ColumnPrivileges(user, rel, a)&priv == 0 {
			return false
		}
	}
	return true
}

// PermissionDenied is aclcheck_error's ACLCHECK_NO_PRIV for a relation.
func PermissionDenied(rel *catalog.Relation) error {
	return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for %s %s", RelationKindWord(rel), rel.Name)
}

// NotOwner is aclcheck_error's ACLCHECK_NOT_OWNER for a relation.
func NotOwner(rel *catalog.Relation) error {
	return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be owner of %s %s", RelationKindWord(rel), rel.Name)
}

// RelationKindWord names a relation's kind as privilege errors do.
func RelationKindWord(rel *catalog.Relation) string {
	switch {
	case rel.MatView:
		return "materialized view"
	case rel.Kind == catalog.KindView:
		return "view"
	case rel.Kind == catalog.KindSequence:
		return "sequence"
	case rel.Kind == catalog.KindIndex:
		return "index"
	}
	return "table"
}

// checkExecute refuses a call of routine proc the current user may not
// execute (checked when the call is planned; PostgreSQL checks at
// executor start, the kept plan's validity makes that the same).
func (c *Ctx) checkExecute(proc *catalog.Proc) error {
	if c.Setting == nil || c.Setting("is_superuser") == "on" {
		return nil
	}
	az, err := c.Eng.Catalog.NewAuthz(c.Tx)
	if err != nil {
		return err
	}
	user := az.Role(c.CurrentUser())
	if user == nil {
		user = &catalog.Role{}
	}
	if have, _ := az.Mask(user, acl.Function, proc.Owner, proc.ACL); have&acl.Execute != 0 {
		return nil
	}
	word := "function"
	if proc.Kind == catalog.ProcProcedure {
		word = "procedure"
	}
	return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for %s %s", word, proc.Name)
}

// CheckExecute is checkExecute for a CALL.
func CheckExecute(c *Ctx, proc *catalog.Proc) error { return c.checkExecute(proc) }

// DefinerSession is the session side of SECURITY DEFINER: BecomeDefiner
// makes role owner the current user until done is called.
type DefinerSession interface {
	BecomeDefiner(owner uint32) (done func(), err error)
}

// callAs runs call as proc's owner when proc is SECURITY DEFINER
// (fmgr_security_definer), else as the caller.
func callAs(c *Ctx, proc *catalog.Proc, call func() error) error {
	ds, ok := c.Session.(DefinerSession)
	if !proc.SecDef || !ok {
		return call()
	}
	done, err := ds.BecomeDefiner(proc.Owner)
	if err != nil {
		return err
	}
	defer done()
	return call()
}
