package types

import "strings"

// Parameter names and defaults of the builtins that callers name
// arguments of (jsonb_set_lax(…, null_value_treatment => 'delete_key'),
// jsonb_path_query(…, silent => true)), as pg_proc's proargnames and
// proargdefaults have them. A default is the text of a constant of the
// parameter's type.

// BuiltinParam is one parameter of a builtin.
type BuiltinParam struct {
	Name    string
	Default string // "" = no default
	HasDef  bool
	Type    Type
}

var builtinParams = map[string][]BuiltinParam{}

// builtinFillsDefaults are the builtins registered only with all their
// parameters (make_interval): a call with fewer arguments, positional or
// named, gets the defaults of the rest. The others (jsonb_set) have a
// function for each shorter form, so a named call leaves trailing
// defaults out.
var builtinFillsDefaults = map[string]bool{}

func defineParams(name string, ps ...BuiltinParam) { builtinParams[name] = ps }

func defineParamsFilled(name string, ps ...BuiltinParam) {
	builtinParams[name] = ps
	builtinFillsDefaults[name] = true
}

// BuiltinFillsDefaults reports whether a call of name with fewer
// arguments than parameters takes the others' defaults.
func BuiltinFillsDefaults(name string) bool { return builtinFillsDefaults[strings.ToLower(name)] }

func param(name string, t Type) BuiltinParam { return BuiltinParam{Name: name, Type: t} }

func paramDef(name string, t Type, def string) BuiltinParam {
	return BuiltinParam{Name: name, Type: t, Default: def, HasDef: true}
}

// BuiltinParams returns the named parameters of a builtin, nil if its
// parameters have no names.
func BuiltinParams(name string) []BuiltinParam { return builtinParams[strings.ToLower(name)] }

func init() {
	defineParams("jsonb_set_lax", param("jsonb_in", JSONB), param("path", textArrayType), param("replacement", JSONB),
		paramDef("create_if_missing", Boolean, "true"), paramDef("null_value_treatment", Text, "use_json_null"))
	defineParams("jsonb_set", param("jsonb_in", JSONB), param("path", textArrayType), param("replacement", JSONB),
		paramDef("create_if_missing", Boolean, "true"))
	defineParamsFilled("make_interval", paramDef("years", Int4, "0"), paramDef("months", Int4, "0"), paramDef("weeks", Int4, "0"),
		paramDef("days", Int4, "0"), paramDef("hours", Int4, "0"), paramDef("mins", Int4, "0"), paramDef("secs", Float8, "0.0"))
	defineParams("jsonb_insert", param("jsonb_in", JSONB), param("path", textArrayType), param("replacement", JSONB),
		paramDef("insert_after", Boolean, "false"))
}

// variadicTextFuncs are the builtins declared with a trailing VARIADIC
// text[] parameter; minArgs is the number of arguments from which a call
// is read as the variadic form (jsonb_delete(j, 'a') is the text form).
var variadicTextFuncs = map[string]int{
	"json_extract_path": 2, "json_extract_path_text": 2,
	"jsonb_extract_path": 2, "jsonb_extract_path_text": 2,
	"jsonb_delete": 3,
}

// variadicTextCall resolves a call of a VARIADIC text[] builtin with its
// variadic arguments written out: they are collected into the array.
func variadicTextCall(lname string, in []Type) *Func {
	min, ok := variadicTextFuncs[lname]
	if !ok || len(in) < min {
		return nil
	}
	for _, t := range in[1:] {
		if t.OID != UnknownOID && !canCoerceArg(t, Text) {
			return nil
		}
	}
	var base *Func
	for _, c := range functions[lname] {
		if len(c.Args) == 2 && c.Args[1].OID == TextArrayOID && canCoerceArg(in[0], c.Args[0]) {
			if in[0].OID == c.Args[0].OID || base == nil {
				base = c
			}
		}
	}
	if base == nil || (len(in) == 2 && in[1].OID == TextArrayOID) {
		return nil
	}
	args := []Type{base.Args[0]}
	for range in[1:] {
		args = append(args, Text)
	}
	return &Func{Name: lname, Args: args, Ret: base.Ret, Fn: func(a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Datum{}, nil
		}
		return base.Fn([]Datum{a[0], Array(append([]Datum(nil), a[1:]...))})
	}}
}

