package plpgsql

// The body's structure as pg_query's PL/pgSQL parser gives it
// (ParsePlPgSqlToJSON): every node is {"PLpgSQL_<kind>": {fields}}.
// One Go struct holds the fields of every statement kind; kind says
// which apply.

import (
	"encoding/json"
	"fmt"
	"strings"
)

// node is one {"PLpgSQL_<kind>": {…}} object.
type node struct {
	kind string
	raw  json.RawMessage
}

func (n *node) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range m {
		n.kind, n.raw = strings.TrimPrefix(k, "PLpgSQL_"), v
	}
	return nil
}

// exprNode is a PLpgSQL_expr: SQL text and how it is to be parsed.
type exprNode struct {
	Query     string `json:"query"`
	ParseMode int    `json:"parseMode"`
}

// Parse modes of PLpgSQL_expr (RawParseMode).
const (
	modeDefault = 0 // a whole statement
	modeExpr    = 2 // an expression (SELECT's target list and clauses)
	modeAssign1 = 3 // "x := expr"
	modeAssign2 = 4 // "a.b := expr"
	modeAssign3 = 5 // "a.b.c := expr"
)

type exprRef struct{ e *exprNode }

func (r *exprRef) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n.kind != "expr" {
		return fmt.Errorf("expected PLpgSQL_expr, got %s", n.kind)
	}
	r.e = &exprNode{}
	return json.Unmarshal(n.raw, r.e)
}

// datumNode is a PLpgSQL_var, _rec, _row or _recfield.
type datumNode struct {
	kind      string
	Refname   string      `json:"refname"`
	Lineno    int         `json:"lineno"`
	Dno       int         `json:"dno"`
	Datatype  *typeNode   `json:"datatype"`
	IsConst   bool        `json:"isconst"`
	NotNull   bool        `json:"notnull"`
	Default   exprRef     `json:"default_val"`
	CursorQ   exprRef     `json:"cursor_explicit_expr"`
	Fields    []*rowField `json:"fields"`
	FieldName string      `json:"fieldname"`
	Parent    int         `json:"recparentno"`
}

type typeNode struct{ Typname string }

func (t *typeNode) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	var v struct {
		Typname string `json:"typname"`
	}
	err := json.Unmarshal(n.raw, &v)
	t.Typname = v.Typname
	return err
}

type rowField struct {
	Name  string `json:"name"`
	Varno int    `json:"varno"`
}

func (d *datumNode) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	type plain datumNode
	var p plain
	if err := json.Unmarshal(n.raw, &p); err != nil {
		return err
	}
	*d = datumNode(p)
	d.kind = n.kind
	return nil
}

// stmt is any statement: the union of their fields.
type stmt struct {
	kind   string
	Lineno int    `json:"lineno"`
	Label  string `json:"label"`
	Body   []*stmt
	Exc    *excBlock `json:"exceptions"`

	Varno int     `json:"varno"`
	Expr  exprRef `json:"expr"`
	Cond  exprRef `json:"cond"`

	ThenBody []*stmt    `json:"then_body"`
	Elsifs   []*condArm `json:"elsif_list"`
	ElseBody []*stmt    `json:"else_body"`

	TExpr    exprRef    `json:"t_expr"`
	TVarno   int        `json:"t_varno"`
	Whens    []*condArm `json:"case_when_list"`
	HaveElse bool       `json:"have_else"`
	ElseStmt []*stmt    `json:"else_stmts"`

	Var     *datumNode `json:"var"`
	Lower   exprRef    `json:"lower"`
	Upper   exprRef    `json:"upper"`
	Step    exprRef    `json:"step"`
	Reverse bool       `json:"reverse"`
	Query   exprRef    `json:"query"`
	DynQ    exprRef    `json:"dynquery"`
	Slice   int        `json:"slice"`

	IsExit bool `json:"is_exit"`

	ElogLevel int             `json:"elog_level"`
	CondName  string          `json:"condname"`
	Message   json.RawMessage `json:"message"`
	Params    []exprRef       `json:"params"`
	Options   []*raiseOption  `json:"options"`

	SQL    exprRef    `json:"sqlstmt"`
	Into   bool       `json:"into"`
	Strict bool       `json:"strict"`
	Target *datumNode `json:"target"`

	IsStacked bool        `json:"is_stacked"`
	DiagItems []*diagItem `json:"diag_items"`

	IsCall bool `json:"is_call"`
	Chain  bool `json:"chain"`
}

func (s *stmt) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	type plain stmt
	var p plain
	if err := json.Unmarshal(n.raw, &p); err != nil {
		return err
	}
	*s = stmt(p)
	s.kind = strings.TrimPrefix(n.kind, "stmt_")
	return nil
}

// condArm is an ELSIF arm or a CASE WHEN arm.
type condArm struct {
	Lineno int
	Cond   exprRef
	Expr   exprRef
	Stmts  []*stmt
}

func (a *condArm) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	var v struct {
		Lineno int     `json:"lineno"`
		Cond   exprRef `json:"cond"`
		Expr   exprRef `json:"expr"`
		Stmts  []*stmt `json:"stmts"`
	}
	err := json.Unmarshal(n.raw, &v)
	*a = condArm{Lineno: v.Lineno, Cond: v.Cond, Expr: v.Expr, Stmts: v.Stmts}
	return err
}

type raiseOption struct {
	OptType int
	Expr    exprRef
}

func (o *raiseOption) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	var v struct {
		OptType int     `json:"opt_type"`
		Expr    exprRef `json:"expr"`
	}
	err := json.Unmarshal(n.raw, &v)
	*o = raiseOption{OptType: v.OptType, Expr: v.Expr}
	return err
}

type diagItem struct {
	Kind   string
	Target int
}

func (d *diagItem) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	var v struct {
		Kind   string `json:"kind"`
		Target int    `json:"target"`
	}
	err := json.Unmarshal(n.raw, &v)
	*d = diagItem{Kind: v.Kind, Target: v.Target}
	return err
}

type excBlock struct {
	Handlers []*handler
}

func (e *excBlock) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	var v struct {
		ExcList []*handler `json:"exc_list"`
	}
	err := json.Unmarshal(n.raw, &v)
	e.Handlers = v.ExcList
	return err
}

type handler struct {
	Conditions []string
	Action     []*stmt
}

func (h *handler) UnmarshalJSON(b []byte) error {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	var v struct {
		Conditions []node  `json:"conditions"`
		Action     []*stmt `json:"action"`
	}
	if err := json.Unmarshal(n.raw, &v); err != nil {
		return err
	}
	h.Action = v.Action
	for _, c := range v.Conditions {
		var cn struct {
			Condname string `json:"condname"`
		}
		if err := json.Unmarshal(c.raw, &cn); err != nil {
			return err
		}
		h.Conditions = append(h.Conditions, cn.Condname)
	}
	return nil
}

// function is the parser's PLpgSQL_function.
type function struct {
	Datums []*datumNode `json:"datums"`
	Action *stmt        `json:"action"`
	// NewVarno and OldVarno are a trigger function's NEW and OLD records
	// (nil for other functions).
	NewVarno *int `json:"new_varno"`
	OldVarno *int `json:"old_varno"`
}

// parseTree decodes ParsePlPgSqlToJSON's output (one function).
func parseTree(js string) (*function, error) {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		return nil, fmt.Errorf("plpgsql parse tree: %w", err)
	}
	if len(list) != 1 {
		return nil, fmt.Errorf("plpgsql parse tree: %d functions", len(list))
	}
	var f function
	if err := json.Unmarshal(list[0]["PLpgSQL_function"], &f); err != nil {
		return nil, fmt.Errorf("plpgsql parse tree: %w", err)
	}
	return &f, nil
}

// messageString is RAISE's format string (an expression for ASSERT).
func (s *stmt) messageString() string {
	var m string
	if len(s.Message) > 0 && json.Unmarshal(s.Message, &m) == nil {
		return m
	}
	return ""
}

func (s *stmt) messageExpr() *exprNode {
	var r exprRef
	if len(s.Message) > 0 && json.Unmarshal(s.Message, &r) == nil {
		return r.e
	}
	return nil
}
