package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// TidScan fetches the row version at one TID (WHERE ctid = …), as
// PostgreSQL's Tid Scan: a row is returned only when the version at that
// TID is visible. (The heap's fetch follows a HOT chain to the visible
// member, so Qual, which keeps the ctid condition, drops a version found
// at another TID.)
type TidScan struct {
	nodeBase
	Rel     *catalog.Relation
	Alias   string
	TID     expr.Expr // the TID compared with ctid (a constant or parameter)
	Cond    string    // TID Cond as EXPLAIN prints it
	Qual    expr.Expr // every condition on the table, the ctid one included
	Filter  expr.Expr // the conditions but the ctid one (EXPLAIN's Filter)
	Sys     []sysAttr
	WithTID bool

	done bool
	def  tableam.Format
}

func (s *TidScan) Columns() []Column { return tableColumns(s.Rel, s.Sys, s.WithTID) }

func (s *TidScan) Open(c *Ctx) error {
	s.done, s.def = false, s.Rel.NewDeformer()
	return nil
}

func (s *TidScan) Close(c *Ctx) {}

func (s *TidScan) Next(c *Ctx) (Row, error) {
	if s.done {
		return nil, nil
	}
	s.done = true
	d, err := s.TID.Eval(c.Env, nil)
	if err != nil || d.IsNull() {
		return nil, err
	}
	blk, off := types.TidParts(d)
	nblocks, err := s.Rel.Table.NBlocks()
	if err != nil || page.BlockNumber(blk) >= nblocks || off == 0 {
		return nil, err
	}
	t, vtid, found, err := s.Rel.Table.Fetch(c.U(), c.Tx.Heap, page.ItemPointer{Block: page.BlockNumber(blk), Offset: page.OffsetNumber(off)})
	if err != nil || !found {
		return nil, err
	}
	row, err := scanRow(s.def, len(s.Rel.Attrs), s.Sys, s.Rel, s.WithTID, t, vtid)
	if err != nil {
		return nil, err
	}
	if ok, err := expr.IsTrue(c.Env, s.Qual, row); err != nil || !ok {
		if err == nil {
			s.instr.Filtered++
		}
		return nil, err
	}
	return row, nil
}

// tidScanFor plans a Tid Scan of fi when a conjunct of qual is
// ctid = constant (nil otherwise).
func tidScanFor(fi *fromItem, qual expr.Expr, withTID bool) *TidScan {
	ctid := -1
	for i, a := range fi.sys {
		if a == sysCtid {
			ctid = len(fi.rel.Attrs) + i
		}
	}
	if ctid < 0 || qual == nil {
		return nil
	}
	cs := conjuncts(qual)
	for i, cj := range cs {
		col, op, val, ok := indexable(cj)
		if !ok || col != ctid || op != "=" {
			continue
		}
		rest := append(append([]expr.Expr{}, cs[:i]...), cs[i+1:]...)
		return &TidScan{Rel: fi.rel, Alias: fi.alias, TID: val, Cond: cj.String(), Qual: qual, Filter: andOf(rest), Sys: fi.sys, WithTID: withTID}
	}
	return nil
}

func (s *TidScan) label() string {
	l := "Tid Scan on " + s.Rel.Name
	if s.Alias != "" && s.Alias != s.Rel.Name {
		l += " " + s.Alias
	}
	return l
}
