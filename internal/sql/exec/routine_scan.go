package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// RoutineScan is a user routine called in FROM (PostgreSQL's Function
// Scan): its result rows, materialized when the scan opens — every row
// of a set-returning routine, exactly one of any other (NULLs when it
// gave none or a STRICT routine got a NULL argument). Call is the
// *RoutineCall, or the expression of a builtin scalar function the call
// resolved to instead.
type RoutineScan struct {
	nodeBase
	Call       expr.Expr
	Name       string // the routine's name (EXPLAIN)
	Alias      string
	Cols       []Column
	Ordinality bool // WITH ORDINALITY: the last column counts the rows
	// record: the call returns RECORD and Cols come from the column
	// definition list; each row must have their number of columns.
	record bool
	// asRecord: the scan stands for SELECT f() (a target-list call): a
	// row result is one record column.
	asRecord bool

	rows []Row
	pos  int
}

func (r *RoutineScan) Columns() []Column { return r.Cols }

func (r *RoutineScan) Open(c *Ctx) error {
	r.rows, r.pos = nil, 0
	width := len(r.Cols)
	if r.Ordinality {
		width--
	}
	rc, ok := r.Call.(*RoutineCall)
	if !ok {
		d, err := r.Call.Eval(c.Env, nil)
		r.rows = []Row{{d}}
		return err
	}
	args, null, err := rc.evalArgs(c.Env, nil)
	if err != nil {
		return err
	}
	set := rc.Proc.RetSet
	if !null {
		err = rc.run(c, args, func(res Row) (bool, error) {
			if r.record && len(res) != width {
				return false, pgerr.Errorf(pgerr.DatatypeMismatch, "function return row and query-specified return row do not match").
					WithDetail("Returned row contains %d attributes, but query expects %d.", len(res), width)
			}
			if r.asRecord {
				res = Row{rc.value(res)}
			}
			r.rows = append(r.rows, append(Row(nil), res...))
			return set, nil
		})
		if err != nil {
			return err
		}
	}
	if !set && len(r.rows) == 0 {
		r.rows = []Row{make(Row, width)}
	}
	return nil
}

func (r *RoutineScan) Next(c *Ctx) (Row, error) {
	if r.pos >= len(r.rows) {
		return nil, nil
	}
	row := r.rows[r.pos]
	r.pos++
	if r.Ordinality {
		row = append(append(Row(nil), row...), types.Int(int64(r.pos)))
	}
	return row, nil
}

func (r *RoutineScan) Close(*Ctx) { r.rows = nil }

// hasRoutines reports whether user routines could take a call of this
// name (so FROM must resolve it with them).
func (p *Planner) hasRoutines(fc *pg.FuncCall) bool {
	schema, name, err := qualifiedFuncName(fc)
	if err != nil {
		return false
	}
	procs, err := p.routinesNamed(schema, name)
	return err == nil && len(procs) > 0
}

func qualifiedFuncName(fc *pg.FuncCall) (string, string, error) {
	var parts []string
	for _, n := range fc.Funcname {
		parts = append(parts, n.GetString_().GetSval())
	}
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	}
	return "", "", pgerr.Errorf(pgerr.SyntaxError, "improper qualified name")
}

// routineScan plans a FROM item calling a user routine: call is the
// compiled call (see hasRoutines), rf the item with its alias, column
// aliases, column definition list and WITH ORDINALITY.
func (p *Planner) routineScan(rf *pg.RangeFunction, fc *pg.FuncCall, call expr.Expr) (*RoutineScan, []scopeCol, error) {
	_, name, _ := qualifiedFuncName(fc)
	rs := &RoutineScan{Call: call, Name: name, Ordinality: rf.Ordinality}
	alias, colAliases := aliasOf(rf.Alias, name)
	rs.Alias = alias
	var cols []Column
	rc, isRoutine := call.(*RoutineCall)
	if isRoutine && p.q.tlistSRFs[rf] && (rc.Cols != nil || rc.Ret.OID == types.RecordOID) {
		rs.asRecord = true
		cols = []Column{{Name: name, Type: types.Record}}
		if rf.Alias != nil {
			cols[0].Name = alias
		}
		rs.Cols = cols
		return rs, []scopeCol{{rel: alias, name: cols[0].Name, t: types.Record}}, nil
	}
	switch {
	case isRoutine && rc.Cols != nil:
		if len(rf.Coldeflist) > 0 {
			return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "a column definition list is redundant for a function with OUT parameters")
		}
		cols = append(cols, rc.Cols...)
	case isRoutine && rc.Ret.OID == types.RecordOID:
		if len(rf.Coldeflist) == 0 {
			e := pgerr.Errorf(pgerr.SyntaxError, "a column definition list is required for functions returning \"record\"")
			e.Position = fc.Location + 1
			return nil, nil, e
		}
		for _, cd := range rf.Coldeflist {
			def := cd.GetColumnDef()
			t, err := expr.TypeFromName(def.TypeName)
			if err != nil {
				return nil, nil, err
			}
			cols = append(cols, Column{Name: def.Colname, Type: t})
		}
		rs.record = true
		rc.ExpandRecord = true
	default:
		if len(rf.Coldeflist) > 0 {
			return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
		}
		colName := name
		if rf.Alias != nil {
			colName = alias
		}
		if out := singleOutName(rc, isRoutine); out != "" {
			colName = out // the OUT parameter names the column, alias or not
		}
		cols = []Column{{Name: colName, Type: call.Type()}}
	}
	for i := range cols {
		if i < len(colAliases) {
			cols[i].Name = colAliases[i]
		}
	}
	if rf.Ordinality {
		ocol := "ordinality"
		if len(colAliases) > len(cols) {
			ocol = colAliases[len(cols)]
		}
		cols = append(cols, Column{Name: ocol, Type: types.Int8})
	}
	rs.Cols = cols
	scols := make([]scopeCol, len(cols))
	for i, col := range cols {
		scols[i] = scopeCol{rel: alias, name: col.Name, t: col.Type, index: i}
	}
	return rs, scols, nil
}

// routineFromItem is buildItem's case of a FROM function that user
// routines may take (handled=false: leave it to the builtin SRFs). The
// call may refer to items to its left (LATERAL, implicit for functions).
func (p *Planner) routineFromItem(rf *pg.RangeFunction, sc *scope, left *jtree) (*jtree, bool, error) {
	if len(rf.Functions) != 1 || rf.IsRowsfrom {
		return nil, false, nil
	}
	fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fc == nil || !p.hasRoutines(fc) {
		return nil, false, nil
	}
	node := &pg.Node{Node: &pg.Node_FuncCall{FuncCall: fc}}
	var call expr.Expr
	lateral := false
	if left != nil {
		qs := &queryState{level: sc.level + 1}
		p.q.stack = append(p.q.stack, qs)
		e, err := p.compiler(&scope{parent: p.lateralScope(sc, left), level: sc.level + 1, p: p}).Compile(node)
		p.q.stack = p.q.stack[:len(p.q.stack)-1]
		if err != nil {
			return nil, true, err
		}
		if qs.refs[sc.level] {
			call, lateral = e, true
		}
	}
	if !lateral {
		e, err := p.compiler(&scope{parent: sc.parent, level: sc.level, p: p}).Compile(node)
		if err != nil {
			return nil, true, err
		}
		call = e
	}
	rs, cols, err := p.routineScan(rf, fc, call)
	if err != nil {
		return nil, true, err
	}
	t := p.addLeaf(sc, &fromItem{node: rs, alias: rs.Alias}, cols)
	t.lateral = lateral
	return t, true, nil
}

// routineFromOnly is planFrom's case of a lone FROM function that user
// routines may take.
func (p *Planner) routineFromOnly(rf *pg.RangeFunction) (*fromItem, bool, error) {
	if len(rf.Functions) != 1 || rf.IsRowsfrom {
		return nil, false, nil
	}
	fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fc == nil || !p.hasRoutines(fc) {
		return nil, false, nil
	}
	call, err := p.compiler(nil).Compile(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: fc}})
	if err != nil {
		return nil, true, err
	}
	rs, cols, err := p.routineScan(rf, fc, call)
	if err != nil {
		return nil, true, err
	}
	return &fromItem{node: rs, alias: rs.Alias, cols: cols}, true, nil
}

// isUserSRF reports whether a call resolves to a set-returning user
// routine (SELECT f() with f returning SETOF is planned as FROM f()).
func (p *Planner) isUserSRF(fc *pg.FuncCall) bool {
	if !p.hasRoutines(fc) {
		return false
	}
	e, err := p.compiler(nil).Compile(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: fc}})
	rc, ok := e.(*RoutineCall)
	return err == nil && ok && rc.Proc.RetSet
}

// noteTargetListSRF remembers the FROM function srfOnlySelect made of a
// target-list call.
func (p *Planner) noteTargetListSRF(s *pg.SelectStmt) {
	if len(s.FromClause) != 1 || s.FromClause[0].GetRangeFunction() == nil {
		return
	}
	if p.q.tlistSRFs == nil {
		p.q.tlistSRFs = map[*pg.RangeFunction]bool{}
	}
	p.q.tlistSRFs[s.FromClause[0].GetRangeFunction()] = true
}

// singleOutName is the name of a routine's only output parameter, "" if
// it has none, several, or an unnamed one.
func singleOutName(rc *RoutineCall, ok bool) string {
	if !ok {
		return ""
	}
	p := rc.Proc
	outs := p.OutputArgs()
	if len(outs) != 1 || outs[0] >= len(p.ArgNames) {
		return ""
	}
	return p.ArgNames[outs[0]]
}
