package exec

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Declarative partitioning in the executor (catalog/partition.go has the
// storage). A partitioned table's partDesc is built per statement from
// the catalog: its key compiled over the table's row, and each
// partition's bound evaluated into datums of the key's types. INSERT and
// COPY route a row to the partition its key falls in (recursively, to a
// leaf), UPDATE moves a row whose key leaves its partition, and queries
// read only the partitions their quals can match (partprune.go).

// partDesc is a partitioned table's key and partitions.
type partDesc struct {
	rel      *catalog.Relation
	key      *catalog.PartitionKey
	keyTypes []types.Type
	keyExprs []expr.Expr // over rel's row
	parts    []*partBound
	def      *partBound // the default partition, nil if none
}

// rangeDatum is one column of a range bound: a value, or MINVALUE (-1)
// or MAXVALUE (+1).
type rangeDatum struct {
	inf int
	val types.Datum
}

// partBound is one partition's bound.
type partBound struct {
	rel       *catalog.Relation
	isDefault bool
	list      []types.Datum // list: the values (NULL among them when listNull)
	listNull  bool
	order     []types.Datum // the list values as the bound gave them (for printing)
	lower     []rangeDatum
	upper     []rangeDatum
	modulus   int
	remainder int
}

// PartitionKeyTypes compiles rel's partition key: each column's type and
// its expression over rel's row.
func PartitionKeyTypes(c *Ctx, rel *catalog.Relation) ([]types.Type, []expr.Expr, error) {
	k := rel.PartKey
	var ts []types.Type
	var es []expr.Expr
	ei := 0
	for _, a := range k.Attrs {
		if a > 0 {
			at := rel.Attrs[a-1]
			ts = append(ts, at.Type)
			es = append(es, &expr.Var{Index: int(a - 1), T: at.Type, Name: at.Name})
			continue
		}
		if ei >= len(k.Exprs) {
			return nil, nil, fmt.Errorf("partition key of %q lacks expression %d", rel.Name, ei)
		}
		e, err := compileOverRel(c, rel, k.Exprs[ei])
		if err != nil {
			return nil, nil, err
		}
		ei++
		ts = append(ts, e.Type())
		es = append(es, e)
	}
	return ts, es, nil
}

// compileOverRel compiles SQL expression text over a row of rel.
func compileOverRel(c *Ctx, rel *catalog.Relation, text string) (expr.Expr, error) {
	tree, err := parser.Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	sc := &scope{}
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol(rel.Name, a, a.Name, i))
	}
	p := &Planner{C: c}
	return p.compiler(sc).Compile(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val)
}

// loadPartDesc builds the partDesc of partitioned table rel.
func loadPartDesc(c *Ctx, rel *catalog.Relation) (*partDesc, error) {
	ts, es, err := PartitionKeyTypes(c, rel)
	if err != nil {
		return nil, err
	}
	d := &partDesc{rel: rel, key: rel.PartKey, keyTypes: ts, keyExprs: es}
	kids, err := c.Eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil {
		return nil, err
	}
	for _, oid := range kids {
		kr, err := c.Eng.Catalog.ByOID(c.Tx, oid)
		if err != nil {
			return nil, err
		}
		if kr == nil || !kr.IsPartition() {
			continue
		}
		b, err := parseStoredBound(c, d, kr)
		if err != nil {
			return nil, err
		}
		if b.isDefault {
			d.def = b
			continue
		}
		d.parts = append(d.parts, b)
	}
	return d, nil
}

// parseStoredBound reads partition kr's relpartbound.
func parseStoredBound(c *Ctx, d *partDesc, kr *catalog.Relation) (*partBound, error) {
	spec, err := parseBoundText(kr.PartBound)
	if err != nil {
		return nil, fmt.Errorf("bound of partition %q: %w", kr.Name, err)
	}
	return d.evalBound(c, kr, spec)
}

func parseBoundText(text string) (*pg.PartitionBoundSpec, error) {
	tree, err := parser.Parse("CREATE TABLE p PARTITION OF q " + text)
	if err != nil {
		return nil, err
	}
	return tree.Stmts[0].Stmt.GetCreateStmt().Partbound, nil
}

// EvalPartitionBound checks the bound spec of new partition name against
// partitioned table parent's strategy and evaluates it, returning it as
// pg_get_expr prints it.
func (d *partDesc) evalBound(c *Ctx, kr *catalog.Relation, spec *pg.PartitionBoundSpec) (*partBound, error) {
	b := &partBound{rel: kr}
	if spec.IsDefault {
		if d.key.Strategy == 'h' {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "a hash-partitioned table may not have a default partition")
		}
		b.isDefault = true
		return b, nil
	}
	name := "?"
	if kr != nil {
		name = kr.Name
	}
	switch d.key.Strategy {
	case 'h':
		if spec.Strategy != "h" {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "invalid bound specification for a hash partition")
		}
		if spec.Modulus <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "modulus for hash partition must be an integer value greater than zero")
		}
		if spec.Remainder < 0 || spec.Remainder >= spec.Modulus {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "remainder for hash partition must be less than modulus")
		}
		b.modulus, b.remainder = int(spec.Modulus), int(spec.Remainder)
	case 'l':
		if spec.Strategy != "l" {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "invalid bound specification for a list partition")
		}
		for _, n := range spec.Listdatums {
			v, err := d.boundValue(c, n, 0, name)
			if err != nil {
				return nil, err
			}
			if v.IsNull() {
				if !b.listNull {
					b.order = append(b.order, v)
				}
				b.listNull = true
				continue
			}
			dup := false
			for _, have := range b.list {
				if types.Compare(d.keyTypes[0], have, v) == 0 {
					dup = true
				}
			}
			if !dup {
				b.list = append(b.list, v)
				b.order = append(b.order, v)
			}
		}
	case 'r':
		if spec.Strategy != "r" {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "invalid bound specification for a range partition")
		}
		for i, list := range [][]*pg.Node{spec.Lowerdatums, spec.Upperdatums} {
			if len(list) != len(d.keyTypes) {
				return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "%s must specify exactly one value per partitioning column", []string{"FROM", "TO"}[i])
			}
		}
		var err error
		if b.lower, err = d.rangeBound(c, spec.Lowerdatums, "FROM", name); err != nil {
			return nil, err
		}
		if b.upper, err = d.rangeBound(c, spec.Upperdatums, "TO", name); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (d *partDesc) rangeBound(c *Ctx, list []*pg.Node, which, name string) ([]rangeDatum, error) {
	out := make([]rangeDatum, len(list))
	for i, n := range list {
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			switch strings.ToLower(cr.Fields[0].GetString_().Sval) {
			case "minvalue":
				out[i].inf = -1
				continue
			case "maxvalue":
				out[i].inf = 1
				continue
			}
		}
		v, err := d.boundValue(c, n, i, name)
		if err != nil {
			return nil, err
		}
		if v.IsNull() {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot specify NULL in range bound")
		}
		out[i].val = v
	}
	// After MINVALUE or MAXVALUE every later column must be the same.
	for i := 1; i < len(out); i++ {
		if out[i-1].inf != 0 && out[i].inf != out[i-1].inf {
			if out[i-1].inf > 0 {
				return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "every bound following MAXVALUE must also be MAXVALUE")
			}
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "every bound following MINVALUE must also be MINVALUE")
		}
	}
	return out, nil
}

// boundValue evaluates one bound value for key column i.
func (d *partDesc) boundValue(c *Ctx, n *pg.Node, i int, name string) (types.Datum, error) {
	if err := partitionExprAllowed(n, true); err != nil {
		return types.Datum{}, err
	}
	p := &Planner{C: c}
	e, err := p.compiler(nil).Compile(n)
	if err != nil {
		return types.Datum{}, err
	}
	t := d.keyTypes[i]
	ce, err := expr.Coerce(e, t, types.CastAssignment)
	if err != nil {
		if pgerr.Code(err) == pgerr.DatatypeMismatch || pgerr.Code(err) == "42846" {
			return types.Datum{}, pgerr.Errorf(pgerr.DatatypeMismatch, "specified value cannot be cast to type %s for column \"%s\"", t, d.keyColName(i))
		}
		return types.Datum{}, err
	}
	return ce.Eval(c.Env, nil)
}

// keyColName is key column i's name as PostgreSQL's messages give it.
func (d *partDesc) keyColName(i int) string {
	if a := d.key.Attrs[i]; a > 0 {
		return d.rel.Attrs[a-1].Name
	}
	return d.keyExprs[i].String()
}

// BoundText is b as pg_get_expr prints a relpartbound.
func (d *partDesc) boundText(b *partBound) string {
	switch {
	case b.isDefault:
		return "DEFAULT"
	case d.key.Strategy == 'h':
		return fmt.Sprintf("FOR VALUES WITH (modulus %d, remainder %d)", b.modulus, b.remainder)
	case d.key.Strategy == 'l':
		var vals []string
		for _, v := range b.order {
			vals = append(vals, boundLiteral(d.keyTypes[0], v))
		}
		return "FOR VALUES IN (" + strings.Join(vals, ", ") + ")"
	}
	return "FOR VALUES FROM (" + d.rangeText(b.lower) + ") TO (" + d.rangeText(b.upper) + ")"
}

func (d *partDesc) rangeText(r []rangeDatum) string {
	parts := make([]string, len(r))
	for i, x := range r {
		switch x.inf {
		case -1:
			parts[i] = "MINVALUE"
		case 1:
			parts[i] = "MAXVALUE"
		default:
			parts[i] = boundLiteral(d.keyTypes[i], x.val)
		}
	}
	return strings.Join(parts, ", ")
}

// boundLiteral prints a bound value as ruleutils' get_const_expr does
// without a type: numbers bare unless signed, booleans bare, the rest
// quoted.
func boundLiteral(t types.Type, v types.Datum) string {
	if v.IsNull() {
		return "NULL"
	}
	s := types.FormatText(t, v)
	switch t.OID {
	case types.Int2OID, types.Int4OID, types.Int8OID, types.NumericOID, types.Float4OID, types.Float8OID, types.OidOID:
		if s != "" && strings.Trim(s, "0123456789+-eE.") == "" && s[0] != '-' && s[0] != '+' {
			return s
		}
	case types.BoolOID:
		if v.Bool() {
			return "true"
		}
		return "false"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
