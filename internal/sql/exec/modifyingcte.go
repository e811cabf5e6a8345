package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Data-modifying statements in WITH (INSERT, UPDATE or DELETE as a WITH
// query), as PostgreSQL runs them: each runs exactly once and to
// completion, whether the main query reads all of its RETURNING rows,
// some or none; all of them and the main query run as one command, so
// none sees the others' changes (only the RETURNING rows carry them);
// one no query reads runs after the main query. They are allowed only in
// the statement's top-level WITH.
//
// The WITH query's plan is its ModifyTable, whose RETURNING rows are the
// query's rows; a CTEScan computes them on first use (the ModifyTable
// changes every row and buffers its RETURNING rows on its first Next),
// and cteState.ran keeps a second scan — even one under another Env,
// in a subquery — from running the statement again.

// planModifyingCTE plans a WITH query that is an INSERT, UPDATE or
// DELETE; ok false when it is none of them.
func (p *Planner) planModifyingCTE(ce *pg.CommonTableExpr, level int, parent levelScope) (*cteDef, bool, error) {
	q := ce.Ctequery
	if q.GetInsertStmt() == nil && q.GetUpdateStmt() == nil && q.GetDeleteStmt() == nil {
		return nil, false, nil
	}
	if level != 0 || parent != nil || len(p.q.stack) > 1 {
		return nil, true, at(pgerr.Errorf(pgerr.FeatureNotSupported, "WITH clause containing a data-modifying statement must be at the top level"), ce.Location)
	}
	var mt *ModifyTable
	var err error
	switch {
	case q.GetInsertStmt() != nil:
		mt, err = p.planInsert(q.GetInsertStmt())
	case q.GetUpdateStmt() != nil:
		mt, err = p.planUpdate(q.GetUpdateStmt())
	default:
		mt, err = p.planDelete(q.GetDeleteStmt())
	}
	if err != nil {
		return nil, true, err
	}
	if err := checkCTEColumnCount(ce, len(mt.RetCols)); err != nil {
		return nil, true, err
	}
	def := &cteDef{name: ce.Ctename, node: mt, cols: renameCols(mt.RetCols, ce.Aliascolnames), mat: &cteState{},
		modifying: true, returning: mt.Returning != nil}
	p.q.modifying = append(p.q.modifying, def)
	return def, true, nil
}

// checkReadable refuses a reference to a data-modifying WITH query that
// returns no rows.
func (d *cteDef) checkReadable(loc int32) error {
	if d.modifying && !d.returning {
		return at(pgerr.Errorf(pgerr.FeatureNotSupported, "WITH query \"%s\" does not have a RETURNING clause", d.name), loc)
	}
	return nil
}

// runUnread runs the data-modifying WITH queries no scan has run: at the
// end of the main query, as PostgreSQL's ExecPostprocessPlan.
func runUnread(c *Ctx, defs []*cteDef) error {
	for _, d := range defs {
		if d.mat.ran {
			continue
		}
		scan := &CTEScan{def: d}
		err := scan.Open(c)
		scan.Close(c)
		if err != nil {
			return err
		}
	}
	return nil
}

// ModifyingWith runs a SELECT's data-modifying WITH queries that its rows
// did not need, once the rows are done. EXPLAIN shows only its input.
type ModifyingWith struct {
	nodeBase
	Input Node
	defs  []*cteDef
	done  bool
}

func (m *ModifyingWith) Columns() []Column { return m.Input.Columns() }
func (m *ModifyingWith) Open(c *Ctx) error {
	m.done = false
	return Open(c, m.Input)
}
func (m *ModifyingWith) Next(c *Ctx) (Row, error) {
	if m.done {
		return nil, nil
	}
	r, err := Next(c, m.Input)
	if err != nil || r != nil {
		return r, err
	}
	m.done = true
	return nil, runUnread(c, m.defs)
}
func (m *ModifyingWith) Close(c *Ctx) { Close(c, m.Input) }

// withModifying wraps a SELECT's plan when its WITH changes tables.
func (p *Planner) withModifying(node Node) Node {
	if len(p.q.modifying) == 0 {
		return node
	}
	return &ModifyingWith{Input: node, defs: p.q.modifying}
}
