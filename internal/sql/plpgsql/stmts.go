package plpgsql

// Assignment, loops, RETURN, and the statements that run SQL.

import (
	"regexp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// initVar gives a declared datum its DEFAULT (or NULL) at block entry.
func (x *call) initVar(d int) error {
	dn := x.prog.datums[d]
	x.vals[d] = x.site.initial(d)
	if dn.Default.e == nil {
		if dn.NotNull {
			return pgerr.Errorf(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", dn.Refname)
		}
		return nil
	}
	v, t, err := x.evalScalar(dn.Default.e)
	if err != nil {
		return err
	}
	return x.assign(d, v, t)
}

func (x *call) assignStmt(s *stmt) error {
	v, t, err := x.evalScalar(s.Expr.e)
	if err != nil {
		return err
	}
	target, _ := splitAssign(s.Expr.e.Query)
	if strings.Contains(target, "[") {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "assignment to array elements is not supported yet")
	}
	return x.assign(s.Varno, v, t)
}

// assign stores a value in a datum, cast to its type.
func (x *call) assign(d int, v types.Datum, from types.Type) error {
	val := &x.vals[d]
	dn := x.prog.datums[d]
	switch val.kind {
	case kScalar:
		if dn.NotNull && v.IsNull() {
			return pgerr.Errorf(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", dn.Refname)
		}
		cv, err := x.cast(v, from, val.t)
		if err != nil {
			return err
		}
		val.d = cv
		return nil
	case kField:
		pv := &x.vals[dn.Parent]
		if pv.rec == nil {
			_, _, err := x.refValue(dn.Parent, "")
			return err
		}
		i := pv.rec.field(dn.FieldName)
		if i < 0 {
			return pgerr.Errorf(pgerr.UndefinedColumn, "record \"%s\" has no field \"%s\"", x.prog.datums[dn.Parent].Refname, dn.FieldName)
		}
		cv, err := x.cast(v, from, pv.rec.types[i])
		if err != nil {
			return err
		}
		pv.rec.vals[i] = cv
		return nil
	}
	// A record value into a record, a row or an INTO list.
	if v.IsNull() {
		return x.assignRow(d, nil, nil)
	}
	if from.OID != types.RecordOID {
		return pgerr.Errorf(pgerr.DatatypeMismatch, "cannot assign non-composite value to a record variable")
	}
	ts, vals := types.RecordFields(v)
	cols := make([]exec.Column, len(ts))
	for i, t := range ts {
		cols[i] = exec.Column{Name: "f" + itoa(i+1), Type: t}
	}
	return x.assignRow(d, cols, vals)
}

// assignRow stores a result row in a target: a record takes its shape,
// a row or an INTO list its columns by position (missing ones NULL).
// A nil row is NULLs.
func (x *call) assignRow(d int, cols []exec.Column, row []types.Datum) error {
	val := &x.vals[d]
	dn := x.prog.datums[d]
	switch val.kind {
	case kRecord:
		if row == nil && cols == nil {
			if val.rec != nil {
				for i := range val.rec.vals {
					val.rec.vals[i] = types.Null()
				}
			}
			return nil
		}
		r := &record{}
		for i, c := range cols {
			r.names = append(r.names, c.Name)
			r.types = append(r.types, c.Type)
			if row != nil {
				r.vals = append(r.vals, row[i])
			} else {
				r.vals = append(r.vals, types.Null())
			}
		}
		val.rec = r
		return nil
	case kRow:
		for i := range val.rec.vals {
			v, t := types.Null(), val.rec.types[i]
			if row != nil && i < len(row) {
				v, t = row[i], cols[i].Type
			}
			cv, err := x.cast(v, t, val.rec.types[i])
			if err != nil {
				return err
			}
			val.rec.vals[i] = cv
		}
		return nil
	case kTarget:
		if len(dn.Fields) == 1 {
			if k := x.vals[dn.Fields[0].Varno].kind; k == kRecord || k == kRow {
				return x.assignRow(dn.Fields[0].Varno, cols, row)
			}
		}
		for i, f := range dn.Fields {
			v, t := types.Null(), types.Unknown
			if row != nil && i < len(row) {
				v, t = row[i], cols[i].Type
			}
			if err := x.assign(f.Varno, v, t); err != nil {
				return err
			}
		}
		return nil
	}
	v, t := types.Null(), types.Unknown
	if len(row) > 0 {
		v, t = row[0], cols[0].Type
	}
	return x.assign(d, v, t)
}

// targetDno is the datum a statement's INTO or FOR target is.
func (x *call) targetDno(t *datumNode) int {
	if t.kind == "rec" {
		return t.Dno
	}
	for i, d := range x.prog.datums {
		if d.kind == t.kind && d.Refname == t.Refname && d.Lineno == t.Lineno && sameFields(d, t) {
			return i
		}
	}
	return -1
}

func sameFields(a, b *datumNode) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Varno != b.Fields[i].Varno {
			return false
		}
	}
	return true
}

func (x *call) foriStmt(s *stmt) (ctl, error) {
	lo, err := x.intOf(s.Lower.e, "lower")
	if err != nil {
		return ctlNone, err
	}
	hi, err := x.intOf(s.Upper.e, "upper")
	if err != nil {
		return ctlNone, err
	}
	step := int64(1)
	if s.Step.e != nil {
		if step, err = x.intOf(s.Step.e, "BY"); err != nil {
			return ctlNone, err
		}
		if step <= 0 {
			return ctlNone, pgerr.Errorf(pgerr.InvalidParameterValue, "BY value of FOR loop must be greater than zero")
		}
	}
	d := x.prog.loopVar[s]
	found := false
	for i := lo; (!s.Reverse && i <= hi) || (s.Reverse && i >= hi); {
		if err := x.bc.CheckCancel(); err != nil {
			return ctlNone, err
		}
		found = true
		x.vals[d].d = types.Int(i)
		c, err := x.stmts(s.Body)
		if err != nil {
			return ctlNone, err
		}
		if done, out := x.loopEnd(s, c); done {
			x.setFound(true)
			return out, nil
		}
		if s.Reverse {
			if i < hi+step {
				break
			}
			i -= step
		} else {
			if i > hi-step {
				break
			}
			i += step
		}
	}
	x.setFound(found)
	return ctlNone, nil
}

func (x *call) intOf(e *exprNode, what string) (int64, error) {
	d, t, err := x.evalScalar(e)
	if err != nil {
		return 0, err
	}
	if d.IsNull() {
		return 0, pgerr.Errorf(pgerr.NullValueNotAllowed, "%s bound of FOR loop cannot be null", what)
	}
	if d, err = x.cast(d, t, types.Int4); err != nil {
		return 0, err
	}
	return d.Int(), nil
}

// forsStmt is FOR target IN query / EXECUTE: the query's rows, read in
// full first so the body's changes cannot show through the query's
// snapshot.
func (x *call) forsStmt(s *stmt) (ctl, error) {
	var cols []exec.Column
	var rows [][]types.Datum
	collect := func(c []exec.Column, r exec.Row) (bool, error) {
		cols = c
		rows = append(rows, append([]types.Datum(nil), r...))
		return true, nil
	}
	var err error
	if s.kind == "dynfors" {
		_, err = x.dynamic(s.Query.e, s.Params, collect)
	} else {
		_, err = x.runSQL(s.Query.e, collect)
	}
	if err != nil {
		return ctlNone, err
	}
	d := x.targetDno(s.Var)
	for _, r := range rows {
		if err := x.bc.CheckCancel(); err != nil {
			return ctlNone, err
		}
		if err := x.assignRow(d, cols, r); err != nil {
			return ctlNone, err
		}
		c, err := x.stmts(s.Body)
		if err != nil {
			return ctlNone, err
		}
		if done, out := x.loopEnd(s, c); done {
			x.setFound(true)
			return out, nil
		}
	}
	x.setFound(len(rows) > 0)
	return ctlNone, nil
}

func (x *call) foreachStmt(s *stmt) (ctl, error) {
	if s.Slice > 0 {
		return ctlNone, pgerr.Errorf(pgerr.FeatureNotSupported, "FOREACH … SLICE is not supported yet")
	}
	arr, t, err := x.evalScalar(s.Expr.e)
	if err != nil {
		return ctlNone, err
	}
	if arr.IsNull() {
		return ctlNone, pgerr.Errorf(pgerr.NullValueNotAllowed, "FOREACH expression must not be null")
	}
	et, ok := types.ElemType(t)
	if !ok {
		return ctlNone, pgerr.Errorf(pgerr.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", t.BaseName())
	}
	found := false
	for _, el := range arrayElems(arr) {
		if err := x.bc.CheckCancel(); err != nil {
			return ctlNone, err
		}
		found = true
		if err := x.assign(s.Varno, el, et); err != nil {
			return ctlNone, err
		}
		c, err := x.stmts(s.Body)
		if err != nil {
			return ctlNone, err
		}
		if done, out := x.loopEnd(s, c); done {
			x.setFound(true)
			return out, nil
		}
	}
	x.setFound(found)
	return ctlNone, nil
}

// returnStmt ends the call; a function's result is emitted here.
func (x *call) returnStmt(s *stmt) (ctl, error) {
	if x.rc == nil {
		return ctlReturn, nil
	}
	rc := x.rc
	if rc.Proc.RetSet || rc.Proc.Kind == catalog.ProcProcedure {
		return ctlReturn, nil
	}
	if len(x.prog.outDnos) > 0 {
		return ctlReturn, x.emitOut()
	}
	if rc.Ret.OID == types.VoidOID {
		return ctlReturn, nil
	}
	if s.Expr.e == nil {
		if d, ok := x.returnedVar(s, "return"); ok {
			t, v, err := x.refValue(d, "")
			if err != nil {
				return ctlReturn, err
			}
			return ctlReturn, x.emitValue(v, t)
		}
		return ctlReturn, pgerr.Errorf(codeNoReturn, "control reached end of function without RETURN")
	}
	d, t, err := x.evalScalar(s.Expr.e)
	if err != nil {
		return ctlReturn, err
	}
	return ctlReturn, x.emitValue(d, t)
}

// emitValue emits a scalar (or record) result cast to the result type.
func (x *call) emitValue(d types.Datum, t types.Type) error {
	rc := x.rc
	if rc.Ret.OID == types.RecordOID {
		if !d.IsNull() && t.OID != types.RecordOID {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "cannot return non-composite value from function returning composite type")
		}
		if rc.ExpandRecord {
			if d.IsNull() {
				return x.emitRow(nil)
			}
			_, vals := types.RecordFields(d)
			return x.emitRow(vals)
		}
		return x.emitRow([]types.Datum{d})
	}
	cv, err := x.cast(d, t, rc.Ret)
	if err != nil {
		return err
	}
	return x.emitRow([]types.Datum{cv})
}

func (x *call) emitRow(r []types.Datum) error {
	x.returned = true
	if x.stopped {
		return nil
	}
	more, err := x.emit(r)
	if !more {
		x.stopped = true
	}
	return err
}

// emitOut emits the output parameters: a row of them, or the one's
// value cast to the result type.
func (x *call) emitOut() error {
	if x.rc.Cols != nil {
		return x.emitRow(x.outRow())
	}
	t, v, err := x.refValue(x.prog.outDnos[0], "")
	if err != nil {
		return err
	}
	return x.emitValue(v, t)
}

// outRow is the output parameters' values.
func (x *call) outRow() []types.Datum {
	out := make([]types.Datum, len(x.prog.outDnos))
	for i, d := range x.prog.outDnos {
		_, out[i], _ = x.refValue(d, "")
	}
	return out
}

func (x *call) returnNext(s *stmt) error {
	if x.rc == nil || !x.rc.Proc.RetSet {
		return pgerr.Errorf(pgerr.SyntaxError, "cannot use RETURN NEXT in a non-SETOF function")
	}
	if len(x.prog.outDnos) > 0 {
		return x.emitOut()
	}
	if s.Expr.e == nil {
		d, ok := x.returnedVar(s, "return next")
		if !ok {
			return pgerr.Errorf(pgerr.SyntaxError, "RETURN NEXT must have a parameter")
		}
		t, v, err := x.refValue(d, "")
		if err != nil {
			return err
		}
		return x.emitValue(v, t)
	}
	d, t, err := x.evalScalar(s.Expr.e)
	if err != nil {
		return err
	}
	return x.emitValue(d, t)
}

// returnedVar is the record or row variable of "RETURN [NEXT] var": the
// parser keeps it as retvarno, which pg_query's tree leaves out, so it
// is read back from the statement's line of the body.
func (x *call) returnedVar(s *stmt, keyword string) (int, bool) {
	lines := strings.Split(x.prog.src, "\n")
	if s.Lineno < 1 || s.Lineno > len(lines) {
		return 0, false
	}
	pat := `(?i)\b` + strings.ReplaceAll(keyword, " ", `\s+`) + `\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)\s*;`
	m := regexp.MustCompile(pat).FindStringSubmatch(lines[s.Lineno-1])
	if m == nil {
		return 0, false
	}
	name := m[1]
	if strings.HasPrefix(name, `"`) {
		name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	} else {
		name = strings.ToLower(name)
	}
	sc := x.prog.stmtScope[s]
	if sc == nil {
		return 0, false
	}
	return sc.lookup(name)
}

func (x *call) returnQuery(s *stmt) error {
	if x.rc == nil || !x.rc.Proc.RetSet {
		return pgerr.Errorf(pgerr.SyntaxError, "cannot use RETURN QUERY in a non-SETOF function")
	}
	each := func(cols []exec.Column, r exec.Row) (bool, error) {
		return true, x.emitQueryRow(cols, r)
	}
	var n int64
	var err error
	if s.DynQ.e != nil {
		n, err = x.dynamic(s.DynQ.e, s.Params, each)
	} else {
		n, err = x.runSQL(s.Query.e, each)
	}
	x.rowCount = n
	x.setFound(n > 0)
	return err
}

// emitQueryRow emits a RETURN QUERY row cast to the result's columns.
func (x *call) emitQueryRow(cols []exec.Column, r exec.Row) error {
	rc := x.rc
	want := []types.Type{rc.Ret}
	if rc.Cols != nil {
		want = want[:0]
		for _, c := range rc.Cols {
			want = append(want, c.Type)
		}
	} else if rc.Ret.OID == types.RecordOID {
		if rc.ExpandRecord {
			return x.emitRow(r)
		}
		ts := make([]types.Type, len(cols))
		for i, c := range cols {
			ts[i] = c.Type
		}
		return x.emitRow([]types.Datum{types.RecordValue(ts, r)})
	}
	if len(cols) != len(want) {
		return pgerr.Errorf(pgerr.DatatypeMismatch, "structure of query does not match function result type").
			WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(cols), len(want))
	}
	out := make([]types.Datum, len(want))
	for i, t := range want {
		if cols[i].Type.OID != t.OID && !types.CanCast(cols[i].Type, t, types.CastImplicit) {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "structure of query does not match function result type").
				WithDetail("Returned type %s does not match expected type %s in column %d.", cols[i].Type.BaseName(), t.BaseName(), i+1)
		}
		v, err := x.cast(r[i], cols[i].Type, t)
		if err != nil {
			return err
		}
		out[i] = v
	}
	return x.emitRow(out)
}

// runSQL runs one SQL statement of the body, giving each row to each
// (nil: rows are dropped); the count is ROW_COUNT's.
func (x *call) runSQL(e *exprNode, each func([]exec.Column, exec.Row) (bool, error)) (int64, error) {
	n, err := x.runSQLText(e, each)
	if err != nil {
		return n, withSQLContext(err, "SQL statement", e.Query)
	}
	return n, nil
}

func (x *call) runSQLText(e *exprNode, each func([]exec.Column, exec.Row) (bool, error)) (int64, error) {
	x.snaps.Next()
	cp, err := x.compile(e, e.Query, false)
	if err != nil {
		return 0, err
	}
	params, err := x.params(cp)
	if err != nil {
		return 0, err
	}
	if x.rc != nil && x.rc.Proc.Volatile != catalog.VolatileVolatile {
		if what := exec.ReadOnlyViolation(cp.stmt); what != "" {
			return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not allowed in a non-volatile function", what)
		}
	}
	if cp.node == nil {
		return 0, x.bc.RunUtility(cp.stmt, e.Query, params, x.argTypesWithRefs(cp))
	}
	if err := x.bc.CheckReadOnly(cp.stmt); err != nil {
		return 0, err
	}
	return x.runRows(cp, params, each)
}

func (x *call) argTypesWithRefs(cp *compiled) []types.Type {
	out := x.argTypes()
	for _, r := range cp.refs {
		out = append(out, r.t)
	}
	return out
}

func (x *call) runRows(cp *compiled, params []types.Datum, each func([]exec.Column, exec.Row) (bool, error)) (int64, error) {
	var n int64
	err := x.runPlan(cp, params, func(r exec.Row) (bool, error) {
		n++
		if each == nil {
			return true, nil
		}
		return each(cp.cols, r)
	})
	if cp.isDML {
		n = exec.RowCount(cp.node)
	}
	return n, err
}

// into runs a statement whose first row goes to target (STRICT: exactly
// one row, else P0002 / P0003).
func (x *call) into(s *stmt, run func(each func([]exec.Column, exec.Row) (bool, error)) (int64, bool, error)) error {
	var cols []exec.Column
	var first []types.Datum
	rows := 0
	n, isDML, err := run(func(c []exec.Column, r exec.Row) (bool, error) {
		rows++
		if rows == 1 {
			cols, first = c, append([]types.Datum(nil), r...)
		}
		return rows < 2, nil
	})
	if err != nil {
		return err
	}
	if rows > 1 && (s.Strict || isDML) {
		return pgerr.Errorf(codeTooManyRows, "query returned more than one row").
			WithHint("Make sure the query returns a single row, or use LIMIT 1.")
	}
	if rows == 0 && s.Strict {
		return pgerr.Errorf(codeNoDataFound, "query returned no rows")
	}
	if !isDML && rows > 1 {
		n = 1
	}
	x.rowCount = n
	x.setFound(rows > 0)
	return x.assignRow(x.targetDno(s.Target), cols, first)
}

func (x *call) execSQL(s *stmt) error {
	if s.Into {
		return x.into(s, func(each func([]exec.Column, exec.Row) (bool, error)) (int64, bool, error) {
			n, err := x.runSQL(s.SQL.e, each)
			return n, isDMLText(s.SQL.e.Query), err
		})
	}
	if returnsRowsSelect(s.SQL.e.Query) {
		return pgerr.Errorf(pgerr.SyntaxError, "query has no destination for result data").
			WithHint("If you want to discard the results of a SELECT, use PERFORM instead.")
	}
	n, err := x.runSQL(s.SQL.e, nil)
	if err != nil {
		return err
	}
	x.rowCount = n
	x.setFound(n > 0)
	return nil
}

func isDMLText(q string) bool {
	w := strings.ToUpper(strings.Fields(q + " x")[0])
	return w == "INSERT" || w == "UPDATE" || w == "DELETE" || w == "MERGE"
}

func returnsRowsSelect(q string) bool {
	tree, err := pg.Parse(q)
	if err != nil || len(tree.Stmts) != 1 {
		return false
	}
	n := tree.Stmts[0].Stmt
	return n.GetSelectStmt() != nil && n.GetSelectStmt().IntoClause == nil
}

func (x *call) perform(s *stmt) error {
	n, err := x.runSQL(s.Expr.e, nil)
	if err != nil {
		return err
	}
	x.rowCount = n
	x.setFound(n > 0)
	return nil
}

// dynamic runs EXECUTE's query string with USING's values as $n.
func (x *call) dynamic(q *exprNode, using []exprRef, each func([]exec.Column, exec.Row) (bool, error)) (int64, error) {
	d, t, err := x.evalScalar(q)
	if err != nil {
		return 0, err
	}
	if d.IsNull() {
		return 0, pgerr.Errorf(pgerr.NullValueNotAllowed, "query string argument of EXECUTE is null")
	}
	text := x.textOf(d, t)
	var params []types.Datum
	var ptypes []types.Type
	for _, u := range using {
		v, vt, err := x.evalScalar(u.e)
		if err != nil {
			return 0, err
		}
		params, ptypes = append(params, v), append(ptypes, vt)
	}
	n, err := x.runDynamic(text, params, ptypes, each)
	if err != nil {
		return n, withSQLContext(err, "SQL statement", text)
	}
	return n, nil
}

func (x *call) runDynamic(text string, params []types.Datum, ptypes []types.Type, each func([]exec.Column, exec.Row) (bool, error)) (int64, error) {
	x.snaps.Next()
	tree, err := pg.Parse(text)
	if err != nil {
		return 0, parseError(err)
	}
	if len(tree.Stmts) != 1 {
		return 0, pgerr.Errorf(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	st := tree.Stmts[0].Stmt
	ctx := x.bc.WithoutVars()
	if each != nil && exec.ReturnsUtilityRows(st) {
		return ctx.RunUtilityRows(st, text, params, ptypes, each)
	}
	if !exec.IsPlannable(st) {
		return 0, ctx.RunUtility(st, text, params, ptypes)
	}
	if err := ctx.CheckReadOnly(st); err != nil {
		return 0, err
	}
	p := &exec.Planner{C: ctx, ParamTypes: ptypes}
	node, cols, isDML, err := p.PlanBodyStatement(st)
	if err != nil {
		return 0, err
	}
	cp := &compiled{node: node, cols: cols, isDML: isDML}
	var n int64
	run := ctx.WithParams(params)
	err = exec.Run(run, node, func(r exec.Row) error {
		n++
		if each != nil {
			more, err := each(cols, r)
			if err != nil {
				return err
			}
			if !more && !isDML {
				return exec.ErrStopRows
			}
		}
		return nil
	})
	if err == exec.ErrStopRows {
		err = nil
	}
	if cp.isDML {
		n = exec.RowCount(node)
	}
	return n, err
}

func (x *call) dynExecute(s *stmt) error {
	if s.Into {
		return x.into(s, func(each func([]exec.Column, exec.Row) (bool, error)) (int64, bool, error) {
			n, err := x.dynamic(s.Query.e, s.Params, each)
			return n, false, err
		})
	}
	n, err := x.dynamic(s.Query.e, s.Params, nil)
	if err != nil {
		return err
	}
	x.rowCount = n
	x.setFound(n > 0)
	return nil
}

// callStmt is CALL inside a body: INOUT parameters' results go back to
// the variables passed for them.
func (x *call) callStmt(s *stmt) error {
	tree, err := pg.Parse(s.Expr.e.Query)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetCallStmt() == nil {
		return pgerr.Errorf(pgerr.SyntaxError, "syntax error in CALL")
	}
	x.snaps.Next()
	x.res.sc, x.res.refs = x.prog.exprScope[s.Expr.e], nil
	rc, err := exec.PlanCall(x.bc, tree.Stmts[0].Stmt.GetCallStmt())
	refs := x.res.refs
	x.res.sc, x.res.refs = nil, nil
	if err != nil {
		return withSQLContext(err, "SQL statement", s.Expr.e.Query)
	}
	params, err := x.params(&compiled{refs: refs})
	if err != nil {
		return err
	}
	targets, err := x.callTargets(s, tree.Stmts[0].Stmt.GetCallStmt().Funccall, rc)
	if err != nil {
		return err
	}
	err = exec.RunCall(x.bc.WithParams(params), rc, func(r exec.Row) error {
		for i, d := range targets {
			if i < len(r) {
				if err := x.assign(d, r[i], rc.Cols[i].Type); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return withSQLContext(err, "SQL statement", s.Expr.e.Query)
	}
	return nil
}

// callTargets are the variables a CALL's output parameters go back to:
// the argument written for each must be one (PostgreSQL builds this
// target when the CALL first runs).
func (x *call) callTargets(s *stmt, fc *pg.FuncCall, rc *exec.RoutineCall) ([]int, error) {
	params := procParams(rc.Proc)
	var out []int
	for i, prm := range params {
		if !prm.output {
			continue
		}
		var arg *pg.Node
		for k, a := range fc.Args {
			if na := a.GetNamedArgExpr(); na != nil {
				if na.Name == prm.name {
					arg = na.Arg
				}
			} else if k == i {
				arg = a
			}
		}
		cr := arg.GetColumnRef()
		d, ok := -1, false
		if cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			d, ok = x.prog.stmtScope[s].lookup(cr.Fields[0].GetString_().Sval)
		}
		if !ok {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "procedure parameter \"%s\" is an output parameter but corresponding argument is not writable", prm.name)
		}
		out = append(out, d)
	}
	return out, nil
}

// arrayElems are an array value's elements in storage order.
func arrayElems(d types.Datum) []types.Datum {
	return d.Elems()
}
