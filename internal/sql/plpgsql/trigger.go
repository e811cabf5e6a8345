package plpgsql

// Trigger functions (RETURNS trigger): the executor calls them through
// exec.TriggerLanguage with the trigger's rows and TG_* values. The parser
// declares NEW and OLD (new_varno / old_varno) but not the TG_* variables,
// which are added here to the function's outermost scope.

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// aliasDecl is "name ALIAS FOR target;" in a DECLARE section.
var aliasDecl = regexp.MustCompile(`(?i)(?:^|[;\s])("[^"]+"|[a-z_][a-z0-9_$]*)\s+alias\s+for\s+("[^"]+"|\$[0-9]+|[a-z_][a-z0-9_$]*)\s*;`)

// declareAliases adds the ALIAS FOR names of src to the outermost scope
// (pg_query's tree leaves them out): each names what its target names
// there, a parameter ($n or by name), NEW or OLD.
func declareAliases(src string, top *scope) {
	for _, m := range aliasDecl.FindAllStringSubmatch(src, -1) {
		name, target := unquoteIdent(m[1]), unquoteIdent(m[2])
		if d, ok := top.names[target]; ok {
			top.names[name] = d
		}
	}
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

var tgArgvSubscript = regexp.MustCompile(`(?i)(\btg_argv\s*\[)`)

// triggerDatums are a trigger function's special datums.
type triggerDatums struct {
	newDno, oldDno int
	tg             map[string]int // TG_* variable (lower case) → datum
}

// triggerVars are the TG_* variables and their types, as PostgreSQL 15
// declares them.
var triggerVars = []struct{ name, typ string }{
	{"tg_name", "name"}, {"tg_when", "text"}, {"tg_level", "text"}, {"tg_op", "text"},
	{"tg_relid", "oid"}, {"tg_relname", "name"}, {"tg_table_name", "name"},
	{"tg_table_schema", "name"}, {"tg_nargs", "integer"}, {"tg_argv", "text[]"},
}

// declareTriggerVars claims NEW and OLD and adds the TG_* datums when f
// is a trigger function.
func declareTriggerVars(f *function, p *program, top *scope, claimed []bool) []bool {
	if f.NewVarno == nil || f.OldVarno == nil {
		return claimed
	}
	td := &triggerDatums{newDno: *f.NewVarno, oldDno: *f.OldVarno, tg: map[string]int{}}
	for _, d := range []int{td.newDno, td.oldDno} {
		if d >= 0 && d < len(claimed) {
			claimed[d] = true
			top.names[p.datums[d].Refname] = d
		}
	}
	for _, v := range triggerVars {
		i := len(p.datums)
		p.datums = append(p.datums, &datumNode{kind: "var", Refname: v.name, Dno: i, Datatype: &typeNode{Typname: v.typ}})
		claimed = append(claimed, true)
		top.names[v.name] = i
		td.tg[v.name] = i
	}
	p.trig = td
	return claimed
}

func (language) CallTrigger(c *exec.Ctx, proc *catalog.Proc, td *exec.TriggerData) (exec.Row, error) {
	// TG_ARGV's subscripts start at 0; tidal's arrays at 1, so the body
	// is compiled with its subscripts shifted.
	shifted := *proc
	shifted.Src = tgArgvSubscript.ReplaceAllString(proc.Src, "${1}1+")
	rc := &exec.RoutineCall{Proc: &shifted, Ret: types.Record}
	// Compiled per function and table, as PostgreSQL does: NEW and OLD
	// have the table's row type.
	st, err := cachedSite(c, rc, strconv.FormatUint(uint64(proc.OID), 10)+",trigger,"+strconv.FormatUint(uint64(td.Rel.OID), 10))
	if err != nil {
		return nil, err
	}
	if st.prog.trig == nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "trigger functions can only be called as triggers")
	}
	var result types.Datum
	returned := false
	x := newCall(c, st, rc, func(r exec.Row) (bool, error) {
		returned = true
		if len(r) > 0 {
			result = r[0]
		}
		return true, nil
	})
	x.bindTrigger(c, td)
	if err := x.runCall(); err != nil {
		if pe := asError(err); pe != nil && pe.Code == codeNoReturn && !returned {
			pe.Message = "control reached end of trigger procedure without RETURN"
		}
		return nil, err
	}
	if !returned || result.IsNull() {
		return nil, nil
	}
	return triggerResult(td, result)
}

// bindTrigger gives NEW, OLD and the TG_* variables their values.
func (x *call) bindTrigger(c *exec.Ctx, td *exec.TriggerData) {
	t := x.prog.trig
	x.vals[t.newDno].rec = rowRecord(td.Rel, td.New)
	x.vals[t.oldDno].rec = rowRecord(td.Rel, td.Old)
	args := make([]types.Datum, len(td.Trigger.Args))
	for i, a := range td.Trigger.Args {
		args[i] = types.Str(a)
	}
	vals := map[string]types.Datum{
		"tg_name": types.Str(td.Trigger.Name), "tg_when": types.Str(td.When), "tg_level": types.Str(td.Level),
		"tg_op": types.Str(td.Event), "tg_relid": types.Int(int64(td.Rel.OID)), "tg_relname": types.Str(td.Rel.Name),
		"tg_table_name": types.Str(td.Rel.Name), "tg_table_schema": types.Str(td.SchemaName(c)),
		"tg_nargs": types.Int(int64(len(args))), "tg_argv": types.Array(args),
	}
	for name, d := range t.tg {
		x.vals[d].d = vals[name]
	}
}

// rowRecord is a table row as a record of its visible columns (nil for no
// row: the record is then unassigned, as NEW in a DELETE trigger).
func rowRecord(rel *catalog.Relation, row exec.Row) *record {
	if row == nil {
		return nil
	}
	r := &record{}
	for i, a := range rel.Attrs {
		if a.Dropped {
			continue
		}
		r.names = append(r.names, a.Name)
		r.types = append(r.types, a.Type)
		r.vals = append(r.vals, row[i])
	}
	return r
}

// triggerResult converts the record a trigger returned to a row of the
// table, checking it has the table's structure.
func triggerResult(td *exec.TriggerData, d types.Datum) (exec.Row, error) {
	ts, vals := types.RecordFields(d)
	rel := td.Rel
	want := 0
	for _, a := range rel.Attrs {
		if !a.Dropped {
			want++
		}
	}
	if len(vals) != want {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "returned row structure does not match the structure of the triggering table").
			WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(vals), want)
	}
	row := make(exec.Row, len(rel.Attrs))
	k := 0
	for i, a := range rel.Attrs {
		if a.Dropped {
			row[i] = types.Null()
			continue
		}
		if ts[k].OID != a.Type.OID && !vals[k].IsNull() && ts[k].OID != types.UnknownOID {
			return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "returned row structure does not match the structure of the triggering table").
				WithDetail("Returned type %s does not match expected type %s in column %d.", ts[k].BaseName(), a.Type.BaseName(), k+1)
		}
		row[i] = vals[k]
		k++
	}
	return row, nil
}
