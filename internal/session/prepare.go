package session

import (
	"context"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// SQL-level PREPARE, EXECUTE and DEALLOCATE. They share the namespace of
// the protocol's named prepared statements, as in PostgreSQL, and like
// them re-plan at every EXECUTE.

func (s *Session) prepareStmt(ctx context.Context, c *exec.Ctx, stmt *pg.Node, w pgwire.ResultWriter) error {
	switch {
	case stmt.GetPrepareStmt() != nil:
		return s.sqlPrepare(ctx, stmt.GetPrepareStmt(), w)
	case stmt.GetExecuteStmt() != nil:
		return s.sqlExecute(c, stmt.GetExecuteStmt(), w)
	default:
		ds := stmt.GetDeallocateStmt()
		st := s.ext()
		if ds.Isall || ds.Name == "" {
			for name, ps := range st.stmts {
				if name != "" {
					_ = ps
					delete(st.stmts, name)
				}
			}
			return w.CommandComplete("DEALLOCATE ALL")
		}
		if _, ok := st.stmts[ds.Name]; !ok {
			return pgerr.Errorf(codeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", ds.Name)
		}
		delete(st.stmts, ds.Name)
		return w.CommandComplete("DEALLOCATE")
	}
}

func (s *Session) sqlPrepare(ctx context.Context, ps *pg.PrepareStmt, w pgwire.ResultWriter) error {
	st := s.ext()
	if ps.Name == "" {
		return pgerr.Errorf(codeInvalidSQLStatementName, "invalid statement name: must not be empty")
	}
	if _, dup := st.stmts[ps.Name]; dup {
		return pgerr.Errorf(codeDuplicatePreparedStatement, "prepared statement \"%s\" already exists", ps.Name)
	}
	var declared []types.Type
	for _, a := range ps.Argtypes {
		t, err := expr.TypeFromName(a.GetTypeName())
		if err != nil {
			return err
		}
		declared = append(declared, types.Type{OID: t.OID, Typmod: -1})
	}
	if !isPlannable(ps.Query) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "PREPARE of this statement is not supported")
	}
	p := &prepared{name: ps.Name, stmt: ps.Query, fromSQL: true}
	if p.stmt != nil {
		if d, err := pg.Deparse(&pg.ParseResult{Version: 170007, Stmts: []*pg.RawStmt{{Stmt: ps.Query}}}); err == nil {
			p.text = d
		}
	}
	if err := s.analyze(ctx, p, declared, true); err != nil {
		return err
	}
	st.stmts[ps.Name] = p
	return w.CommandComplete("PREPARE")
}

func (s *Session) sqlExecute(c *exec.Ctx, es *pg.ExecuteStmt, w pgwire.ResultWriter) error {
	ps := s.ext().stmts[es.Name]
	if ps == nil {
		return pgerr.Errorf(codeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", es.Name)
	}
	if len(es.Params) != len(ps.paramTypes) {
		return pgerr.Errorf(pgerr.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", es.Name).
			WithDetail("Expected %d parameters but got %d.", len(ps.paramTypes), len(es.Params))
	}
	if ps.stmt == nil || !isPlannable(ps.stmt) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "EXECUTE of this statement is not supported")
	}
	if err := s.checkReadOnly(ps.stmt); err != nil {
		return err
	}
	params := make([]types.Datum, len(es.Params))
	comp := &expr.Compiler{}
	for i, n := range es.Params {
		e, err := comp.Compile(n)
		if err != nil {
			return err
		}
		ce, err := expr.Coerce(e, ps.paramTypes[i], types.CastAssignment)
		if err != nil {
			if pgerr.Code(err) == pgerr.InvalidTextRepresentation {
				return err
			}
			return pgerr.Errorf(pgerr.DatatypeMismatch, "parameter $%d of type %s cannot be coerced to the expected type %s", i+1, e.Type(), ps.paramTypes[i]).
				WithHint("You will need to rewrite or cast the expression.")
		}
		e = ce
		if params[i], err = e.Eval(c.Env, nil); err != nil {
			return err
		}
	}
	c.Env.Params = params
	pts := append([]types.Type(nil), ps.paramTypes...)
	node, cols, mt, err := s.planStmt(c, ps.stmt, pts)
	if err != nil {
		return err
	}
	if !sameColumns(cols, ps.cols) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	if mt == nil {
		n, err := sendRows(s.typeSettings(), w, cols, func(emit func(exec.Row) error) error { return exec.Run(c, node, emit) })
		if err != nil {
			return err
		}
		return w.CommandComplete("SELECT " + strconv.FormatInt(int64(n), 10))
	}
	if mt.Returning != nil {
		if _, err := sendRows(s.typeSettings(), w, mt.RetCols, func(emit func(exec.Row) error) error { return exec.Run(c, mt, emit) }); err != nil {
			return err
		}
	} else if err := exec.Run(c, mt, nil); err != nil {
		return err
	}
	p := &portal{mt: mt}
	return w.CommandComplete(p.completionTag(0))
}
