package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Validate is fmgr_sql_validator: argument and result types a SQL
// routine may have, the body's syntax, and — when check_function_bodies
// is on (always for a BEGIN ATOMIC or RETURN body) and no argument is
// polymorphic — each statement's analysis and the last one's result
// against the declared one. Errors in the body point into the CREATE
// statement when the body appears in it verbatim.
func (sqlLanguage) Validate(c *Ctx, p *catalog.Proc, def *routine.Definition, checkBodies bool) error {
	ret := types.Type{OID: p.RetType, Typmod: -1}
	if types.IsPseudo(ret) && p.RetType != types.RecordOID && p.RetType != types.VoidOID && !types.IsPolymorphic(ret) {
		return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "SQL functions cannot return type %s", ret.BaseName())
	}
	poly := false
	for _, a := range p.ArgTypes {
		t := types.Type{OID: a, Typmod: -1}
		if types.IsPolymorphic(t) {
			poly = true
		} else if types.IsPseudo(t) {
			return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "SQL functions cannot have arguments of type %s", t.BaseName())
		}
	}
	if poly && p.HasSQLBody {
		return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "SQL function with unquoted function body cannot have polymorphic arguments")
	}
	stmts, offset, err := validationStatements(p, def)
	if err != nil {
		return err
	}
	if (!checkBodies && !p.HasSQLBody) || poly {
		return nil
	}
	argTypes := make([]types.Type, len(p.ArgTypes))
	for i, a := range p.ArgTypes {
		argTypes[i] = types.Type{OID: a, Typmod: -1}
		if i < len(def.ArgTypes) {
			argTypes[i] = def.ArgTypes[i]
		}
	}
	fc := c.routineCtx(newRoutineFrame(p, argTypes), nil)
	var lastCols []Column
	for _, n := range stmts {
		if !isPlannable(n) {
			lastCols = nil
			continue
		}
		pl := &Planner{C: fc, ParamTypes: append([]types.Type(nil), argTypes...)}
		_, cols, _, err := pl.planBodyStatement(n)
		if err != nil {
			return shiftPosition(err, offset)
		}
		lastCols = cols
	}
	if p.RetType == types.VoidOID {
		return nil
	}
	if len(stmts) == 0 || !returnsRows(stmts[len(stmts)-1]) {
		err := pgerr.Errorf(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", ret.BaseName()).
			WithDetail("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.")
		return withRoutineContext(err, p, "")
	}
	rc := &RoutineCall{Proc: p, Ret: ret}
	if err := (&Planner{C: fc}).bindResult(rc, routine.Binding{}); err != nil {
		return err
	}
	want := []types.Type{ret}
	if rc.Cols != nil {
		want = want[:0]
		for _, col := range rc.Cols {
			want = append(want, col.Type)
		}
	} else if p.RetType == types.RecordOID {
		return nil
	}
	return withRoutineContext(checkResultColumns(p, ret, want, lastCols), p, "")
}

// validationStatements are the body's statements, and what to add to a
// position in them to make it one in the CREATE statement (-1: the body
// is not in it verbatim, positions go).
func validationStatements(p *catalog.Proc, def *routine.Definition) ([]*pg.Node, int32, error) {
	if def.Body != nil {
		return bodyNodes(def.Body), 0, nil
	}
	offset := int32(-1)
	if def.SrcLocation >= 0 && int(def.SrcLocation) <= len(def.Text) {
		if i := strings.Index(def.Text[def.SrcLocation:], p.Src); i >= 0 && p.Src != "" {
			offset = def.SrcLocation + int32(i)
		}
	}
	tree, err := pg.Parse(p.Src)
	if err != nil {
		return nil, offset, shiftPosition(parseErr(err), offset)
	}
	var out []*pg.Node
	for _, r := range tree.Stmts {
		out = append(out, r.Stmt)
	}
	return out, offset, nil
}

// bodyNodes are the statements of a BEGIN ATOMIC or RETURN body as the
// grammar gives them (RETURN expr is SELECT expr).
func bodyNodes(body *pg.Node) []*pg.Node {
	if rs := body.GetReturnStmt(); rs != nil {
		return []*pg.Node{returnAsSelect(rs)}
	}
	var out []*pg.Node
	for _, outer := range body.GetList().GetItems() {
		for _, n := range outer.GetList().GetItems() {
			if rs := n.GetReturnStmt(); rs != nil {
				n = returnAsSelect(rs)
			}
			if n != nil && n.Node != nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func returnAsSelect(rs *pg.ReturnStmt) *pg.Node {
	return &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: rs.Returnval, Location: -1}}}},
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE,
	}}}
}

// SQLBodyText is what pg_proc.prosqlbody keeps of a BEGIN ATOMIC or
// RETURN body: its statements printed back, in pg_get_functiondef's
// layout.
func SQLBodyText(body *pg.Node) (string, error) {
	if rs := body.GetReturnStmt(); rs != nil {
		s, err := deparseStmt(returnAsSelect(rs))
		return "RETURN " + strings.TrimPrefix(s, "SELECT "), err
	}
	var b strings.Builder
	b.WriteString("BEGIN ATOMIC\n")
	for _, outer := range body.GetList().GetItems() {
		for _, n := range outer.GetList().GetItems() {
			if n == nil || n.Node == nil {
				continue
			}
			var s string
			var err error
			if rs := n.GetReturnStmt(); rs != nil {
				s, err = deparseStmt(returnAsSelect(rs))
				s = "RETURN " + strings.TrimPrefix(s, "SELECT ")
			} else {
				s, err = deparseStmt(n)
			}
			if err != nil {
				return "", err
			}
			b.WriteString(" " + s + ";\n")
		}
	}
	b.WriteString("END")
	return b.String(), nil
}

func deparseStmt(n *pg.Node) (string, error) {
	return pg.Deparse(&pg.ParseResult{Version: 170007, Stmts: []*pg.RawStmt{{Stmt: n}}})
}

// shiftPosition moves an error's position from the body into the CREATE
// statement (offset < 0: the body is not in it verbatim; the position
// goes).
func shiftPosition(err error, offset int32) error {
	pe, ok := err.(*pgerr.Error)
	if !ok || pe.Position == 0 {
		return err
	}
	if offset < 0 {
		pe.Position = 0
	} else {
		pe.Position += offset
	}
	return pe
}
