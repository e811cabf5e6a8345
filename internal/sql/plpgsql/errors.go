package plpgsql

// Exception handlers' conditions, RAISE, ASSERT and GET DIAGNOSTICS.

import (
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// SQLSTATEs PL/pgSQL raises.
const (
	codeRaiseException = "P0001"
	codeNoDataFound    = "P0002"
	codeTooManyRows    = "P0003"
	codeAssertFailure  = "P0004"
	codeCaseNotFound   = "20000"
	codeNoReturn       = "2F005"
	codeNoHandler      = "0Z002"
	codeUndefinedObj   = "42704"
	codeErrorInAssign  = "22005"
)

// matches reports whether a handler's conditions catch code: OTHERS
// catches all but a cancel and a failed assertion; a class code (xx000)
// catches its class.
func matches(conds []string, code string) bool {
	for _, c := range conds {
		if c == "others" {
			if code != pgerr.QueryCanceled && code != codeAssertFailure {
				return true
			}
			continue
		}
		codes := conditionCodes[c]
		if len(c) == 5 && codes == nil {
			codes = []string{strings.ToUpper(c)}
		}
		for _, k := range codes {
			if k == code || strings.HasSuffix(k, "000") && k[:2] == code[:2] {
				return true
			}
		}
	}
	return false
}

// conditionCode is the SQLSTATE a RAISE names: a condition name or
// SQLSTATE 'xxxxx'.
func conditionCode(name string) (string, error) {
	if codes := conditionCodes[name]; codes != nil {
		return codes[0], nil
	}
	if len(name) == 5 && strings.ToUpper(name) == name {
		return name, nil
	}
	return "", pgerr.Errorf(codeUndefinedObj, "unrecognized exception condition \"%s\"", name)
}

// RAISE option kinds (PLpgSQL_raise_option_type).
const (
	optErrcode = iota
	optMessage
	optDetail
	optHint
	optColumn
	optConstraint
	optDatatype
	optTable
	optSchema
)

// elog levels the parser gives RAISE.
const (
	levelDebug   = 14
	levelLog     = 15
	levelInfo    = 17
	levelNotice  = 18
	levelWarning = 19
	levelError   = 21
)

func (x *call) raise(s *stmt) error {
	if s.CondName == "" && s.messageString() == "" && len(s.Options) == 0 && s.ElogLevel == levelError {
		// RAISE; re-throws the error being handled.
		if len(x.handling) == 0 {
			return pgerr.Errorf(codeNoHandler, "RAISE without parameters cannot be used outside an exception handler")
		}
		pe := *x.handling[len(x.handling)-1]
		return &pe
	}
	e := &pgerr.Error{Severity: pgerr.SevError, Code: codeRaiseException}
	if s.ElogLevel != levelError {
		e.Code = pgerr.SuccessfulCompletion
		if s.ElogLevel == levelWarning {
			e.Code = "01000"
		}
	}
	if s.CondName != "" {
		code, err := conditionCode(s.CondName)
		if err != nil {
			return err
		}
		e.Code, e.Message = code, s.CondName
	}
	if f := s.messageString(); f != "" {
		msg, err := x.format(f, s.Params)
		if err != nil {
			return err
		}
		e.Message = msg
	}
	seen := map[int]bool{}
	if s.messageString() != "" {
		seen[optMessage] = true
	}
	for _, o := range s.Options {
		if seen[o.OptType] {
			names := []string{"ERRCODE", "MESSAGE", "DETAIL", "HINT", "COLUMN", "CONSTRAINT", "DATATYPE", "TABLE", "SCHEMA"}
			return pgerr.Errorf(pgerr.SyntaxError, "RAISE option already specified: %s", names[o.OptType])
		}
		seen[o.OptType] = true
		if err := x.raiseOption(e, o); err != nil {
			return err
		}
	}
	if e.Message == "" {
		e.Message = e.Code
		if s.CondName == "" && e.Code == codeRaiseException {
			e.Message = "raise_exception"
		}
		for n, codes := range conditionCodes {
			if codes[0] == e.Code && s.CondName == "" {
				e.Message = n
				break
			}
		}
	}
	if s.ElogLevel == levelError {
		return e
	}
	e.Severity = severity(s.ElogLevel)
	e.Where = "PL/pgSQL function " + x.prog.name + " line " + itoa(s.Lineno) + " at RAISE"
	if x.c.Notice != nil && x.clientWants(s.ElogLevel) {
		x.c.Notice(e)
	}
	return nil
}

// clientWants applies client_min_messages to a RAISE below ERROR.
func (x *call) clientWants(level int) bool {
	min := "notice"
	if x.c.Setting != nil {
		min = x.c.Setting("client_min_messages")
	}
	return pgerr.Reported(severity(level), min, true)
}

func severity(level int) string {
	switch level {
	case levelInfo:
		return pgerr.SevInfo
	case levelWarning:
		return pgerr.SevWarning
	case levelLog:
		return pgerr.SevLog
	case levelDebug:
		return "DEBUG"
	}
	return pgerr.SevNotice
}

func (x *call) raiseOption(e *pgerr.Error, o *raiseOption) error {
	d, t, err := x.evalScalar(o.Expr.e)
	if err != nil {
		return err
	}
	if d.IsNull() {
		names := []string{"ERRCODE", "MESSAGE", "DETAIL", "HINT", "COLUMN", "CONSTRAINT", "DATATYPE", "TABLE", "SCHEMA"}
		return pgerr.Errorf(pgerr.NullValueNotAllowed, "RAISE statement option cannot be null").
			WithDetail("%s", names[o.OptType])
	}
	v := x.textOf(d, t)
	switch o.OptType {
	case optErrcode:
		code, err := conditionCode(v)
		if err != nil && len(v) == 5 {
			code, err = v, nil
		}
		if err != nil {
			return err
		}
		e.Code = code
	case optMessage:
		e.Message = v
	case optDetail:
		e.Detail = v
	case optHint:
		e.Hint = v
	case optColumn:
		e.ColumnName = v
	case optConstraint:
		e.ConstraintName = v
	case optDatatype:
		e.DataTypeName = v
	case optTable:
		e.TableName = v
	case optSchema:
		e.SchemaName = v
	}
	return nil
}

// format replaces each % of a RAISE format with the next parameter's
// text (<NULL> for NULL); %% is a %.
func (x *call) format(f string, params []exprRef) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if next >= len(params) {
			return "", pgerr.Errorf(pgerr.SyntaxError, "too few parameters specified for RAISE")
		}
		d, t, err := x.evalScalar(params[next].e)
		if err != nil {
			return "", err
		}
		next++
		if d.IsNull() {
			b.WriteString("<NULL>")
			continue
		}
		b.WriteString(x.textOf(d, t))
	}
	if next < len(params) {
		return "", pgerr.Errorf(pgerr.SyntaxError, "too many parameters specified for RAISE")
	}
	return b.String(), nil
}

func (x *call) assert(s *stmt) error {
	if x.c.Setting != nil && x.c.Setting("plpgsql.check_asserts") == "off" {
		return nil
	}
	ok, err := x.evalBool(s.Cond.e)
	if err != nil || ok {
		return err
	}
	msg := "assertion failed"
	if m := s.messageExpr(); m != nil {
		d, t, err := x.evalScalar(m)
		if err != nil {
			return err
		}
		if d.IsNull() {
			return pgerr.Errorf(pgerr.NullValueNotAllowed, "assertion failed")
		}
		msg = x.textOf(d, t)
	}
	return pgerr.Errorf(codeAssertFailure, "%s", msg)
}

// getDiag is GET [CURRENT | STACKED] DIAGNOSTICS.
func (x *call) getDiag(s *stmt) error {
	var pe *pgerr.Error
	if s.IsStacked {
		if len(x.handling) == 0 {
			return pgerr.Errorf(codeNoHandler, "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
		}
		pe = x.handling[len(x.handling)-1]
	}
	for _, it := range s.DiagItems {
		var v types.Datum
		var t = types.Text
		switch it.Kind {
		case "ROW_COUNT":
			v, t = types.Int(x.rowCount), types.Int8
		case "PG_CONTEXT":
			v = types.Str("PL/pgSQL function " + x.prog.name + " line " + itoa(s.Lineno) + " at GET DIAGNOSTICS")
		case "RETURNED_SQLSTATE":
			v = types.Str(pe.Code)
		case "MESSAGE_TEXT":
			v = types.Str(pe.Message)
		case "PG_EXCEPTION_DETAIL":
			v = types.Str(pe.Detail)
		case "PG_EXCEPTION_HINT":
			v = types.Str(pe.Hint)
		case "PG_EXCEPTION_CONTEXT":
			v = types.Str(pe.Where)
		case "COLUMN_NAME":
			v = types.Str(pe.ColumnName)
		case "CONSTRAINT_NAME":
			v = types.Str(pe.ConstraintName)
		case "PG_DATATYPE_NAME":
			v = types.Str(pe.DataTypeName)
		case "TABLE_NAME":
			v = types.Str(pe.TableName)
		case "SCHEMA_NAME":
			v = types.Str(pe.SchemaName)
		default:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "GET DIAGNOSTICS item %s is not supported yet", it.Kind)
		}
		if err := x.assign(it.Target, v, t); err != nil {
			return err
		}
	}
	return nil
}
