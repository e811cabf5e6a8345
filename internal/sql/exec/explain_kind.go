package exec

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
)

// nodeKind is n's Node Type, Strategy, Partial Mode and Operation (kind)
// and its Parallel Aware … scan target and join type (target), the
// properties the text format folds into the node's name.
func (e *explainer) nodeKind(n Node) (kind, target []prop) {
	nodeType := func(t string) { kind = append(kind, textProp("Node Type", t)) }
	parallel := false
	var tail []prop
	switch x := n.(type) {
	case *SeqScan:
		nodeType("Seq Scan")
		parallel = x.Parallel
		tail = e.scanTarget(x.Rel, x.Alias)
	case *IndexScan:
		nodeType("Index Scan")
		tail = append([]prop{textProp("Scan Direction", "Forward"), textProp("Index Name", x.Index.Name)}, e.scanTarget(x.Rel, x.Alias)...)
	case *TidScan:
		nodeType("Tid Scan")
		tail = e.scanTarget(x.Rel, x.Alias)
	case *CurrentOfScan:
		nodeType("Tid Scan")
		tail = e.scanTarget(x.Rel, x.Alias)
	case *ModifyTable:
		nodeType("ModifyTable")
		kind = append(kind, textProp("Operation", x.Kind))
		tail = e.scanTarget(x.Rel, x.Alias)
	case *Agg:
		nodeType("Aggregate")
		kind = append(kind, textProp("Strategy", aggStrategy(e.label(n))), textProp("Partial Mode", x.split.mode()))
	case *FunctionScan:
		nodeType("Function Scan")
		tail = []prop{textProp("Function Name", x.SRF.Name), textProp("Alias", x.Alias)}
	case *RoutineScan:
		nodeType("Function Scan")
		tail = []prop{textProp("Function Name", x.Name), textProp("Alias", x.Alias)}
	case *ViewScan:
		nodeType("Function Scan")
		tail = []prop{textProp("Function Name", x.Name), textProp("Alias", x.Name)}
	case *Values:
		nodeType("Values Scan")
		tail = []prop{textProp("Alias", "*VALUES*")}
	case *HashJoin:
		nodeType("Hash Join")
		tail = []prop{textProp("Join Type", joinType(x.Kind))}
	case *NestLoop:
		nodeType("Nested Loop")
		tail = []prop{textProp("Join Type", joinType(x.Kind))}
	case *SubqueryScan:
		nodeType("Subquery Scan")
		tail = []prop{textProp("Alias", x.Alias)}
	case *CTEScan:
		nodeType("CTE Scan")
		tail = []prop{textProp("CTE Name", x.def.name), textProp("Alias", aliasOr(x.Alias, x.def.name))}
	case *WorkTableScan:
		nodeType("WorkTable Scan")
		tail = []prop{textProp("CTE Name", x.Name), textProp("Alias", aliasOr(x.Alias, x.Name))}
	case *SetOp:
		nodeType("SetOp")
		kind = append(kind, textProp("Strategy", "Hashed"))
		cmd := "Intersect"
		if x.Except {
			cmd = "Except"
		}
		if x.All {
			cmd += " All"
		}
		tail = []prop{textProp("Command", cmd)}
	case *inheritUpdateResult:
		nodeType("Result")
	default:
		nodeType(e.label(n)) // the name is the type: Sort, Limit, Hash, Append, …
	}
	target = append([]prop{boolProp("Parallel Aware", parallel), boolProp("Async Capable", false)}, tail...)
	return kind, target
}

func aliasOr(alias, name string) string {
	if alias == "" {
		return name
	}
	return alias
}

// scanTarget is ExplainScanTarget: Relation Name, Schema (VERBOSE), Alias.
func (e *explainer) scanTarget(rel *catalog.Relation, alias string) []prop {
	return append(e.relTarget(rel.Name, rel.Namespace), textProp("Alias", aliasOr(alias, rel.Name)))
}

func (e *explainer) relTarget(name string, ns uint32) []prop {
	out := []prop{textProp("Relation Name", name)}
	if e.opt.Verbose && e.opt.SchemaName != nil {
		out = append(out, textProp("Schema", e.opt.SchemaName(ns)))
	}
	return out
}

// relName is a relation's name in the text format's node name: schema
// qualified under VERBOSE, as ExplainTargetRel prints it.
func (e *explainer) relName(rel *catalog.Relation) string {
	if e.opt.Verbose && e.opt.SchemaName != nil {
		return e.opt.SchemaName(rel.Namespace) + "." + rel.Name
	}
	return rel.Name
}

// aggStrategy is an Agg's Strategy, from the name its text form has.
func aggStrategy(name string) string {
	switch {
	case strings.HasSuffix(name, "HashAggregate"):
		return "Hashed"
	case strings.HasSuffix(name, "GroupAggregate"):
		return "Sorted"
	case strings.HasSuffix(name, "MixedAggregate"):
		return "Mixed"
	}
	return "Plain"
}

// mode is an Agg's Partial Mode.
func (s aggSplit) mode() string {
	switch s {
	case aggPartial:
		return "Partial"
	case aggFinalize:
		return "Finalize"
	}
	return "Simple"
}

func joinType(kind pg.JoinType) string {
	if k := joinName(kind); k != "" {
		return k
	}
	return "Inner"
}

// sections are the plans of the subqueries and CTEs a node runs, as
// PostgreSQL's "CTE name", "InitPlan n" and "SubPlan n" children.
func (e *explainer) sections(n Node, extra []expr.Expr) []*planDesc {
	var out []*planDesc
	section := func(rel, title string, child Node) {
		d := e.describe(child, nil, nil, nil)
		d.relationship, d.subplan = rel, title
		out = append(out, d)
	}
	if cs, ok := n.(*CTEScan); ok {
		if e.seenCTE == nil {
			e.seenCTE = map[*cteDef]bool{}
		}
		if !e.seenCTE[cs.def] {
			e.seenCTE[cs.def] = true
			section("InitPlan", "CTE "+cs.def.name, cs.def.node)
		}
	}
	seen := map[int]bool{}
	for _, x := range append(nodeExprs(n), extra...) {
		expr.Walk(x, func(y expr.Expr) bool {
			var plan *expr.SubqueryPlan
			init := false
			switch sp := y.(type) {
			case *expr.SubPlan:
				plan, init = sp.Plan, !sp.Plan.Correlated
			case *expr.HashedExists:
				plan = sp.Plan
			}
			if plan == nil || seen[plan.ID] {
				return true
			}
			seen[plan.ID] = true
			if node, ok := plan.Node.(Node); ok {
				if init {
					section("InitPlan", fmt.Sprintf("InitPlan %d", plan.ID), node)
				} else {
					section("SubPlan", fmt.Sprintf("SubPlan %d", plan.ID), node)
				}
			}
			return true
		})
	}
	return out
}
