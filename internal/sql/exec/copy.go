package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/storage/buffer"
)

// CopyInserter inserts batches of already-typed rows into a table, for COPY
// FROM: the same heap insert and index maintenance as INSERT's
// ModifyTable, without planning an expression per value. Like PostgreSQL's
// COPY it writes through a bulk-write buffer ring, so a large load does not
// evict the rest of shared buffers.
type CopyInserter struct {
	Rel   *catalog.Relation
	Count int64 // rows inserted so far

	listed   []bool      // per attribute: COPY supplies it
	defaults []expr.Expr // per attribute not listed: its default (nil = NULL)
	deformer tableam.Format
	ring     *buffer.Strategy
	mt       ModifyTable // for the constraint checks
}

// NewCopyInserter prepares inserts into rel for a COPY that supplies the
// attributes cols (0-based indexes); the others get their defaults. It
// assigns the transaction's xid.
func NewCopyInserter(c *Ctx, rel *catalog.Relation, cols []int) (*CopyInserter, error) {
	ci := &CopyInserter{Rel: rel, listed: make([]bool, len(rel.Attrs)), defaults: make([]expr.Expr, len(rel.Attrs))}
	for _, i := range cols {
		ci.listed[i] = true
	}
	p := &Planner{C: c}
	for i, a := range rel.Attrs {
		def, err := domainDefault(c, a)
		if err != nil {
			return nil, err
		}
		if ci.listed[i] || def == "" {
			continue
		}
		e, err := p.defaultExpr(a)
		if err != nil {
			return nil, err
		}
		ci.defaults[i] = e
	}
	ci.deformer = rel.NewDeformerFor(c.Context, c.U())
	ci.ring = c.Eng.Pool.NewStrategy(buffer.BulkWrite, 16<<20)
	ci.mt.Rel, ci.mt.Kind = rel, "Insert"
	if err := ci.mt.prepareConstraints(c); err != nil {
		return nil, err
	}
	xid, err := c.Eng.Xact.AssignXid(c.Tx.Heap.Proc)
	if err != nil {
		return nil, err
	}
	c.Tx.Heap.Xid = xid
	if err := ci.mt.statementTriggers(c, catalog.TriggerTypeBefore); err != nil {
		return nil, err
	}
	return ci, nil
}

// Insert stores rows, each with one datum per attribute of the table (the
// unlisted ones are filled in with their defaults here).
func (ci *CopyInserter) Insert(c *Ctx, rows []Row) error {
	if err := c.checkCancel(); err != nil {
		return err
	}
	for _, row := range rows {
		for i, d := range ci.defaults {
			if d == nil {
				continue
			}
			v, err := d.Eval(c.Env, nil)
			if err != nil {
				return err
			}
			row[i] = v
		}
		t, row, err := ci.mt.insertTarget(c, row)
		if err != nil {
			return err
		}
		row, ok, err := t.beforeRow(c, catalog.TriggerTypeInsert, nil, row)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		deformer := ci.deformer
		if t != &ci.mt {
			deformer = t.deformer
			t.Count++
		}
		if err := t.checkNotNull(c, row); err != nil {
			return err
		}
		if err := t.checkRow(c, row); err != nil {
			return err
		}
		sr, err := formRow(c, t.Rel, deformer, row, nil)
		if err != nil {
			return err
		}
		tid, err := t.Rel.Table.Insert(c.U(), c.Tx.Heap, sr.tup, ci.ring)
		if err != nil {
			return err
		}
		if err := insertIndexEntries(c, t.Rel, row, tid); err != nil {
			return err
		}
		if err := t.checkForeignKeys(c, row, nil); err != nil {
			return err
		}
		if err := t.afterRow(c, catalog.TriggerTypeInsert, nil, row); err != nil {
			return err
		}
		ci.Count++
	}
	return nil
}

// Finish fires the AFTER triggers and reports the inserted rows to the
// statistics collector.
func (ci *CopyInserter) Finish(c *Ctx) error {
	if err := ci.mt.statementTriggers(c, 0); err != nil {
		return err
	}
	if err := ci.mt.queue().fireAll(c); err != nil {
		return err
	}
	ci.report(c)
	return nil
}

func (ci *CopyInserter) report(c *Ctx) {
	if ci.mt.router != nil {
		_ = ci.mt.router.forEachLeaf(func(l *ModifyTable) error {
			c.Eng.Stats.Modified(l.Rel.OID, l.Count, 0, 0, 0)
			return nil
		})
		return
	}
	if ci.Count > 0 {
		c.Eng.Stats.Modified(ci.Rel.OID, ci.Count, 0, 0, 0)
	}
}
