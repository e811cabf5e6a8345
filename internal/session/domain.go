package session

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// CREATE DOMAIN, ALTER DOMAIN, DROP DOMAIN / DROP TYPE of a domain (the
// catalog side is internal/catalog/domain.go, the run-time checks
// internal/sql/exec/domain.go).

// columnType resolves a column's declared type: a builtin, or a domain
// (its base type, and the domain's OID).
func (s *Session) columnType(c *exec.Ctx, tn *pg.TypeName) (types.Type, uint32, error) {
	t, err := expr.TypeFromName(tn)
	if err == nil || pgerr.Code(err) != pgerr.UndefinedObject || len(tn.ArrayBounds) > 0 {
		return t, 0, err
	}
	d, derr := s.domainNamed(c, tn.Names)
	if derr != nil {
		return t, 0, derr
	}
	if d == nil {
		if ut, ok, uerr := s.userType(c, tn.Names); uerr != nil || ok {
			return ut, 0, uerr
		}
		return t, 0, err
	}
	if len(tn.Typmods) > 0 {
		return t, 0, pgerr.Errorf(pgerr.SyntaxError, "type modifier is not allowed for type \"%s\"", d.Name)
	}
	return d.Base, d.OID, nil
}

func (s *Session) domainNamed(c *exec.Ctx, names []*pg.Node) (*catalog.Domain, error) {
	parts := stringList(names)
	switch len(parts) {
	case 1:
		return s.eng.Catalog.LookupDomain(c.Tx, "", parts[0])
	case 2:
		return s.eng.Catalog.LookupDomain(c.Tx, parts[0], parts[1])
	}
	return nil, nil
}

func (s *Session) createDomain(c *exec.Ctx, st *pg.CreateDomainStmt, w pgwire.ResultWriter) error {
	parts := stringList(st.Domainname)
	name := parts[len(parts)-1]
	nsp, err := s.typeNamespace(c, parts)
	if err != nil {
		return err
	}
	if taken, err := s.eng.Catalog.TypeNameTaken(c.Tx, nsp, name); err != nil {
		return err
	} else if taken {
		return pgerr.Errorf(pgerr.DuplicateObject, "type \"%s\" already exists", name)
	}
	base, over, err := s.domainBase(c, st.TypeName)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if st.CollClause != nil {
		if err := expr.CheckCollation(st.CollClause.Collname); err != nil {
			return err
		}
	}
	d := &catalog.Domain{Name: name, Namespace: nsp, Owner: s.currentRoleOID(c)}
	var checks []*pg.Constraint
	sawNull, sawNotNull, sawDefault := false, false, false
	for _, n := range st.Constraints {
		con := n.GetConstraint()
		switch con.Contype {
		case pg.ConstrType_CONSTR_NOTNULL, pg.ConstrType_CONSTR_NULL:
			isNotNull := con.Contype == pg.ConstrType_CONSTR_NOTNULL
			if (isNotNull && sawNull) || (!isNotNull && sawNotNull) {
				return pgerr.Errorf(pgerr.SyntaxError, "conflicting NULL/NOT NULL constraints")
			}
			sawNull, sawNotNull = sawNull || !isNotNull, sawNotNull || isNotNull
			d.NotNull = isNotNull
		case pg.ConstrType_CONSTR_DEFAULT:
			if sawDefault {
				return pgerr.Errorf(pgerr.SyntaxError, "multiple default expressions")
			}
			sawDefault = true
			text, err := s.domainDefaultText(c, con.RawExpr, base)
			if err != nil {
				return err
			}
			d.Default = text
		case pg.ConstrType_CONSTR_CHECK:
			checks = append(checks, con)
		case pg.ConstrType_CONSTR_UNIQUE:
			return pgerr.Errorf(pgerr.SyntaxError, "unique constraints not possible for domains")
		case pg.ConstrType_CONSTR_PRIMARY:
			return pgerr.Errorf(pgerr.SyntaxError, "primary key constraints not possible for domains")
		case pg.ConstrType_CONSTR_EXCLUSION:
			return pgerr.Errorf(pgerr.SyntaxError, "exclusion constraints not possible for domains")
		case pg.ConstrType_CONSTR_FOREIGN:
			return pgerr.Errorf(pgerr.SyntaxError, "foreign key constraints not possible for domains")
		default:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "this constraint is not supported for domains")
		}
	}
	if err := s.eng.Catalog.CreateDomain(c.Tx, d, base, over); err != nil {
		return err
	}
	for _, con := range checks {
		if err := s.addDomainCheck(c, d, con, false); err != nil {
			return err
		}
	}
	return w.CommandComplete("CREATE DOMAIN")
}

// domainBase resolves the type a domain is declared over.
func (s *Session) domainBase(c *exec.Ctx, tn *pg.TypeName) (types.Type, *catalog.Domain, error) {
	t, err := expr.TypeFromName(tn)
	if err == nil {
		if types.Category(t) == 'P' {
			return t, nil, pgerr.Errorf(pgerr.DatatypeMismatch, "\"%s\" is not a valid base type for a domain", t)
		}
		return t, nil, nil
	}
	if pgerr.Code(err) != pgerr.UndefinedObject || len(tn.ArrayBounds) > 0 {
		return t, nil, err
	}
	over, derr := s.domainNamed(c, tn.Names)
	if derr != nil {
		return t, nil, derr
	}
	if over == nil {
		if ut, ok, uerr := s.userType(c, tn.Names); uerr != nil || ok {
			return ut, nil, uerr
		}
		return t, nil, err
	}
	return over.Base, over, nil
}

// domainDefaultText checks a DEFAULT expression against the base type and
// returns it as SQL text.
func (s *Session) domainDefaultText(c *exec.Ctx, raw *pg.Node, base types.Type) (string, error) {
	if err := checkDefaultAllowed(raw); err != nil {
		return "", err
	}
	p := &exec.Planner{C: c}
	e, err := p.CompileDefault(raw, base)
	if err != nil {
		return "", err
	}
	// pg_type.typdefault is the expression as PostgreSQL prints it once
	// analyzed ('x'::text); that form, when it reads back as SQL.
	if n := mustParseExpr(e.String()); n != nil {
		if _, err := p.CompileDefault(n, base); err == nil {
			return e.String(), nil
		}
	}
	return deparseExpr(raw)
}

// checkDefaultAllowed refuses what PostgreSQL refuses in a DEFAULT.
func checkDefaultAllowed(n *pg.Node) error {
	var err error
	exec.WalkExpr(n, func(x *pg.Node) {
		if err != nil {
			return
		}
		switch {
		case x.GetSubLink() != nil:
			err = pgerr.Errorf(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression")
		case x.GetColumnRef() != nil:
			err = pgerr.Errorf(pgerr.SyntaxError, "cannot use column reference in DEFAULT expression")
		}
	})
	return err
}

// addDomainCheck adds a CHECK constraint to a domain; validate checks the
// values the domain's columns already hold (ALTER DOMAIN ADD CONSTRAINT).
func (s *Session) addDomainCheck(c *exec.Ctx, d *catalog.Domain, con *pg.Constraint, validate bool) error {
	if con.IsNoInherit {
		return pgerr.Errorf(pgerr.InvalidObjectDefinition, "check constraints for domains cannot be marked NO INHERIT")
	}
	text, err := deparseExpr(con.RawExpr)
	if err != nil {
		return err
	}
	check, err := exec.CompileDomainCheck(c, d.Base, text)
	if err != nil {
		return err
	}
	own, err := s.eng.Catalog.DomainConstraints(c.Tx, d.OID)
	if err != nil {
		return err
	}
	taken := map[string]bool{}
	for _, k := range own {
		taken[k.Name] = true
	}
	name := con.Conname
	if name == "" {
		name = d.Name + "_check"
		for i := 1; taken[name]; i++ {
			name = fmt.Sprintf("%s_check%d", d.Name, i)
		}
	} else if taken[name] {
		return pgerr.Errorf(pgerr.DuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", name, d.Name)
	}
	if validate && !con.SkipValidation {
		if err := s.checkDomainValues(c, d, func(v types.Datum) (bool, error) {
			r, err := check.Eval(c.Env, []types.Datum{v})
			return err == nil && (r.IsNull() || r.Bool()), err
		}, "contains values that violate the new constraint", pgerr.CheckViolation); err != nil {
			return err
		}
	}
	return s.eng.Catalog.AddDomainCheck(c.Tx, d, &catalog.Constraint{Name: name, Validated: !con.SkipValidation, Expr: text})
}

// checkDomainValues runs ok on every value of every column of domain d
// and of the domains over it; the first value it refuses fails with
// "column … of table … <what>".
func (s *Session) checkDomainValues(c *exec.Ctx, d *catalog.Domain, ok func(types.Datum) (bool, error), what, code string) error {
	users, err := s.eng.Catalog.DomainUsers(c.Tx, d.OID)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.Domain != nil {
			if err := s.checkDomainValues(c, u.Domain, ok, what, code); err != nil {
				return err
			}
			continue
		}
		i := int(u.Attnum) - 1
		for j, a := range u.Rel.Attrs {
			if a.Num == u.Attnum {
				i = j
			}
		}
		if u.Rel.Kind == catalog.KindComposite {
			if err := s.refuseIfStoredInComposite(c, d, u.Rel); err != nil {
				return err
			}
			continue
		}
		if u.Rel.Kind != catalog.KindTable {
			continue
		}
		bad := false
		err := exec.Run(c, &exec.SeqScan{Rel: u.Rel}, func(r exec.Row) error {
			if bad {
				return nil
			}
			good, err := ok(r[i])
			if err != nil {
				return err
			}
			bad = !good
			return nil
		})
		if err != nil {
			return err
		}
		if bad {
			return pgerr.Errorf(code, "column \"%s\" of table \"%s\" %s", u.Rel.Attrs[i].Name, u.Rel.Name, what)
		}
	}
	return nil
}

func (s *Session) alterDomain(c *exec.Ctx, st *pg.AlterDomainStmt, w pgwire.ResultWriter) error {
	d, err := s.domainNamed(c, st.TypeName)
	if err != nil {
		return err
	}
	if d == nil {
		parts := stringList(st.TypeName)
		return pgerr.Errorf(pgerr.UndefinedObject, "type \"%s\" does not exist", strings.Join(parts, "."))
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	notNull, def, err := s.eng.Catalog.OwnDomainDefaults(c.Tx, d.OID)
	if err != nil {
		return err
	}
	switch st.Subtype {
	case "T": // SET DEFAULT / DROP DEFAULT
		def = ""
		if st.Def != nil {
			if def, err = s.domainDefaultText(c, st.Def, d.Base); err != nil {
				return err
			}
		}
		err = s.eng.Catalog.AlterDomain(c.Tx, d.OID, notNull, def)
	case "N": // DROP NOT NULL
		err = s.eng.Catalog.AlterDomain(c.Tx, d.OID, false, def)
	case "O": // SET NOT NULL
		if !notNull {
			err = s.checkDomainValues(c, d, func(v types.Datum) (bool, error) { return !v.IsNull(), nil }, "contains null values", pgerr.NotNullViolation)
			if err == nil {
				err = s.eng.Catalog.AlterDomain(c.Tx, d.OID, true, def)
			}
		}
	case "C": // ADD CONSTRAINT
		con := st.Def.GetConstraint()
		switch con.Contype {
		case pg.ConstrType_CONSTR_CHECK:
			err = s.addDomainCheck(c, d, con, true)
		case pg.ConstrType_CONSTR_NOTNULL:
			err = s.checkDomainValues(c, d, func(v types.Datum) (bool, error) { return !v.IsNull(), nil }, "contains null values", pgerr.NotNullViolation)
			if err == nil {
				err = s.eng.Catalog.AlterDomain(c.Tx, d.OID, true, def)
			}
		case pg.ConstrType_CONSTR_UNIQUE:
			err = pgerr.Errorf(pgerr.SyntaxError, "unique constraints not possible for domains")
		case pg.ConstrType_CONSTR_PRIMARY:
			err = pgerr.Errorf(pgerr.SyntaxError, "primary key constraints not possible for domains")
		case pg.ConstrType_CONSTR_FOREIGN:
			err = pgerr.Errorf(pgerr.SyntaxError, "foreign key constraints not possible for domains")
		default:
			err = pgerr.Errorf(pgerr.FeatureNotSupported, "constraints of this kind are not supported for domains")
		}
	case "X", "V": // DROP CONSTRAINT / VALIDATE CONSTRAINT
		err = s.domainConstraintByName(c, d, st, func(k *catalog.Constraint) error {
			if st.Subtype == "X" {
				return s.eng.Catalog.DropDomainConstraint(c.Tx, k)
			}
			if k.Validated {
				return nil
			}
			check, err := exec.CompileDomainCheck(c, d.Base, k.Expr)
			if err != nil {
				return err
			}
			err = s.checkDomainValues(c, d, func(v types.Datum) (bool, error) {
				r, err := check.Eval(c.Env, []types.Datum{v})
				return err == nil && (r.IsNull() || r.Bool()), err
			}, "contains values that violate the new constraint", pgerr.CheckViolation)
			if err != nil {
				return err
			}
			return s.eng.Catalog.ValidateDomainConstraint(c.Tx, k)
		})
	default:
		err = pgerr.Errorf(pgerr.FeatureNotSupported, "this form of ALTER DOMAIN is not supported yet")
	}
	if err != nil {
		return err
	}
	return w.CommandComplete("ALTER DOMAIN")
}

// domainConstraintByName runs fn on the domain's own constraint st.Name.
func (s *Session) domainConstraintByName(c *exec.Ctx, d *catalog.Domain, st *pg.AlterDomainStmt, fn func(*catalog.Constraint) error) error {
	own, err := s.eng.Catalog.DomainConstraints(c.Tx, d.OID)
	if err != nil {
		return err
	}
	for _, k := range own {
		if k.Name == st.Name {
			return fn(k)
		}
	}
	if st.MissingOk {
		c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist, skipping", st.Name, d.Name))
		return nil
	}
	return pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", st.Name, d.Name)
}

// dropTypes is DROP DOMAIN and DROP TYPE.
func (s *Session) dropTypes(c *exec.Ctx, ds *pg.DropStmt, w pgwire.ResultWriter) error {
	tag := "DROP TYPE"
	if ds.RemoveType == pg.ObjectType_OBJECT_DOMAIN {
		tag = "DROP DOMAIN"
	}
	cascade := ds.Behavior == pg.DropBehavior_DROP_CASCADE
	var doms []*catalog.Domain
	for _, o := range ds.Objects {
		tn := o.GetTypeName()
		if tn == nil {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "%s of this object is not supported yet", tag)
		}
		name := strings.Join(stringList(tn.Names), ".")
		d, err := s.domainNamed(c, tn.Names)
		if err != nil {
			return err
		}
		if d == nil {
			if ut, ok, err := s.userType(c, tn.Names); err != nil {
				return err
			} else if ok && ds.RemoveType == pg.ObjectType_OBJECT_DOMAIN {
				return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a domain", name)
			} else if ok {
				u, err := s.eng.Catalog.UserTypeByOID(c.Tx, ut.OID)
				if err != nil {
					return err
				}
				doms = append(doms, &catalog.Domain{OID: u.OID, Name: u.Name, Namespace: u.Namespace, ArrayOID: u.ArrayOID})
				continue
			}
			if _, terr := expr.TypeFromName(tn); terr == nil {
				if ds.RemoveType == pg.ObjectType_OBJECT_DOMAIN {
					return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a domain", name)
				}
				return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop type %s because it is required by the database system", name)
			}
			if ds.MissingOk {
				c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedObject, "type \"%s\" does not exist, skipping", name))
				continue
			}
			return pgerr.Errorf(pgerr.UndefinedObject, "type \"%s\" does not exist", name)
		}
		doms = append(doms, d)
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	for _, d := range doms {
		var deps []string
		var drop []func() error
		if err := s.domainDependents(c, d, &deps, &drop); err != nil {
			return err
		}
		if len(deps) > 0 && !cascade {
			detail := make([]string, len(deps))
			for i, dep := range deps {
				detail[i] = dep + " depends on type " + d.Name
			}
			return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", d.Name).
				WithDetail("%s", strings.Join(detail, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if len(deps) == 1 {
			c.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", "drop cascades to %s", deps[0]))
		} else if len(deps) > 1 {
			lines := make([]string, len(deps))
			for i, dep := range deps {
				lines[i] = "drop cascades to " + dep
			}
			c.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", "drop cascades to %d other objects", len(deps)).WithDetail("%s", strings.Join(lines, "\n")))
		}
		for _, fn := range drop {
			if err := fn(); err != nil {
				return err
			}
		}
		if err := s.eng.Catalog.DropUserType(c.Tx, &catalog.UserType{OID: d.OID, ArrayOID: d.ArrayOID}); err != nil {
			return err
		}
	}
	return w.CommandComplete(tag)
}

// domainDependents collects what depends on domain d (columns, domains
// over it and, through them, their columns), with how to drop each, the
// deepest first.
func (s *Session) domainDependents(c *exec.Ctx, d *catalog.Domain, deps *[]string, drop *[]func() error) error {
	users, err := s.eng.Catalog.DomainUsers(c.Tx, d.OID)
	if err != nil {
		return err
	}
	// PostgreSQL reports the dependents it finds in pg_depend, in
	// creation order, the latest first.
	for i, j := 0, len(users)-1; i < j; i, j = i+1, j-1 {
		users[i], users[j] = users[j], users[i]
	}
	for _, u := range users {
		if u.Domain != nil {
			*deps = append(*deps, "type "+u.Domain.Name)
			if err := s.domainDependents(c, u.Domain, deps, drop); err != nil {
				return err
			}
			over := u.Domain
			*drop = append(*drop, func() error { return s.eng.Catalog.DropDomain(c.Tx, over) })
			continue
		}
		rel, num := u.Rel, u.Attnum
		var name string
		for _, a := range rel.Attrs {
			if a.Num == num {
				name = a.Name
			}
		}
		if rel.Kind == catalog.KindComposite {
			*deps = append(*deps, fmt.Sprintf("column %s of composite type %s", name, rel.Name))
			*drop = append(*drop, func() error {
				return pgerr.Errorf(pgerr.FeatureNotSupported, "dropping an attribute of composite type %s is not supported yet", rel.Name)
			})
			continue
		}
		*deps = append(*deps, fmt.Sprintf("column %s of table %s", name, rel.Name))
		*drop = append(*drop, func() error {
			cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
			if err != nil || cur == nil {
				return err
			}
			return s.dropColumn(c, cur, name, true, true)
		})
	}
	return nil
}

// renameType is ALTER DOMAIN|TYPE … RENAME TO and ALTER DOMAIN … RENAME
// CONSTRAINT.
func (s *Session) renameType(c *exec.Ctx, rs *pg.RenameStmt, w pgwire.ResultWriter) error {
	tag := "ALTER DOMAIN"
	if rs.RenameType == pg.ObjectType_OBJECT_TYPE {
		tag = "ALTER TYPE"
	}
	var names []*pg.Node
	if l := rs.Object.GetList(); l != nil {
		names = l.Items
	} else if tn := rs.Object.GetTypeName(); tn != nil {
		names = tn.Names
	}
	d, err := s.domainNamed(c, names)
	if err != nil {
		return err
	}
	if d == nil && rs.RenameType == pg.ObjectType_OBJECT_TYPE {
		if ut, ok, err := s.userType(c, names); err != nil {
			return err
		} else if ok {
			u, err := s.eng.Catalog.UserTypeByOID(c.Tx, ut.OID)
			if err != nil {
				return err
			}
			d = &catalog.Domain{OID: u.OID, Name: u.Name, Namespace: u.Namespace, ArrayOID: u.ArrayOID}
		}
	}
	if d == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "type \"%s\" does not exist", strings.Join(stringList(names), "."))
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if rs.RenameType == pg.ObjectType_OBJECT_DOMCONSTRAINT {
		own, err := s.eng.Catalog.DomainConstraints(c.Tx, d.OID)
		if err != nil {
			return err
		}
		var target *catalog.Constraint
		for _, k := range own {
			if k.Name == rs.Newname {
				return pgerr.Errorf(pgerr.DuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", rs.Newname, d.Name)
			}
			if k.Name == rs.Subname {
				target = k
			}
		}
		if target == nil {
			return pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" for domain \"%s\" does not exist", rs.Subname, d.Name)
		}
		target.Name = rs.Newname
		if err := s.eng.Catalog.UpdateConstraint(c.Tx, target); err != nil {
			return err
		}
		return w.CommandComplete(tag)
	}
	if taken, err := s.eng.Catalog.TypeNameTaken(c.Tx, d.Namespace, rs.Newname); err != nil {
		return err
	} else if taken {
		return pgerr.Errorf(pgerr.DuplicateObject, "type \"%s\" already exists", rs.Newname)
	}
	if err := s.eng.Catalog.RenameType(c.Tx, d, rs.Newname); err != nil {
		return err
	}
	return w.CommandComplete(tag)
}

// domainColumnDefault enforces the domain of a column ALTER TABLE ADD
// COLUMN adds on the value existing rows get: checked once when that is
// a constant (and some row exists), per row when the table is rewritten.
func (s *Session) domainColumnDefault(c *exec.Ctx, rel *catalog.Relation, a catalog.Attr, def expr.Expr, missing types.Datum, rewrite bool) (expr.Expr, error) {
	cd, err := s.eng.Catalog.DomainByOID(c.Tx, a.Domain)
	if err != nil || cd == nil {
		return def, err
	}
	d, err := exec.CompileDomain(c, cd)
	if err != nil {
		return def, err
	}
	if rewrite {
		return &expr.DomainCheck{Arg: def, Domain: d}, nil
	}
	empty, err := tableIsEmpty(c, rel)
	if err != nil || empty {
		return def, err
	}
	return def, d.Check(c.Env, missing)
}

// mustParseExpr parses an expression's SQL text; nil if it does not parse.
func mustParseExpr(text string) *pg.Node {
	tree, err := pg.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return nil
	}
	return sel.TargetList[0].GetResTarget().Val
}

// refuseIfStoredInComposite refuses a new constraint on domain d when a
// composite type with an attribute of d is some table's column type:
// tidal does not look inside stored composite values (PostgreSQL's
// error).
func (s *Session) refuseIfStoredInComposite(c *exec.Ctx, d *catalog.Domain, comp *catalog.Relation) error {
	typ, err := s.eng.Catalog.CompositeTypeOf(c.Tx, comp.OID)
	if err != nil || typ == 0 {
		return err
	}
	users, err := s.eng.Catalog.DomainUsers(c.Tx, typ)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.Rel != nil && u.Rel.Kind == catalog.KindTable {
			for _, a := range u.Rel.Attrs {
				if a.Num == u.Attnum {
					return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot alter type \"%s\" because column \"%s.%s\" uses it", d.Name, u.Rel.Name, a.Name)
				}
			}
		}
	}
	return nil
}
