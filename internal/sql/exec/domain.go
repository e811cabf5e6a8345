package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Domains at run time: a value becomes a domain's where it is coerced to
// it — CAST(x AS d) (expr.DomainCheck) and a new row's columns of that
// domain (ModifyTable.checkDomains, for INSERT, UPDATE, COPY and ON
// CONFLICT DO UPDATE alike) — and is checked there, as PostgreSQL's
// CoerceToDomain. Values are of the base type everywhere else.

// LookupDomain finds a domain by (possibly qualified) name and compiles
// its constraints; nil, nil when there is none.
func LookupDomain(c *Ctx, names []string) (*expr.Domain, error) {
	if c == nil || c.Eng == nil || len(names) == 0 || len(names) > 2 {
		return nil, nil
	}
	schema := ""
	if len(names) == 2 {
		schema = names[0]
	}
	d, err := c.Eng.Catalog.LookupDomain(c.Tx, schema, names[len(names)-1])
	if err != nil || d == nil {
		return nil, err
	}
	return CompileDomain(c, d)
}

// CompileDomain compiles a domain's constraints.
func CompileDomain(c *Ctx, d *catalog.Domain) (*expr.Domain, error) {
	out := &expr.Domain{OID: d.OID, Name: d.Name, Schema: nspName(c.Eng.Catalog, d.Namespace), Base: d.Base, NotNull: d.NotNull, NotNullBy: d.NotNullBy}
	for _, k := range d.Checks {
		e, err := CompileDomainCheck(c, d.Base, k.Expr)
		if err != nil {
			return nil, err
		}
		out.Checks = append(out.Checks, expr.DomainConstraint{Name: k.Name, Expr: e})
	}
	return out, nil
}

// CompileDomainCheck compiles a domain CHECK expression (SQL text) over a
// one-column row holding VALUE, of the domain's base type.
func CompileDomainCheck(c *Ctx, base types.Type, text string) (expr.Expr, error) {
	tree, err := parser.Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	n := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	if err := checkExprAllowed(n); err != nil {
		return nil, err
	}
	sc := &scope{cols: []scopeCol{{name: "value", t: base, index: 0}}}
	p := &Planner{C: c}
	e, err := p.compiler(domainValueScope{sc}).Compile(n)
	if err != nil {
		return nil, err
	}
	return coerceBoolArg("CHECK", e)
}

// domainValueScope resolves VALUE and nothing else: a domain constraint
// cannot refer to columns.
type domainValueScope struct{ sc *scope }

func (s domainValueScope) Resolve(qualifier, name string, loc int32) (expr.Expr, error) {
	if qualifier == "" && name == "value" {
		return &expr.Var{Index: 0, T: s.sc.cols[0].t, Name: "VALUE"}, nil
	}
	return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", name)
}

// domainLookup is the compiler's hook for casts to domains.
func (p *Planner) domainLookup() expr.DomainLookup {
	if p.C == nil || p.C.Eng == nil || p.C.Tx == nil {
		return nil
	}
	c := p.C
	return func(names []string) (*expr.Domain, error) { return LookupDomain(c, names) }
}

// prepareDomains compiles the domains of the table's columns.
func (m *ModifyTable) prepareDomains(c *Ctx) error {
	m.domains = nil
	for i, a := range m.Rel.Attrs {
		if a.Domain == 0 || a.Dropped {
			continue
		}
		d, err := c.Eng.Catalog.DomainByOID(c.Tx, a.Domain)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		cd, err := CompileDomain(c, d)
		if err != nil {
			return err
		}
		if m.domains == nil {
			m.domains = make([]*expr.Domain, len(m.Rel.Attrs))
		}
		m.domains[i] = cd
	}
	return nil
}

// checkDomains enforces the columns' domains on a new row version. An
// UPDATE checks only the columns it assigns (a column it leaves as it
// was is not coerced again, as in PostgreSQL).
func (m *ModifyTable) checkDomains(c *Ctx, row Row) error {
	for i, d := range m.domains {
		if d == nil || (m.Kind == "Update" && m.keepsColumn(i)) {
			continue
		}
		if err := d.Check(c.Env, row[i]); err != nil {
			return err
		}
	}
	return nil
}

// keepsColumn reports whether an UPDATE's new row takes column i from
// the old row unchanged.
func (m *ModifyTable) keepsColumn(i int) bool {
	if i >= len(m.NewRow) {
		return true
	}
	v, ok := m.NewRow[i].(*expr.Var)
	return ok && v.Index == i
}

// domainDefault is the default of a column of a domain that has none of
// its own: the domain's (PostgreSQL's build_column_default).
func domainDefault(c *Ctx, a catalog.Attr) (string, error) {
	if a.Default != "" || a.Domain == 0 || c == nil || c.Eng == nil {
		return a.Default, nil
	}
	d, err := c.Eng.Catalog.DomainByOID(c.Tx, a.Domain)
	if err != nil || d == nil {
		return "", err
	}
	return d.Default, nil
}

// CompileDefault compiles a DEFAULT expression (parse tree) coerced to t
// as an assignment.
func (p *Planner) CompileDefault(raw *pg.Node, t types.Type) (expr.Expr, error) {
	e, err := p.compiler(nil).Compile(raw)
	if err != nil {
		return nil, err
	}
	return assignCoerce(e, t)
}

// domainConstraintDef is pg_get_constraintdef of a domain's CHECK
// constraint: "CHECK (VALUE > 0)".
func domainConstraintDef(c *Ctx, k *catalog.Constraint, pretty bool) (types.Datum, error) {
	d, err := c.Eng.Catalog.DomainByOID(c.Tx, k.TypID)
	if err != nil || d == nil {
		return types.Null(), err
	}
	e, err := CompileDomainCheck(c, d.Base, k.Expr)
	if err != nil {
		return types.Null(), err
	}
	def := "CHECK (" + e.String() + ")"
	if pretty {
		def = "CHECK (" + prettyExpr(e) + ")"
	}
	if !k.Validated {
		def += " NOT VALID"
	}
	return types.Str(def), nil
}

// regtypeIn is regtypein: a builtin type's name, a domain's, or an OID.
func regtypeIn(c *Ctx, s string) (types.Datum, error) {
	d, err := types.Parse(types.Regtype, s)
	if err == nil {
		return d, nil
	}
	var names []string
	for _, part := range strings.Split(strings.TrimSpace(s), ".") {
		names = append(names, strings.Trim(strings.TrimSpace(part), `"`))
	}
	if len(names) > 2 {
		return types.Null(), err
	}
	schema := ""
	if len(names) == 2 {
		schema = names[0]
	}
	u, uerr := c.Eng.Catalog.LookupUserType(c.Tx, schema, names[len(names)-1])
	if uerr != nil {
		return types.Null(), uerr
	}
	if u == nil {
		return types.Null(), err
	}
	return types.Int(int64(u.OID)), nil
}

// EnumType describes enum type oid from the catalog; nil if it is none.
func EnumType(cat *catalog.Catalog, tx *catalog.Txn, oid uint32) (*types.Enum, error) {
	u, err := cat.UserTypeByOID(tx, oid)
	if err != nil || u == nil || u.Kind != catalog.TypeEnum {
		return nil, err
	}
	labels, err := cat.EnumLabels(tx, oid)
	if err != nil {
		return nil, err
	}
	name := cat.NamespaceQualifier(tx, u.Namespace) + types.QuoteIdent(u.Name)
	return &types.Enum{OID: oid, Name: name, Labels: labels}, nil
}

// userTypeLookup is the compiler's hook for casts to user-defined types
// that are not domains (enums).
func (p *Planner) userTypeLookup() expr.UserTypeLookup {
	if p.C == nil || p.C.Eng == nil || p.C.Tx == nil {
		return nil
	}
	c := p.C
	return func(names []string) (types.Type, bool, error) {
		schema := ""
		switch len(names) {
		case 1:
		case 2:
			schema = names[0]
		default:
			return types.Type{}, false, nil
		}
		u, err := c.Eng.Catalog.LookupUserType(c.Tx, schema, names[len(names)-1])
		if err != nil || u == nil || u.Kind == catalog.TypeDomain {
			return types.Type{}, false, err
		}
		return types.Type{OID: u.OID, Typmod: -1}, true, nil
	}
}

// CompositeType describes composite type oid from the catalog; nil if it
// is none.
func CompositeType(cat *catalog.Catalog, tx *catalog.Txn, oid uint32) (*types.Composite, error) {
	_, attrs, err := cat.CompositeAttrs(tx, oid)
	if err != nil || attrs == nil {
		return nil, err
	}
	u, err := cat.UserTypeByOID(tx, oid)
	if err != nil || u == nil {
		return nil, err
	}
	name := cat.NamespaceQualifier(tx, u.Namespace) + types.QuoteIdent(u.Name)
	out := &types.Composite{OID: oid, Name: name}
	for _, a := range attrs {
		out.Fields = append(out.Fields, a.Name)
		out.Types = append(out.Types, a.Type)
	}
	return out, nil
}
