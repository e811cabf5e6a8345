package expr

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Domain is what a coercion to a domain needs: its name for messages,
// its base type (the type of its values) and its constraints, compiled.
type Domain struct {
	OID     uint32
	Name    string
	Schema  string
	Base    types.Type
	NotNull bool
	// NotNullBy is the domain whose NOT NULL applies (itself or one it
	// is over): PostgreSQL names that one in the error.
	NotNullBy string
	Checks    []DomainConstraint
}

// DomainConstraint is a CHECK constraint of a domain: Expr is compiled
// over a one-column row holding VALUE.
type DomainConstraint struct {
	Name string
	Expr Expr
}

// DomainLookup finds a domain by its (possibly qualified) name; nil, nil
// when there is none.
type DomainLookup func(names []string) (*Domain, error)

// Check enforces the domain's constraints on v (PostgreSQL's
// domain_check / ExecEvalConstraintCheck): NOT NULL first, then each
// CHECK, which fails only when false.
func (d *Domain) Check(env *Env, v types.Datum) error {
	if v.IsNull() {
		if d.NotNull {
			by := d.NotNullBy
			if by == "" {
				by = d.Name
			}
			return pgerr.Errorf(pgerr.NotNullViolation, "domain %s does not allow null values", by).WithDataType(d.Schema, by)
		}
	}
	row := []types.Datum{v}
	for _, k := range d.Checks {
		r, err := k.Expr.Eval(env, row)
		if err != nil {
			return err
		}
		if !r.IsNull() && !r.Bool() {
			return pgerr.Errorf(pgerr.CheckViolation, "value for domain %s violates check constraint \"%s\"", d.Name, k.Name).
				WithDomainConstraint(d.Schema, d.Name, k.Name)
		}
	}
	return nil
}

// DomainCheck is CoerceToDomain: Arg, already of the domain's base type,
// checked against the domain's constraints.
type DomainCheck struct {
	Arg    Expr
	Domain *Domain
}

func (x *DomainCheck) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	v, err := x.Arg.Eval(env, row)
	if err != nil {
		return v, err
	}
	return v, x.Domain.Check(env, v)
}
func (x *DomainCheck) Type() types.Type { return x.Arg.Type() }
func (x *DomainCheck) String() string   { return x.Arg.String() }

// ArgExprs and WithArgs make DomainCheck an ExternalNode (MapVars).
func (x *DomainCheck) ArgExprs() []Expr          { return []Expr{x.Arg} }
func (x *DomainCheck) WithArgs(args []Expr) Expr { return &DomainCheck{Arg: args[0], Domain: x.Domain} }

// domainCast compiles CAST(a AS domain): the cast to the base type, then
// the domain's checks.
func domainCast(a Expr, d *Domain, loc int32) (Expr, error) {
	out, err := ExplicitCast(a, d.Base, loc)
	if err != nil {
		return nil, err
	}
	return &DomainCheck{Arg: out, Domain: d}, nil
}

// lookupDomain is asked for a type name that is not a builtin (notFound
// is that error): the domain it names, if Domains finds one.
func (c *Compiler) lookupDomain(tn *pg.TypeName, notFound error) (*Domain, error) {
	if c.Domains == nil || pgerr.Code(notFound) != pgerr.UndefinedObject || len(tn.ArrayBounds) > 0 {
		return nil, nil
	}
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().GetSval())
	}
	d, err := c.Domains(names)
	if err == nil && d != nil && len(tn.Typmods) > 0 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "type modifier is not allowed for type \"%s\"", d.Name)
	}
	return d, err
}
