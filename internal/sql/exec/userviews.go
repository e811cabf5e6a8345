package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// ParseViewQuery parses a view's stored query (pg_rewrite.ev_action).
func ParseViewQuery(rel *catalog.Relation) (*pg.SelectStmt, error) {
	tree, err := pg.Parse(rel.ViewQuery)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, pgerr.Errorf(pgerr.InternalError, "view \"%s\" has a malformed stored query", rel.Name)
	}
	return tree.Stmts[0].Stmt.GetSelectStmt(), nil
}

// expandView plans a view named in FROM as the subquery it stands for
// (PostgreSQL's rewriter does the same with the view's _RETURN rule). The
// stored query is planned afresh at each use, with none of the naming
// query's WITH queries visible; its columns take the view's column names.
func (p *Planner) expandView(rel *catalog.Relation, rv *pg.RangeVar, sc *scope, mark *rowMark) (*jtree, error) {
	sel, err := ParseViewQuery(rel)
	if err != nil {
		return nil, err
	}
	alias, colAliases := aliasOf(rv.Alias, rel.Name)
	if mark != nil {
		sel = lockSubquery(sel, mark, p.q.locks.clauses[0].strength)
	}
	// What the view's own query reads is its dependency, not the naming
	// query's (pg_depend records direct dependencies only).
	outerLocks, outerCTEs, uses, usedCols := p.q.locks, p.q.ctes, p.Uses, p.UsedColumns
	p.q.locks, p.q.ctes, p.Uses, p.UsedColumns = nil, nil, nil, nil
	defer func() { p.q.locks, p.q.ctes, p.Uses, p.UsedColumns = outerLocks, outerCTEs, uses, usedCols }()
	asOwner := p.asViewOwner(rel)
	node, cols, _, err := p.planQuery(sel, sc.parent, sc.level)
	asOwner()
	if err != nil {
		return nil, err
	}
	if len(colAliases) > len(rel.Attrs) {
		return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, len(rel.Attrs), len(colAliases))
	}
	if len(cols) != len(rel.Attrs) {
		return nil, pgerr.Errorf(pgerr.InternalError, "view \"%s\" has %d columns but its query %d", rel.Name, len(rel.Attrs), len(cols))
	}
	var scols []scopeCol
	var outCols []Column
	for i, c := range cols {
		name := rel.Attrs[i].Name
		if i < len(colAliases) {
			name = colAliases[i]
		}
		scols = append(scols, scopeCol{rel: alias, name: name, t: c.Type, relname: rel.Name})
		outCols = append(outCols, Column{Name: name, Type: c.Type})
	}
	ss := &SubqueryScan{Input: node, Alias: alias, Cols: outCols}
	if uses != nil {
		uses[rel.OID] = true
	}
	return p.addLeaf(sc, &fromItem{node: ss, alias: alias}, scols), nil
}

// checkPopulated refuses to read a materialized view made WITH NO DATA
// (REFRESH itself may).
func (p *Planner) checkPopulated(rel *catalog.Relation) error {
	if rel.MatView && !rel.Populated && !p.FillMatView && !p.PlanOnly {
		return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "materialized view \"%s\" has not been populated", rel.Name).
			WithHint("Use the REFRESH MATERIALIZED VIEW command.")
	}
	return nil
}

// pg_views and pg_matviews, computed from pg_class and pg_rewrite.
func init() {
	systemViews["pg_views"] = &systemView{
		cols: []Column{col("schemaname", types.Name), col("viewname", types.Name), col("viewowner", types.Name), col("definition", types.Text)},
		rows: func(c *Ctx) ([]Row, error) { return viewRows(c, false) },
	}
	systemViews["pg_matviews"] = &systemView{
		cols: []Column{col("schemaname", types.Name), col("matviewname", types.Name), col("matviewowner", types.Name),
			col("tablespace", types.Name), col("hasindexes", types.Boolean), col("ispopulated", types.Boolean), col("definition", types.Text)},
		rows: func(c *Ctx) ([]Row, error) { return viewRows(c, true) },
	}
}

func viewRows(c *Ctx, materialized bool) ([]Row, error) {
	views, err := c.Eng.Catalog.Views(c.Tx)
	if err != nil {
		return nil, err
	}
	f := c.CatalogFuncs()
	var out []Row
	for _, v := range views {
		if v.Materialized != materialized {
			continue
		}
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		owner, err := f.Call("pg_get_userbyid", []types.Datum{types.Int(int64(v.Owner))})
		if err != nil {
			return nil, err
		}
		def, err := f.viewDef(v.OID, false)
		if err != nil {
			return nil, err
		}
		row := Row{types.Str(nspName(c.Eng.Catalog, v.Namespace)), types.Str(v.Name), owner}
		if materialized {
			rel, err := c.Eng.Catalog.ByOID(c.Tx, v.OID)
			if err != nil || rel == nil {
				continue
			}
			row = append(row, types.Null(), types.Bool(len(rel.Indexes) > 0), types.Bool(rel.Populated))
		}
		out = append(out, append(row, def))
	}
	return out, nil
}

func (p *Planner) noteColumnUse(table uint32, attnum int16) {
	m := p.UsedColumns[table]
	if m == nil {
		m = map[int16]bool{}
		p.UsedColumns[table] = m
	}
	m[attnum] = true
}
