package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// The executor's share of partitioning DDL: checking a PARTITION BY key,
// checking a new partition's bound against its siblings (PostgreSQL's
// check_new_partition_bound), and the scans that validate existing rows
// (ATTACH PARTITION, a new partition beside a default one).

// PartitionKeyFromSpec makes the key of PARTITION BY spec on table rel
// (which has its columns); deparse turns an expression into SQL text.
func PartitionKeyFromSpec(c *Ctx, rel *catalog.Relation, spec *pg.PartitionSpec, deparse func(*pg.Node) (string, error)) (*catalog.PartitionKey, error) {
	k := &catalog.PartitionKey{}
	switch spec.Strategy {
	case pg.PartitionStrategy_PARTITION_STRATEGY_LIST:
		k.Strategy = 'l'
		if len(spec.PartParams) > 1 {
			return nil, pgerr.Errorf(pgerr.InvalidObjectDefinition, "cannot use \"list\" partition strategy with more than one column")
		}
	case pg.PartitionStrategy_PARTITION_STRATEGY_RANGE:
		k.Strategy = 'r'
	case pg.PartitionStrategy_PARTITION_STRATEGY_HASH:
		k.Strategy = 'h'
	default:
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized partitioning strategy")
	}
	if len(spec.PartParams) > 32 {
		return nil, pgerr.Errorf(pgerr.TooManyColumns, "cannot partition using more than 32 columns")
	}
	for pos, n := range spec.PartParams {
		el := n.GetPartitionElem()
		if err := builtinKeyOptions(el); err != nil {
			return nil, err
		}
		if el.Name != "" {
			i := rel.AttrByName(el.Name)
			if i < 0 {
				if isSystemColumnName(el.Name) {
					return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "cannot use system column \"%s\" in partition key", el.Name)
				}
				return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" named in partition key does not exist", el.Name)
			}
			if t := rel.Attrs[i].Type; types.Category(t) == 'P' {
				return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "partition key column %d has pseudo-type %s", pos+1, t)
			}
			k.Attrs = append(k.Attrs, int16(i+1))
			continue
		}
		if err := partitionExprAllowed(el.Expr, false); err != nil {
			return nil, err
		}
		// A bare column in parentheses is a column key, as in PostgreSQL.
		if cr := el.Expr.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			if i := rel.AttrByName(name); i >= 0 {
				k.Attrs = append(k.Attrs, int16(i+1))
				continue
			}
		}
		text, err := deparse(el.Expr)
		if err != nil {
			return nil, err
		}
		e, err := compileOverRel(c, rel, text)
		if err != nil {
			return nil, err
		}
		if callsSetReturningRoutine(e) {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning functions are not allowed in partition key expressions")
		}
		if !exprUsesVars(e) {
			return nil, pgerr.Errorf(pgerr.InvalidObjectDefinition, "cannot use constant expression as partition key")
		}
		if !keyExprIsImmutable(e) {
			return nil, pgerr.Errorf(pgerr.InvalidObjectDefinition, "functions in partition key expression must be marked IMMUTABLE")
		}
		if t := e.Type(); types.Category(t) == 'P' {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "partition key column %d has pseudo-type %s", pos+1, t)
		}
		k.Attrs = append(k.Attrs, 0)
		k.Exprs = append(k.Exprs, text)
	}
	return k, nil
}

// PartitionKeyDef is pg_get_partkeydef: "RANGE (a, ((b + 0)))".
func PartitionKeyDef(c *Ctx, rel *catalog.Relation) (string, error) {
	if !rel.IsPartitioned() {
		return "", nil
	}
	_, es, err := PartitionKeyTypes(c, rel)
	if err != nil {
		return "", err
	}
	var cols []string
	for i, a := range rel.PartKey.Attrs {
		if a > 0 {
			cols = append(cols, types.QuoteIdent(rel.Attrs[a-1].Name))
			continue
		}
		s := es[i].String()
		if f, ok := es[i].(*expr.Func); ok && f.Op != "" && !strings.HasPrefix(s, "(") {
			s = "(" + s + ")" // ruleutils prints an operator in parentheses
		}
		if f, ok := es[i].(*expr.Func); !ok || f.Op != "" {
			s = "(" + s + ")" // …and the key wraps what is no function call
		}
		cols = append(cols, s)
	}
	strat := map[byte]string{'r': "RANGE", 'l': "LIST", 'h': "HASH"}[rel.PartKey.Strategy]
	return strat + " (" + strings.Join(cols, ", ") + ")", nil
}

// NewPartitionBound checks the bound of a new partition child of parent
// against the existing partitions and returns it as relpartbound holds
// it, and whether it is the default partition.
func NewPartitionBound(c *Ctx, parent *catalog.Relation, child string, spec *pg.PartitionBoundSpec) (string, bool, error) {
	d, err := loadPartDesc(c, parent)
	if err != nil {
		return "", false, err
	}
	b, err := d.evalBound(c, &catalog.Relation{Name: child}, spec)
	if err != nil {
		return "", false, err
	}
	if b.isDefault {
		if d.def != nil {
			return "", false, pgerr.Errorf(pgerr.InvalidObjectDefinition, "partition \"%s\" conflicts with existing default partition \"%s\"", child, d.def.rel.Name)
		}
		return "DEFAULT", true, nil
	}
	if err := d.checkOverlap(b, child); err != nil {
		return "", false, err
	}
	return d.boundText(b), false, nil
}

func (d *partDesc) checkOverlap(b *partBound, child string) error {
	overlap := func(other *partBound) error {
		return pgerr.Errorf(pgerr.InvalidObjectDefinition, "partition \"%s\" would overlap partition \"%s\"", child, other.rel.Name)
	}
	switch d.key.Strategy {
	case 'r':
		if d.cmpBounds(b.lower, b.upper) >= 0 {
			return pgerr.Errorf(pgerr.InvalidObjectDefinition, "empty range bound specified for partition \"%s\"", child).
				WithDetail("Specified lower bound (%s) is greater than or equal to upper bound (%s).", d.rangeText(b.lower), d.rangeText(b.upper))
		}
		for _, o := range d.parts {
			if d.cmpBounds(b.lower, o.upper) < 0 && d.cmpBounds(o.lower, b.upper) < 0 {
				return overlap(o)
			}
		}
	case 'l':
		for _, o := range d.parts {
			if b.listNull && o.listNull {
				return overlap(o)
			}
			for _, v := range b.list {
				if d.contains(o, []types.Datum{v}) {
					return overlap(o)
				}
			}
		}
	case 'h':
		for _, o := range d.parts {
			small, big := b, o
			if small.modulus > big.modulus {
				small, big = big, small
			}
			if big.modulus%small.modulus != 0 {
				if b.modulus < o.modulus {
					return pgerr.Errorf(pgerr.InvalidObjectDefinition, "every hash partition modulus must be a factor of the next larger modulus").
						WithDetail("The new modulus %d is not a factor of %d, the modulus of existing partition \"%s\".", b.modulus, o.modulus, o.rel.Name)
				}
				return pgerr.Errorf(pgerr.InvalidObjectDefinition, "every hash partition modulus must be a factor of the next larger modulus").
					WithDetail("The new modulus %d is not divisible by %d, the modulus of existing partition \"%s\".", b.modulus, o.modulus, o.rel.Name)
			}
			if big.remainder%small.modulus == small.remainder {
				return overlap(o)
			}
		}
	}
	return nil
}

// ValidatePartitionRows scans every row of rel (its leaves, if it is
// partitioned) and fails with fail's error at the first row outside the
// leaf's partition constraint.
func ValidatePartitionRows(c *Ctx, rel *catalog.Relation, fail func() error) error {
	oids, err := c.Eng.Catalog.AllInheritors(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	for _, oid := range oids {
		leaf, err := c.Eng.Catalog.ByOID(c.Tx, oid)
		if err != nil {
			return err
		}
		if leaf == nil || leaf.IsPartitioned() {
			continue
		}
		pc, err := loadPartConstraint(c, leaf)
		if err != nil || pc == nil {
			return err
		}
		bad := false
		err = Run(c, &SeqScan{Rel: leaf}, func(r Row) error {
			if bad {
				return nil
			}
			ok, err := pc.holds(c, r[:len(leaf.Attrs)])
			bad = !ok
			return err
		})
		if err != nil {
			return err
		}
		if bad {
			return fail()
		}
	}
	return nil
}

// DefaultPartitionOf is parent's default partition's OID (0: none).
func DefaultPartitionOf(parent *catalog.Relation) uint32 {
	if parent.PartKey == nil {
		return 0
	}
	return parent.PartKey.DefaultOID
}

// partitionExprAllowed refuses what PostgreSQL refuses in a partition key
// expression (bound=false) or bound value (bound=true).
func partitionExprAllowed(n *pg.Node, bound bool) error {
	where, sub := "partition key expressions", "cannot use subquery in partition key expression"
	if bound {
		where, sub = "partition bound", "cannot use subquery in partition bound"
	}
	var err error
	WalkExpr(n, func(x *pg.Node) {
		if err != nil {
			return
		}
		switch {
		case x.GetSubLink() != nil:
			err = pgerr.Errorf(pgerr.FeatureNotSupported, "%s", sub)
		case x.GetFuncCall() != nil && x.GetFuncCall().Over != nil:
			err = pgerr.Errorf("42P20", "window functions are not allowed in %s", where)
		case x.GetFuncCall() != nil && types.IsSRF(funcCallName(x.GetFuncCall())):
			err = pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning functions are not allowed in %s", where)
		case bound && x.GetColumnRef() != nil && !isMinMaxValue(x):
			err = pgerr.Errorf(pgerr.InvalidColumnReference, "cannot use column reference in partition bound expression")
		}
	})
	if err == nil && hasAggregates(n) {
		err = pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in %s", where)
	}
	return err
}

// callsSetReturningRoutine reports a call of a user routine returning SETOF
// in e (builtin set-returning functions are refused on the parse tree).
func callsSetReturningRoutine(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if rc, ok := x.(*RoutineCall); ok && rc.Proc.RetSet {
			found = true
		}
		return !found
	})
	return found
}

func funcCallName(fc *pg.FuncCall) string {
	if len(fc.Funcname) == 0 {
		return ""
	}
	return fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
}

func isMinMaxValue(n *pg.Node) bool {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return false
	}
	s := strings.ToLower(cr.Fields[0].GetString_().Sval)
	return s == "minvalue" || s == "maxvalue"
}

// keyExprIsImmutable: e calls no volatile or stable function.
func keyExprIsImmutable(e expr.Expr) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		if f, isF := x.(*expr.Func); isF && (f.Fn.Volatile || f.Fn.Stable) {
			ok = false
		}
		return ok
	})
	return ok
}

func exprUsesVars(e expr.Expr) bool {
	uses := false
	expr.Walk(e, func(x expr.Expr) bool {
		if _, ok := x.(*expr.Var); ok {
			uses = true
		}
		return !uses
	})
	return uses
}

func isSystemColumnName(s string) bool {
	switch s {
	case "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid":
		return true
	}
	return false
}

// builtinKeyOptions accepts the operator classes and collations of a key
// column that mean what tidal's comparisons and hashes do (the default
// ones, byte-wise text order); a custom operator class would route rows
// elsewhere than PostgreSQL, so it is refused.
func builtinKeyOptions(el *pg.PartitionElem) error {
	for _, n := range el.Opclass {
		switch n.GetString_().GetSval() {
		case "int2_ops", "int4_ops", "int8_ops", "integer_ops", "text_ops", "varchar_ops", "bpchar_ops", "numeric_ops",
			"float4_ops", "float8_ops", "float_ops", "date_ops", "timestamp_ops", "timestamptz_ops", "bool_ops", "oid_ops", "text_pattern_ops", "varchar_pattern_ops":
		default:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "operator class \"%s\" in a partition key is not supported yet", n.GetString_().GetSval())
		}
	}
	for _, n := range el.Collation {
		switch n.GetString_().GetSval() {
		case "C", "POSIX", "default":
		default:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "collation \"%s\" in a partition key is not supported yet", n.GetString_().GetSval())
		}
	}
	return nil
}
