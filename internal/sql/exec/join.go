package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/sql/expr"
)

func joinRow(l, r Row, lw, rw int) Row {
	out := make(Row, lw+rw)
	copy(out, l)
	copy(out[lw:], r)
	return out
}

func joinName(kind pg.JoinType) string {
	switch kind {
	case pg.JoinType_JOIN_LEFT:
		return "Left"
	case pg.JoinType_JOIN_RIGHT:
		return "Right"
	case pg.JoinType_JOIN_FULL:
		return "Full"
	}
	return ""
}

// NestLoop joins each left row with every right row that satisfies Qual.
// Without Lateral the right side is read once and kept in a rowStore
// (within work_mem, then on a temporary file: PostgreSQL's Materialize); with
// Lateral it is run again for each left row, which is pushed on the
// outer-row stack while it runs.
type NestLoop struct {
	nodeBase
	Left, Right Node
	Kind        pg.JoinType
	Lateral     bool
	Qual        expr.Expr
	cols        []Column

	lw, rw     int
	inner      *rowStore
	innerCur   *rowCursor // reads inner for the current left row, and then for the unmatched tail
	matched    []bool
	cur        Row
	curMatched bool
	rightOpen  bool
	tail       int // emitting unmatched right rows (RIGHT/FULL) from here
	leftDone   bool
}

func (n *NestLoop) Columns() []Column { return n.cols }

func (n *NestLoop) Open(c *Ctx) error {
	n.lw, n.rw = len(n.Left.Columns()), len(n.Right.Columns())
	n.cur, n.matched, n.tail, n.leftDone, n.rightOpen = nil, nil, -1, false, false
	n.closeInner()
	if err := Open(c, n.Left); err != nil {
		return err
	}
	if !n.Lateral {
		if err := Open(c, n.Right); err != nil {
			return err
		}
		n.inner = newRowStore(c)
		for {
			r, err := Next(c, n.Right)
			if err != nil {
				return err
			}
			if r == nil {
				break
			}
			if err := n.inner.add(c, r); err != nil {
				return err
			}
		}
		n.innerCur = n.inner.cursor()
		n.matched = make([]bool, n.inner.Len())
	}
	return nil
}

func (n *NestLoop) closeInner() {
	if n.inner != nil {
		n.inner.close()
	}
	n.inner, n.innerCur = nil, nil
}

// nextUnmatchedInner returns the next inner row no left row matched,
// NULL-extended on the left, or nil when there are no more.
func (n *NestLoop) nextUnmatchedInner() (Row, error) {
	if n.innerCur == nil {
		return nil, nil // a LATERAL right side keeps no rows
	}
	for {
		r, err := n.innerCur.next()
		if err != nil || r == nil {
			return nil, err
		}
		if !n.matched[n.innerCur.i-1] {
			return joinRow(nil, r, n.lw, n.rw), nil
		}
	}
}

func (n *NestLoop) withLeft(c *Ctx, f func() error) error {
	c.Env.Outer = append(c.Env.Outer, n.cur)
	err := f()
	c.Env.Outer = c.Env.Outer[:len(c.Env.Outer)-1]
	return err
}

func (n *NestLoop) Next(c *Ctx) (Row, error) {
	for {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		if n.tail >= 0 {
			return n.nextUnmatchedInner()
		}
		if n.cur == nil {
			if n.leftDone {
				return nil, nil
			}
			l, err := Next(c, n.Left)
			if err != nil {
				return nil, err
			}
			if l == nil {
				n.leftDone = true
				if keepsUnmatchedInner(n.Kind) {
					n.tail = 0
					n.innerCur.rewind()
					continue
				}
				return nil, nil
			}
			n.cur, n.curMatched = l, false
			if n.innerCur != nil {
				n.innerCur.rewind()
			}
			if n.Lateral {
				if n.rightOpen {
					Close(c, n.Right)
				}
				if err := n.withLeft(c, func() error { return Open(c, n.Right) }); err != nil {
					return nil, err
				}
				n.rightOpen = true
			}
		}
		var r Row
		idx := -1
		if n.Lateral {
			var err error
			if err = n.withLeft(c, func() error { r, err = Next(c, n.Right); return err }); err != nil {
				return nil, err
			}
		} else {
			var err error
			if r, err = n.innerCur.next(); err != nil {
				return nil, err
			}
			idx = n.innerCur.i - 1
		}
		if r == nil {
			cur := n.cur
			n.cur = nil
			if !n.curMatched && (n.Kind == pg.JoinType_JOIN_LEFT || n.Kind == pg.JoinType_JOIN_FULL) {
				return joinRow(cur, nil, n.lw, n.rw), nil
			}
			continue
		}
		out := joinRow(n.cur, r, n.lw, n.rw)
		if n.Qual != nil {
			ok, err := expr.IsTrue(c.Env, n.Qual, out)
			if err != nil {
				return nil, err
			}
			if !ok {
				n.instr.Filtered++
				continue
			}
		}
		n.curMatched = true
		if idx >= 0 {
			n.matched[idx] = true
		}
		return out, nil
	}
}

func (n *NestLoop) Close(c *Ctx) {
	Close(c, n.Left)
	if !n.Lateral || n.rightOpen {
		Close(c, n.Right)
	}
	n.rightOpen = false
	n.closeInner()
}

// SubqueryScan returns the rows of a subquery in FROM under its alias.
type SubqueryScan struct {
	nodeBase
	Input Node
	Alias string
	Cols  []Column
	Qual  expr.Expr
}

func (s *SubqueryScan) Columns() []Column { return s.Cols }
func (s *SubqueryScan) Open(c *Ctx) error { return Open(c, s.Input) }
func (s *SubqueryScan) Close(c *Ctx)      { Close(c, s.Input) }
func (s *SubqueryScan) Next(c *Ctx) (Row, error) {
	for {
		r, err := Next(c, s.Input)
		if err != nil || r == nil {
			return nil, err
		}
		if s.Qual != nil {
			ok, err := expr.IsTrue(c.Env, s.Qual, r)
			if err != nil {
				return nil, err
			}
			if !ok {
				s.instr.Filtered++
				continue
			}
		}
		return r, nil
	}
}

// cteState is a WITH query's materialized result, shared by its scans.
type cteState struct {
	env   *expr.Env
	store *rowStore // the rows computed so far, within work_mem
	// a lazily read query (recursive.go): producing, its node is open and
	// rows are still coming; done, all rows are in; readers, the open
	// CTEScans.
	producing, done bool
	readers         int
	// ran: a data-modifying query has run; it never runs again
	ran bool
	gen int // the round of the recursive term the rows are for (cteDef.round)
}

// fresh empties the rows for a new computation of the query.
func (m *cteState) fresh(c *Ctx) {
	if m.store == nil {
		m.store = newRowStore(c)
		return
	}
	m.store.reset()
}

// CTEScan reads a WITH query's result, computing it on first use.
type CTEScan struct {
	nodeBase
	def   *cteDef
	Alias string
	Qual  expr.Expr
	cur   *rowCursor
}

func (s *CTEScan) Columns() []Column { return s.def.cols }
func (s *CTEScan) Open(c *Ctx) error {
	s.closeCursor()
	if s.def.lazy {
		if err := s.openLazy(c); err != nil {
			return err
		}
		s.cur = s.def.mat.store.cursor()
		return nil
	}
	m := s.def.mat
	if m.ran || m.env == c.Env && c.Env != nil && s.def.freshFor(m) {
		s.cur = m.store.cursor()
		return nil
	}
	if s.def.modifying {
		m.ran = true // even if it fails: the statement fails with it
	}
	m.fresh(c)
	err := func() error {
		if err := Open(c, s.def.node); err != nil {
			Close(c, s.def.node)
			return err
		}
		defer Close(c, s.def.node)
		for {
			r, err := Next(c, s.def.node)
			if err != nil || r == nil {
				return err
			}
			if err := m.store.add(c, r); err != nil {
				return err
			}
		}
	}()
	if err != nil {
		return err
	}
	m.env, m.gen = c.Env, s.def.roundGen()
	s.cur = m.store.cursor()
	return nil
}

func (s *CTEScan) closeCursor() {
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
}

// Next returns the reader's next row of the WITH query; a lazily read
// one (recursive.go) computes rows no reader has reached yet.
func (s *CTEScan) Next(c *Ctx) (Row, error) {
	for {
		r, err := s.cur.next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			more, err := s.produce(c)
			if err != nil || !more {
				return nil, err
			}
			continue
		}
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		if s.Qual != nil {
			ok, err := expr.IsTrue(c.Env, s.Qual, r)
			if err != nil {
				return nil, err
			}
			if !ok {
				s.instr.Filtered++
				continue
			}
		}
		return r, nil
	}
}
func (s *CTEScan) Close(c *Ctx) {
	s.closeCursor()
	if s.def.lazy {
		s.closeLazy(c)
	}
}

// keepsUnmatchedInner reports a join that also returns the inner rows no
// outer row matched (RIGHT and FULL joins).
func keepsUnmatchedInner(k pg.JoinType) bool {
	return k == pg.JoinType_JOIN_RIGHT || k == pg.JoinType_JOIN_FULL
}

// nextUnmatched returns the next inner row that matched no outer row,
// NULL-extended on the outer side, or nil when there are no more.
func nextUnmatched(rows []Row, matched []bool, tail *int, lw, rw int) Row {
	for *tail < len(rows) {
		i := *tail
		*tail++
		if !matched[i] {
			return joinRow(nil, rows[i], lw, rw)
		}
	}
	return nil
}
