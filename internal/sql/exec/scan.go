package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// TIDDatum packs a TID into a datum (the hidden ctid column scans add for
// UPDATE and DELETE).
func TIDDatum(t page.ItemPointer) types.Datum {
	return types.Int(int64(t.Block)<<16 | int64(t.Offset))
}

// DatumTID unpacks TIDDatum.
func DatumTID(d types.Datum) page.ItemPointer {
	v := d.Int()
	return page.ItemPointer{Block: page.BlockNumber(v >> 16), Offset: page.OffsetNumber(v & 0xFFFF)}
}

func tableColumns(rel *catalog.Relation, sys []sysAttr, withTID bool) []Column {
	cols := make([]Column, 0, len(rel.Attrs)+len(sys)+1)
	for _, a := range rel.Attrs {
		cols = append(cols, Column{Name: a.Name, Type: a.Type, Table: rel.OID, Attr: a.Num, Dropped: a.Dropped})
	}
	cols = append(cols, sysColumns(rel, sys)...)
	if withTID {
		cols = append(cols, Column{Name: "ctid", Type: types.Int8})
	}
	return cols
}

// SeqScan reads a table in physical order.
type SeqScan struct {
	nodeBase
	Rel     *catalog.Relation
	Alias   string
	Qual    expr.Expr
	Sys     []sysAttr // system columns after the table's (syscols.go)
	WithTID bool
	// Parallel: a Parallel Seq Scan under a Gather, one participant's
	// share of the table's blocks (par, set by the Gather at each run).
	Parallel bool
	par      *tableam.ParallelScan
	// parallelDiv: the share of the rows one participant is expected to
	// read (parallel_plan.go's parallelDivisor), for EXPLAIN's estimate.
	parallelDiv float64
	// reuseRow: the node above reads only the leading leadAttrs columns
	// and keeps no row past its next call (an aggregate that buffers
	// nothing, narrowAggScan), so Next decodes just those into one row it
	// reuses: count(*) decodes nothing and allocates nothing per row.
	reuseRow  bool
	leadAttrs int

	scan      tableam.Scan
	def       tableam.Format
	row       Row
	natts     int
	qualAttrs int // leading columns the qual reads
	scratch   Row
	pushed    bool             // the qual runs inside the heap scan
	lastTID   page.ItemPointer // of the row returned last (WHERE CURRENT OF)
	// read counts the rows the scan handed up this time it was opened,
	// before any qual outside it (seq_tup_read, tup_returned).
	read int64
}

func (s *SeqScan) Columns() []Column { return tableColumns(s.Rel, s.Sys, s.WithTID) }

func (s *SeqScan) Open(c *Ctx) error {
	s.def = s.Rel.NewDeformerFor(c.Context, c.U())
	s.natts = len(s.Rel.Attrs)
	s.qualAttrs = s.natts
	s.pushed = false
	s.lastTID = page.ItemPointer{}
	s.read = 0
	opt := tableam.ScanOptions{Interrupts: c.Interrupts, Parallel: s.par}
	if s.Qual != nil {
		if n := expr.MaxVar(s.Qual); n < s.natts {
			s.qualAttrs = n
		}
		s.scratch = make(Row, s.natts+len(s.Sys)+1)
		if simpleExpr(s.Qual) && len(s.Sys) == 0 {
			// Evaluate the qual on the page itself, so rejected rows
			// are never copied out or decoded beyond the qual's columns.
			s.pushed = true
			env := c.Env
			opt.Filter = func(t tableam.Tuple) (bool, error) {
				if err := c.checkCancel(); err != nil {
					return false, err
				}
				if err := s.def.DeformUpTo(t, s.scratch, s.qualAttrs); err != nil {
					return false, err
				}
				return expr.IsTrue(env, s.Qual, s.scratch)
			}
		}
	}
	var err error
	if s.scan != nil {
		s.scan.Close() // a rescan
	}
	s.scan, err = s.Rel.Table.BeginScan(c.U(), c.Tx.Heap, opt)
	return err
}

func (s *SeqScan) Next(c *Ctx) (Row, error) {
	for {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		t, tid, ok, err := s.scan.Next()
		if s.pushed {
			s.instr.Filtered = s.scan.Filtered()
		}
		if err != nil || !ok {
			return nil, err
		}
		s.read++
		if s.pushed {
			s.instr.Filtered = s.scan.Filtered()
		} else if s.scratch != nil {
			// Check the qual on the leading columns it reads before
			// decoding (and allocating) the whole row.
			if err := s.def.DeformUpTo(t, s.scratch, s.qualAttrs); err != nil {
				return nil, err
			}
			fillSysAttrs(s.scratch[s.natts:], s.Sys, s.Rel, s.def, t, tid)
			ok, err := expr.IsTrue(c.Env, s.Qual, s.scratch)
			if err != nil {
				return nil, err
			}
			if !ok {
				s.instr.Filtered++
				continue
			}
		}
		var row Row
		if s.reuseRow {
			row, err = s.leadingRow(t)
		} else {
			row, err = scanRow(s.def, s.natts, s.Sys, s.Rel, s.WithTID, t, tid)
		}
		if err != nil {
			return nil, err
		}
		if s.Qual != nil && s.scratch == nil && !s.pushed {
			ok, err := expr.IsTrue(c.Env, s.Qual, row)
			if err != nil {
				return nil, err
			}
			if !ok {
				s.instr.Filtered++
				continue
			}
		}
		s.lastTID = tid
		return row, nil
	}
}

// leadingRow decodes the leading leadAttrs columns of t into the reused row.
func (s *SeqScan) leadingRow(t tableam.Tuple) (Row, error) {
	if len(s.row) != s.natts {
		s.row = make(Row, s.natts)
	}
	if s.leadAttrs > 0 {
		if err := s.def.DeformUpTo(t, s.row, s.leadAttrs); err != nil {
			return nil, err
		}
	}
	return s.row, nil
}

// scanRow decodes a visible row version found at tid into a scan's row:
// the table's columns, the system columns asked for, the TID if asked for.
func scanRow(def tableam.Format, natts int, sys []sysAttr, rel *catalog.Relation, withTID bool, t tableam.Tuple, tid page.ItemPointer) (Row, error) {
	n := natts + len(sys)
	if withTID {
		n++
	}
	row := make(Row, n)
	if err := def.Deform(t, row[:natts]); err != nil {
		return nil, err
	}
	fillSysAttrs(row[natts:], sys, rel, def, t, tid)
	if withTID {
		row[natts+len(sys)] = TIDDatum(tid)
	}
	return row, nil
}

// Close counts the scan and the live rows it read: those it returned and
// those its qual rejected (PostgreSQL counts every row the scan fetched).
func (s *SeqScan) Close(c *Ctx) {
	n := s.read
	if s.pushed && s.scan != nil {
		n += s.scan.Filtered()
	}
	c.Eng.Stats.Scanned(s.Rel.OID, false, n)
	if s.scan != nil {
		s.scan.Close()
	}
}

// Result produces one row from expressions (SELECT without FROM).
type Result struct {
	nodeBase
	Exprs []expr.Expr
	Names []string
	Qual  expr.Expr
	done  bool
}

func (r *Result) Columns() []Column {
	cols := make([]Column, len(r.Exprs))
	for i, e := range r.Exprs {
		cols[i] = Column{Name: r.Names[i], Type: e.Type()}
	}
	return cols
}
func (r *Result) Open(c *Ctx) error { r.done = false; return nil }
func (r *Result) Next(c *Ctx) (Row, error) {
	if r.done {
		return nil, nil
	}
	r.done = true
	if r.Qual != nil {
		ok, err := expr.IsTrue(c.Env, r.Qual, nil)
		if err != nil || !ok {
			return nil, err
		}
	}
	row := make(Row, len(r.Exprs))
	for i, e := range r.Exprs {
		d, err := e.Eval(c.Env, nil)
		if err != nil {
			return nil, err
		}
		row[i] = d
	}
	return row, nil
}
func (r *Result) Close(c *Ctx) {}

// Values produces the rows of a VALUES list.
type Values struct {
	nodeBase
	Rows [][]expr.Expr
	Cols []Column
	i    int
}

func (v *Values) Columns() []Column { return v.Cols }
func (v *Values) Open(c *Ctx) error { v.i = 0; return nil }
func (v *Values) Close(c *Ctx)      {}
func (v *Values) Next(c *Ctx) (Row, error) {
	if v.i >= len(v.Rows) {
		return nil, nil
	}
	exprs := v.Rows[v.i]
	v.i++
	row := make(Row, len(exprs))
	for i, e := range exprs {
		d, err := e.Eval(c.Env, nil)
		if err != nil {
			return nil, err
		}
		row[i] = d
	}
	return row, nil
}

// FunctionScan runs a set-returning function (generate_series).
type FunctionScan struct {
	nodeBase
	SRF   *types.SRF
	Args  []expr.Expr
	Alias string
	Col   string
	Qual  expr.Expr
	// Ordinality names the WITH ORDINALITY column, if any.
	Ordinality string
	// ColNames name the columns of a multi-column SRF (SRF.Cols).
	ColNames []string
	iter     func() (types.Datum, bool, error)
	rowIter  func() ([]types.Datum, bool, error)
	n        int64
}

func (f *FunctionScan) Columns() []Column {
	cols := []Column{{Name: f.Col, Type: f.SRF.Ret}}
	if len(f.SRF.Cols) > 0 {
		cols = cols[:0]
		for i, c := range f.SRF.Cols {
			cols = append(cols, Column{Name: f.ColNames[i], Type: c.Type})
		}
	}
	if f.Ordinality != "" {
		cols = append(cols, Column{Name: f.Ordinality, Type: types.Int8})
	}
	return cols
}
func (f *FunctionScan) Open(c *Ctx) error {
	f.n = 0
	args := make([]types.Datum, len(f.Args))
	for i, a := range f.Args {
		d, err := a.Eval(c.Env, nil)
		if err != nil {
			return err
		}
		args[i] = d
	}
	f.rowIter = nil
	for _, a := range args {
		if a.IsNull() && !f.SRF.NonStrict {
			f.iter = func() (types.Datum, bool, error) { return types.Null(), false, nil }
			return nil
		}
	}
	if f.SRF.FnRows != nil {
		it, err := f.SRF.FnRows(args)
		f.rowIter = it
		return err
	}
	if f.SRF.FnRowsCtx != nil {
		it, err := f.SRF.FnRowsCtx(c, args)
		f.rowIter = it
		return err
	}
	var it func() (types.Datum, bool, error)
	var err error
	switch {
	case f.SRF.FnSession != nil:
		it, err = f.SRF.FnSession(c.Session, args)
	case f.SRF.FnWith != nil:
		it, err = f.SRF.FnWith(c.Env.Settings, args)
	default:
		it, err = f.SRF.Fn(args)
	}
	f.iter = it
	return err
}
func (f *FunctionScan) Next(c *Ctx) (Row, error) {
	for {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		var row Row
		if f.rowIter != nil {
			vals, ok, err := f.rowIter()
			if err != nil || !ok {
				return nil, err
			}
			row = append(Row{}, vals...)
		} else {
			d, ok, err := f.iter()
			if err != nil || !ok {
				return nil, err
			}
			row = Row{d}
		}
		if f.Ordinality != "" {
			f.n++
			row = append(row, types.Int(f.n))
		}
		if f.Qual != nil {
			ok, err := expr.IsTrue(c.Env, f.Qual, row)
			if err != nil {
				return nil, err
			}
			if !ok {
				f.instr.Filtered++
				continue
			}
		}
		return row, nil
	}
}
func (f *FunctionScan) Close(c *Ctx) {}

// Project computes output expressions from its input's rows. EXPLAIN does
// not show it: PostgreSQL folds projection into the node below.
type Project struct {
	nodeBase
	Input Node
	Exprs []expr.Expr
	Cols  []Column
}

func (p *Project) Columns() []Column { return p.Cols }
func (p *Project) Open(c *Ctx) error { return Open(c, p.Input) }
func (p *Project) Close(c *Ctx)      { Close(c, p.Input) }
func (p *Project) Next(c *Ctx) (Row, error) {
	in, err := Next(c, p.Input)
	if err != nil || in == nil {
		return nil, err
	}
	out := make(Row, len(p.Exprs))
	for i, e := range p.Exprs {
		if out[i], err = e.Eval(c.Env, in); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Filter drops rows failing a qual (used above nodes that cannot filter).
type Filter struct {
	nodeBase
	Input Node
	Qual  expr.Expr
}

func (f *Filter) Columns() []Column { return f.Input.Columns() }
func (f *Filter) Open(c *Ctx) error { return Open(c, f.Input) }
func (f *Filter) Close(c *Ctx)      { Close(c, f.Input) }
func (f *Filter) Next(c *Ctx) (Row, error) {
	for {
		in, err := Next(c, f.Input)
		if err != nil || in == nil {
			return nil, err
		}
		ok, err := expr.IsTrue(c.Env, f.Qual, in)
		if err != nil {
			return nil, err
		}
		if ok {
			return in, nil
		}
		f.instr.Filtered++
	}
}
