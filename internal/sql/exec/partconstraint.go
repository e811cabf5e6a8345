package exec

import (
	"fmt"
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// PartitionConstraintDef is pg_get_partition_constraintdef: the
// partition's constraint (its bound and its ancestors') as PostgreSQL's
// ruleutils prints the qual: "((a IS NOT NULL) AND (a >= 1) AND (a < 10))".
// ok=false for a relation that is no partition, and for the bounds whose
// constraint is not printed yet (multi-column range bounds, default
// partitions): the caller shows NULL.
func PartitionConstraintDef(c *Ctx, rel *catalog.Relation) (string, bool, error) {
	pc, err := loadPartConstraint(c, rel)
	if err != nil || pc == nil {
		return "", false, err
	}
	var parts []string
	for i := len(pc.levels) - 1; i >= 0; i-- {
		l := pc.levels[i]
		p, ok := l.desc.constraintParts(l.bound)
		if !ok {
			return "", false, nil
		}
		parts = append(parts, p...)
	}
	if len(parts) == 1 {
		return parts[0], true, nil
	}
	return "(" + strings.Join(parts, " AND ") + ")", true, nil
}

// keyText is key column i as the constraint prints it.
func (d *partDesc) keyText(i int) string {
	if a := d.key.Attrs[i]; a > 0 {
		return types.QuoteIdent(d.rel.Attrs[a-1].Name)
	}
	s := d.keyExprs[i].String()
	if f, ok := d.keyExprs[i].(*expr.Func); ok && f.Op != "" && !strings.HasPrefix(s, "(") {
		s = "(" + s + ")"
	}
	return s
}

func (d *partDesc) constraintParts(b *partBound) ([]string, bool) {
	if b.isDefault {
		return nil, false
	}
	switch d.key.Strategy {
	case 'h':
		keys := make([]string, len(d.keyTypes))
		for i := range keys {
			keys[i] = d.keyText(i)
		}
		return []string{fmt.Sprintf("satisfies_hash_partition('%d'::oid, %d, %d, %s)", d.rel.OID, b.modulus, b.remainder, strings.Join(keys, ", "))}, true
	case 'l':
		k, t := d.keyText(0), d.keyTypes[0]
		var vals []string
		for _, v := range b.list {
			vals = append(vals, typedConst(t, v))
		}
		var eq string
		switch len(vals) {
		case 0:
		case 1:
			eq = fmt.Sprintf("(%s = %s)", k, vals[0])
		default:
			eq = fmt.Sprintf("(%s = ANY (ARRAY[%s]))", k, strings.Join(vals, ", "))
		}
		switch {
		case b.listNull && eq == "":
			return []string{fmt.Sprintf("(%s IS NULL)", k)}, true
		case b.listNull:
			return []string{fmt.Sprintf("((%s IS NULL) OR %s)", k, eq)}, true
		}
		return []string{fmt.Sprintf("(%s IS NOT NULL)", k), eq}, true
	}
	if len(d.keyTypes) != 1 {
		return nil, false
	}
	k, t := d.keyText(0), d.keyTypes[0]
	parts := []string{fmt.Sprintf("(%s IS NOT NULL)", k)}
	if lo := b.lower[0]; lo.inf == 0 {
		parts = append(parts, fmt.Sprintf("(%s >= %s)", k, typedConst(t, lo.val)))
	}
	if hi := b.upper[0]; hi.inf == 0 {
		parts = append(parts, fmt.Sprintf("(%s < %s)", k, typedConst(t, hi.val)))
	}
	return parts, true
}

// typedConst prints a constant as ruleutils' get_const_expr does in an
// expression: numbers bare unless negative, booleans bare, the rest as a
// quoted literal with its type.
func typedConst(t types.Type, v types.Datum) string {
	s := types.FormatText(t, v)
	switch t.OID {
	case types.Int4OID, types.NumericOID:
		if s != "" && s[0] != '-' && strings.Trim(s, "0123456789.") == "" {
			return s
		}
	case types.BoolOID:
		if v.Bool() {
			return "true"
		}
		return "false"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'::" + t.String()
}
