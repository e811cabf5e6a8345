package routine

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// The text PostgreSQL's ruleutils.c prints for a routine, which psql's
// \df and \sf show.

func typeName(oid uint32) string { return types.Type{OID: oid, Typmod: -1}.BaseName() }

// allArgs is get_func_arg_info: every argument's type and mode.
func allArgs(p *catalog.Proc) ([]uint32, []byte) {
	if p.AllArgTypes != nil {
		return p.AllArgTypes, p.ArgModes
	}
	modes := make([]byte, len(p.ArgTypes))
	for i := range modes {
		modes[i] = catalog.ArgIn
	}
	return p.ArgTypes, modes
}

// Arguments is print_function_arguments: the argument list with modes,
// names and (withDefaults) DEFAULT clauses; tableArgs selects the TABLE
// columns instead of the other arguments.
func Arguments(p *catalog.Proc, tableArgs, withDefaults bool) string {
	argTypes, modes := allArgs(p)
	lackDefaults := len(p.ArgTypes)
	if withDefaults {
		lackDefaults -= len(p.ArgDefaults)
	}
	var b strings.Builder
	printed, input, nextDefault := 0, 0, 0
	for i, t := range argTypes {
		mode := modes[i]
		modename := ""
		isInput := catalog.IsInputMode(mode)
		switch mode {
		case catalog.ArgIn:
			if p.Kind == catalog.ProcProcedure {
				modename = "IN "
			}
		case catalog.ArgInOut:
			modename = "INOUT "
		case catalog.ArgOut:
			modename = "OUT "
		case catalog.ArgVariadic:
			modename = "VARIADIC "
		}
		if isInput {
			input++
		}
		if tableArgs != (mode == catalog.ArgTable) {
			continue
		}
		if printed > 0 {
			b.WriteString(", ")
		}
		b.WriteString(modename)
		if i < len(p.ArgNames) && p.ArgNames[i] != "" {
			b.WriteString(types.QuoteIdent(p.ArgNames[i]) + " ")
		}
		b.WriteString(typeName(t))
		if withDefaults && isInput && input > lackDefaults && nextDefault < len(p.ArgDefaults) {
			b.WriteString(" DEFAULT " + p.ArgDefaults[nextDefault])
			nextDefault++
		}
		printed++
	}
	return b.String()
}

// IdentityArguments is pg_get_function_identity_arguments.
func IdentityArguments(p *catalog.Proc) string { return Arguments(p, false, false) }

// Result is pg_get_function_result: "integer", "SETOF text",
// "TABLE(a integer, b text)".
func Result(p *catalog.Proc) string {
	if p.Kind == catalog.ProcProcedure {
		return ""
	}
	if p.RetSet && hasTableArgs(p) {
		return "TABLE(" + Arguments(p, true, false) + ")"
	}
	s := typeName(p.RetType)
	if p.RetSet {
		s = "SETOF " + s
	}
	return s
}

func hasTableArgs(p *catalog.Proc) bool {
	for _, m := range p.ArgModes {
		if m == catalog.ArgTable {
			return true
		}
	}
	return false
}

// FunctionDef is pg_get_functiondef: a CREATE OR REPLACE statement that
// recreates the routine; nspName is its schema's name.
func FunctionDef(p *catalog.Proc, nspName string) string {
	kind := "FUNCTION"
	if p.Kind == catalog.ProcProcedure {
		kind = "PROCEDURE"
	}
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE " + kind + " " + types.QuoteIdent(nspName) + "." + types.QuoteIdent(p.Name) + "(")
	b.WriteString(Arguments(p, false, true) + ")\n")
	if p.Kind != catalog.ProcProcedure {
		b.WriteString(" RETURNS " + Result(p) + "\n")
	}
	langName := strconv.FormatUint(uint64(p.Lang), 10)
	if l := catalog.LanguageByOID(p.Lang); l != nil {
		langName = l.Name
	}
	b.WriteString(" LANGUAGE " + types.QuoteIdent(langName) + "\n")
	if opts := optionLine(p); opts != "" {
		b.WriteString(opts + "\n")
	}
	for _, c := range p.Config {
		b.WriteString(configLine(c) + "\n")
	}
	if p.HasSQLBody {
		b.WriteString(p.SQLBody)
	} else {
		delim := "$function$"
		if p.Kind == catalog.ProcProcedure {
			delim = "$procedure$"
		}
		for strings.Contains(p.Src, delim[:len(delim)-1]) {
			delim = delim[:len(delim)-1] + "x$"
		}
		b.WriteString("AS " + delim + p.Src + delim)
	}
	b.WriteString("\n")
	return b.String()
}

// optionLine is the line of pg_get_functiondef with volatility, STRICT,
// SECURITY DEFINER, LEAKPROOF, COST and ROWS ("" when all are defaults).
func optionLine(p *catalog.Proc) string {
	var b strings.Builder
	switch p.Volatile {
	case catalog.VolatileImmutable:
		b.WriteString(" IMMUTABLE")
	case catalog.VolatileStable:
		b.WriteString(" STABLE")
	}
	switch p.Parallel {
	case catalog.ParallelSafe:
		b.WriteString(" PARALLEL SAFE")
	case catalog.ParallelRestricted:
		b.WriteString(" PARALLEL RESTRICTED")
	}
	if p.Strict {
		b.WriteString(" STRICT")
	}
	if p.SecDef {
		b.WriteString(" SECURITY DEFINER")
	}
	if p.Leakproof {
		b.WriteString(" LEAKPROOF")
	}
	defCost := float32(100)
	if p.Lang == catalog.LangInternal || p.Lang == catalog.LangC {
		defCost = 1
	}
	if p.Cost != defCost {
		b.WriteString(" COST " + formatG(p.Cost))
	}
	if p.Rows > 0 && p.Rows != 1000 {
		b.WriteString(" ROWS " + formatG(p.Rows))
	}
	return b.String()
}

// formatG is C's %g of a float4 widened to double.
func formatG(f float32) string {
	return strconv.FormatFloat(float64(f), 'g', 6, 64)
}

// listQuoted are the settings whose values are lists of names
// (GUC_LIST_QUOTE): each element is quoted apart.
var listQuoted = map[string]bool{"search_path": true, "temp_tablespaces": true, "session_preload_libraries": true,
	"shared_preload_libraries": true, "local_preload_libraries": true}

func configLine(item string) string {
	name, value, _ := strings.Cut(item, "=")
	out := " SET " + name + " TO "
	if listQuoted[name] {
		parts := strings.Split(value, ",")
		for i, p := range parts {
			parts[i] = quoteLiteral(strings.Trim(strings.TrimSpace(p), `"`))
		}
		return out + strings.Join(parts, ", ")
	}
	return out + quoteLiteral(value)
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
