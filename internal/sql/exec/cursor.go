package exec

// What the executor needs from the session for SQL cursors: the pg_cursors
// view, UPDATE/DELETE … WHERE CURRENT OF, and facts about a cursor's plan
// (can it run backward, which scan gives its current row).

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// SessionHooks are the session's answers to what a statement may ask about
// the session it runs in. The session package implements them; a Ctx
// without them (internal statements) refuses those questions.
type SessionHooks interface {
	// CurrentOf is the TID of the row of table rel that cursor name is
	// positioned on, for UPDATE or DELETE … WHERE CURRENT OF
	// (execCurrentOf); ok=false when the cursor's current row came from
	// another member of rel's inheritance tree; PostgreSQL's error for a
	// cursor that cannot be on a row of rel.
	CurrentOf(name string, rel *catalog.Relation) (tid page.ItemPointer, ok bool, err error)
	// Cursors lists the session's open cursors and portals (pg_cursors).
	Cursors() []CursorInfo
	// Call runs a builtin that reads or changes session state
	// (current_setting, set_config, txid_current, pg_notify, …).
	Call(name string, args []types.Datum) (types.Datum, error)
	// SettingSource is where a parameter's current value comes from
	// (pg_settings.source: "default", "configuration file", "session")
	// and the value RESET would give it (reset_val, base units).
	SettingSource(name string) (source, resetVal string)
}

// CursorInfo is one row of pg_cursors.
type CursorInfo struct {
	Name       string
	Statement  string
	Holdable   bool
	Binary     bool
	Scrollable bool
	Created    int64 // µs since 2000-01-01
}

func (c *Ctx) session() (SessionHooks, error) {
	if c.Session == nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "session state is not available here")
	}
	return c.Session, nil
}

func init() {
	types.RegisterSRF(&types.SRF{Name: "pg_listening_channels", Ret: types.Text,
		FnSession: func(sess any, _ []types.Datum) (func() (types.Datum, bool, error), error) {
			h, ok := sess.(SessionHooks)
			if !ok || h == nil {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "session state is not available here")
			}
			chans, err := h.Call("pg_listening_channels", nil)
			if err != nil {
				return nil, err
			}
			elems, i := chans.Elems(), 0
			return func() (types.Datum, bool, error) {
				if i >= len(elems) {
					return types.Null(), false, nil
				}
				i++
				return elems[i-1], true, nil
			}, nil
		}})
	systemViews["pg_cursors"] = &systemView{
		cols: []Column{col("name", types.Text), col("statement", types.Text), col("is_holdable", types.Boolean),
			col("is_binary", types.Boolean), col("is_scrollable", types.Boolean), col("creation_time", types.Timestamptz)},
		rows: func(c *Ctx) ([]Row, error) {
			sess, err := c.session()
			if err != nil {
				return nil, err
			}
			var out []Row
			for _, ci := range sess.Cursors() {
				out = append(out, Row{types.Str(ci.Name), types.Str(ci.Statement), types.Bool(ci.Holdable),
					types.Bool(ci.Binary), types.Bool(ci.Scrollable), types.TimestampMicros(ci.Created)})
			}
			return out, nil
		},
	}
}

// CurrentOfScan returns the row version of Rel that cursor Cursor is
// positioned on, as the statement's snapshot sees it (newest visible
// version of the cursor's row), with its TID: the input of UPDATE or DELETE
// … WHERE CURRENT OF (PostgreSQL's TID scan with a CurrentOfExpr). The
// cursor is looked up when the plan is opened, so a kept plan stays valid.
type CurrentOfScan struct {
	nodeBase
	Rel    *catalog.Relation
	Alias  string
	Cursor string
	Sys    []sysAttr // system columns after the table's (syscols.go)

	row Row
}

func (s *CurrentOfScan) Columns() []Column { return tableColumns(s.Rel, s.Sys, true) }

func (s *CurrentOfScan) Open(c *Ctx) error {
	s.row = nil
	sess, err := c.session()
	if err != nil {
		return err
	}
	tid, ok, err := sess.CurrentOf(s.Cursor, s.Rel)
	if err != nil || !ok {
		return err
	}
	if tid, err = s.Rel.Table.LatestVisibleTID(c.U(), c.Tx.Heap, tid); err != nil {
		return err
	}
	t, vtid, ok, err := s.Rel.Table.Fetch(c.U(), c.Tx.Heap, tid)
	if err != nil || !ok {
		return err
	}
	s.row, err = scanRow(s.Rel.NewDeformer(), len(s.Rel.Attrs), s.Sys, s.Rel, true, t, vtid)
	return err
}

func (s *CurrentOfScan) Next(c *Ctx) (Row, error) {
	r := s.row
	s.row = nil
	return r, nil
}

func (s *CurrentOfScan) Close(c *Ctx) {}

// RowRef names a table row: the table and the TID of the row version.
type RowRef struct {
	Table uint32
	TID   page.ItemPointer
}

// CursorRowSource is how WHERE CURRENT OF finds the table rows behind a
// cursor's current row (execCurrentOf). A cursor with FOR UPDATE/SHARE
// (Locked) has one reference per locked FROM item, the row version it
// locked; any other cursor has one, the row its plan's scan returned last
// — for a plan that is a simply updatable scan (search_plan_tree: down
// through projections, filters, limits, subqueries in FROM and Appends).
type CursorRowSource struct {
	Locked bool
	// Tables[i] are the tables reference i can name: the members of an
	// inheritance parent; without Locked, a table twice is ambiguous.
	Tables [][]uint32
	// Current gives the references of the row returned last.
	Current func() []RowRef
}

// CursorSource describes plan n's rows for WHERE CURRENT OF; nil when n
// is neither a FOR UPDATE cursor nor a simply updatable scan.
func CursorSource(n Node) *CursorRowSource {
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Filter:
			n = x.Input
		case *Limit:
			n = x.Input
		case *SubqueryScan:
			n = x.Input
		case *LockRows:
			return x.cursorSource()
		default:
			sc := scanSourceOf(n)
			if sc == nil {
				return nil
			}
			return &CursorRowSource{Tables: [][]uint32{sc.tables}, Current: func() []RowRef { return []RowRef{sc.current()} }}
		}
	}
}

// scanSource is the scans of a simply updatable plan.
type scanSource struct {
	tables  []uint32
	current func() RowRef
}

func scanSourceOf(n Node) *scanSource {
	switch x := n.(type) {
	case *Project:
		return scanSourceOf(x.Input)
	case *Filter:
		return scanSourceOf(x.Input)
	case *Limit:
		return scanSourceOf(x.Input)
	case *SubqueryScan:
		return scanSourceOf(x.Input)
	case *InhChild:
		return scanSourceOf(x.Input)
	case *SeqScan:
		return &scanSource{[]uint32{x.Rel.OID}, func() RowRef { return RowRef{x.Rel.OID, x.lastTID} }}
	case *IndexScan:
		return &scanSource{[]uint32{x.Rel.OID}, func() RowRef { return RowRef{x.Rel.OID, x.lastTID} }}
	case *Append:
		// The input that returned the current row is the Append's
		// current input; the others are inactive scans.
		srcs := make([]*scanSource, len(x.Inputs))
		var tables []uint32
		for i, in := range x.Inputs {
			if srcs[i] = scanSourceOf(in); srcs[i] != nil {
				tables = append(tables, srcs[i].tables...)
			}
		}
		if tables == nil {
			return nil
		}
		return &scanSource{tables, func() RowRef {
			if x.i < len(srcs) && srcs[x.i] != nil {
				return srcs[x.i].current()
			}
			return RowRef{}
		}}
	}
	return nil
}

// SupportsBackwardScan reports whether PostgreSQL could run this plan
// backward without materializing it (ExecSupportsBackwardScan): a cursor
// declared without SCROLL or NO SCROLL is scrollable exactly then.
func SupportsBackwardScan(n Node) bool {
	switch x := n.(type) {
	case *SeqScan, *IndexScan, *Sort, *FunctionScan, *Values, *CTEScan, *ViewScan:
		return true
	case *Project:
		return SupportsBackwardScan(x.Input)
	case *InhChild:
		return SupportsBackwardScan(x.Input)
	case *Filter:
		return SupportsBackwardScan(x.Input)
	case *Limit:
		return SupportsBackwardScan(x.Input)
	case *SubqueryScan:
		return SupportsBackwardScan(x.Input)
	case *Append:
		for _, in := range x.Inputs {
			if !SupportsBackwardScan(in) {
				return false
			}
		}
		return true
	}
	return false
}

func (s *CurrentOfScan) explainLabel() string {
	l := "Tid Scan on " + s.Rel.Name
	if s.Alias != "" && s.Alias != s.Rel.Name {
		l += " " + s.Alias
	}
	return l
}

func (s *CurrentOfScan) explainCond() string {
	return fmt.Sprintf("TID Cond: CURRENT OF %s", s.Cursor)
}
