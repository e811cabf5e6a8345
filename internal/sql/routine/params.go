package routine

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func invalidDef(format string, args ...any) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidFunctionDefinition, format, args...)
}

// parameterMode is a parameter's pg_proc mode letter (the grammar's
// FUNC_PARAM_DEFAULT is IN).
func parameterMode(m pg.FunctionParameterMode) byte {
	switch m {
	case pg.FunctionParameterMode_FUNC_PARAM_OUT:
		return catalog.ArgOut
	case pg.FunctionParameterMode_FUNC_PARAM_INOUT:
		return catalog.ArgInOut
	case pg.FunctionParameterMode_FUNC_PARAM_VARIADIC:
		return catalog.ArgVariadic
	case pg.FunctionParameterMode_FUNC_PARAM_TABLE:
		return catalog.ArgTable
	}
	return catalog.ArgIn
}

// isOutputMode: the parameter is part of the result (OUT, INOUT, TABLE).
func isOutputMode(m byte) bool {
	return m == catalog.ArgOut || m == catalog.ArgInOut || m == catalog.ArgTable
}

// parameters is interpret_function_parameter_list: argument types, modes,
// names and defaults, with PostgreSQL's checks and messages.
func (d *Definition) parameters(params []*pg.Node, resolve TypeResolver) error {
	p := &d.Proc
	if len(params) > MaxArgs {
		return pgerr.Errorf(pgerr.TooManyArguments, "functions cannot have more than %d arguments", MaxArgs)
	}
	var allTypes []uint32
	var modes []byte
	var names []string
	haveNames, haveDefaults := false, false
	outCount, varCount := 0, 0
	var fps []*pg.FunctionParameter
	for _, n := range params {
		fp := n.GetFunctionParameter()
		fps = append(fps, fp)
		t, err := resolve(fp.ArgType)
		if err != nil {
			return err
		}
		if fp.ArgType.Setof {
			return invalidDef("functions cannot accept set arguments")
		}
		mode := parameterMode(fp.Mode)
		isInput := catalog.IsInputMode(mode)
		if isInput {
			if varCount > 0 {
				return invalidDef("VARIADIC parameter must be the last input parameter")
			}
			p.ArgTypes = append(p.ArgTypes, t.OID)
			d.ArgTypes = append(d.ArgTypes, t)
		}
		if isOutputMode(mode) {
			if p.Kind == catalog.ProcProcedure && varCount > 0 {
				return invalidDef("VARIADIC parameter must be the last parameter")
			}
			if outCount == 0 {
				d.requiredResult = t
			}
			outCount++
		}
		if mode == catalog.ArgVariadic {
			p.Variadic = variadicElem(t)
			varCount++
			if p.Variadic == 0 {
				return invalidDef("VARIADIC parameter must be an array")
			}
		}
		allTypes = append(allTypes, t.OID)
		modes = append(modes, mode)
		names = append(names, fp.Name)
		if fp.Name != "" {
			if err := checkParamName(fps, fp, mode); err != nil {
				return err
			}
			haveNames = true
		}
		if fp.Defexpr != nil {
			if !isInput {
				return invalidDef("only input parameters can have default values")
			}
			d.Defaults = append(d.Defaults, fp.Defexpr)
			d.DefaultTypes = append(d.DefaultTypes, t)
			haveDefaults = true
		} else if isInput && haveDefaults {
			return invalidDef("input parameters after one with a default value must also have defaults")
		} else if p.Kind == catalog.ProcProcedure && haveDefaults {
			return invalidDef("procedure OUT parameters cannot appear after one with a default value")
		}
	}
	if outCount > 0 || varCount > 0 {
		p.AllArgTypes, p.ArgModes = allTypes, modes
		if outCount > 1 {
			d.requiredResult = types.Record
		}
	}
	if haveNames {
		p.ArgNames = names
	}
	d.outCount = outCount
	return nil
}

// variadicElem is provariadic for a VARIADIC parameter of type t: its
// element type, "any" for VARIADIC "any", 0 if t is no array.
func variadicElem(t types.Type) uint32 {
	switch t.OID {
	case types.AnyArrayOID:
		return types.AnyElementOID
	case types.AnyCompatibleArrayOID:
		return types.AnyCompatibleOID
	case types.AnyOID:
		return types.AnyOID
	}
	if et, ok := types.ElemType(t); ok {
		return et.OID
	}
	return 0
}

// checkParamName refuses a name two input (or two output) parameters
// share; a pure input and a pure output parameter may.
func checkParamName(fps []*pg.FunctionParameter, fp *pg.FunctionParameter, mode byte) error {
	for _, prev := range fps {
		if prev == fp {
			break
		}
		pm := parameterMode(prev.Mode)
		inOnly := func(m byte) bool { return m == catalog.ArgIn || m == catalog.ArgVariadic }
		outOnly := func(m byte) bool { return m == catalog.ArgOut || m == catalog.ArgTable }
		if (inOnly(mode) && outOnly(pm)) || (inOnly(pm) && outOnly(mode)) {
			continue
		}
		if prev.Name != "" && prev.Name == fp.Name {
			return invalidDef("parameter name \"%s\" used more than once", fp.Name)
		}
	}
	return nil
}

// result is compute_return_type and its checks against OUT parameters.
func (d *Definition) result(st *pg.CreateFunctionStmt, resolve TypeResolver) error {
	p := &d.Proc
	if p.Kind == catalog.ProcProcedure {
		p.RetType = types.VoidOID
		if d.outCount > 0 {
			p.RetType = types.RecordOID
		}
		return nil
	}
	switch {
	case st.ReturnType != nil:
		t, err := resolve(st.ReturnType)
		if err != nil {
			return err
		}
		p.RetType, p.RetSet = t.OID, st.ReturnType.Setof
		if d.requiredResult.OID != 0 && t.OID != d.requiredResult.OID {
			return invalidDef("function result type must be %s because of OUT parameters", d.requiredResult.BaseName())
		}
	case d.requiredResult.OID != 0:
		p.RetType = d.requiredResult.OID
	default:
		return invalidDef("function result type must be specified")
	}
	return checkPolymorphicResult(p)
}

// checkPolymorphicResult refuses a polymorphic result (or OUT
// parameter) no input argument can determine.
func checkPolymorphicResult(p *catalog.Proc) error {
	var plain, compat bool
	for _, a := range p.ArgTypes {
		switch a {
		case types.AnyElementOID, types.AnyArrayOID, types.AnyNonArrayOID:
			plain = true
		case types.AnyCompatibleOID, types.AnyCompatibleArrayOID, types.AnyCompatibleNonArray:
			compat = true
		}
	}
	check := func(t uint32) error {
		tt := types.Type{OID: t, Typmod: -1}
		switch t {
		case types.AnyElementOID, types.AnyArrayOID, types.AnyNonArrayOID:
			if !plain {
				return invalidDef("cannot determine result data type").WithDetail(
					"A result of type %s requires at least one input of type anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange.", tt.BaseName())
			}
		case types.AnyCompatibleOID, types.AnyCompatibleArrayOID, types.AnyCompatibleNonArray:
			if !compat {
				return invalidDef("cannot determine result data type").WithDetail(
					"A result of type %s requires at least one input of type anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange.", tt.BaseName())
			}
		}
		return nil
	}
	if err := check(p.RetType); err != nil {
		return err
	}
	for i, m := range p.ArgModes {
		if m == catalog.ArgOut || m == catalog.ArgTable {
			if err := check(p.AllArgTypes[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ConfigItem is one SET clause of a routine (proconfig).
type ConfigItem struct {
	Name  string
	Value string // "" with Reset
	Reset bool   // RESET name (ALTER FUNCTION)
	All   bool   // RESET ALL
}

// configItem reads a SET clause: SET name = value / TO value, SET name
// FROM CURRENT (the caller fills Value), RESET name, RESET ALL.
func configItem(vs *pg.VariableSetStmt) (ConfigItem, error) {
	if vs == nil {
		return ConfigItem{}, pgerr.Errorf(pgerr.SyntaxError, "invalid SET clause")
	}
	it := ConfigItem{Name: strings.ToLower(vs.Name)}
	switch vs.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		var parts []string
		for _, a := range vs.Args {
			parts = append(parts, configValue(a))
		}
		it.Value = strings.Join(parts, ", ")
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		it.Reset = true
	case pg.VariableSetKind_VAR_RESET_ALL:
		it.Reset, it.All = true, true
	case pg.VariableSetKind_VAR_SET_CURRENT:
		return it, pgerr.Errorf(pgerr.FeatureNotSupported, "SET FROM CURRENT is not supported yet")
	default:
		return it, pgerr.Errorf(pgerr.FeatureNotSupported, "this form of SET is not supported in a function definition")
	}
	return it, nil
}

func configValue(n *pg.Node) string {
	ac := n.GetAConst()
	switch {
	case ac == nil:
		if tc := n.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil {
			return configValue(tc.Arg)
		}
		return ""
	case ac.GetSval() != nil:
		return ac.GetSval().Sval
	case ac.GetIval() != nil:
		return strconv.FormatInt(int64(ac.GetIval().Ival), 10)
	case ac.GetFval() != nil:
		return ac.GetFval().Fval
	case ac.GetBoolval() != nil:
		if ac.GetBoolval().Boolval {
			return "true"
		}
		return "false"
	}
	return ""
}

// UpdateConfig applies a SET clause to a proconfig list (name=value
// entries, one per setting, in the order first set).
func UpdateConfig(cfg []string, it ConfigItem) []string {
	if it.All {
		return nil
	}
	var out []string
	replaced := false
	for _, e := range cfg {
		name, _, _ := strings.Cut(e, "=")
		if name != it.Name {
			out = append(out, e)
			continue
		}
		if !it.Reset && !replaced {
			out = append(out, it.Name+"="+it.Value)
			replaced = true
		}
	}
	if !it.Reset && !replaced {
		out = append(out, it.Name+"="+it.Value)
	}
	return out
}

// AlterConfig applies an ALTER FUNCTION SET / RESET clause to a
// proconfig list.
func AlterConfig(cfg []string, vs *pg.VariableSetStmt) ([]string, error) {
	it, err := configItem(vs)
	if err != nil {
		return nil, err
	}
	return UpdateConfig(cfg, it), nil
}
