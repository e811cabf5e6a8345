package session

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/routine"
)

// routineObjectKind is what a DROP / ALTER names: FUNCTION, PROCEDURE or
// ROUTINE (either).
func routineObjectKind(t pg.ObjectType) (want byte, word string) {
	switch t {
	case pg.ObjectType_OBJECT_PROCEDURE:
		return catalog.ProcProcedure, "procedure"
	case pg.ObjectType_OBJECT_ROUTINE:
		return 0, "routine"
	}
	return catalog.ProcFunction, "function"
}

// lookupRoutine is LookupFuncWithArgs: the routine an ObjectWithArgs
// names — by name alone when it has no argument list (then it must be
// unique), else by its input argument types. A nil result with a nil
// error means it does not exist and missingOK asked for no error.
func (s *Session) lookupRoutine(c *exec.Ctx, owa *pg.ObjectWithArgs, objType pg.ObjectType, missingOK bool) (*catalog.Proc, string, error) {
	want, word := routineObjectKind(objType)
	schema, name, err := routine.QualifiedName(owa.Objname)
	if err != nil {
		return nil, "", err
	}
	nsps, err := s.eng.Catalog.SearchNamespaces(c.Tx, false)
	if err != nil {
		return nil, "", err
	}
	if schema != "" {
		o, err := s.routineNamespace(c, schema)
		if err != nil {
			return nil, "", err
		}
		nsps = []uint32{o}
	}
	procs, err := s.eng.Catalog.ProcsNamed(c.Tx, name, nsps)
	if err != nil {
		return nil, "", err
	}
	qname := name
	if schema != "" {
		qname = schema + "." + name
	}
	var found *catalog.Proc
	sig := qname + "()"
	if owa.ArgsUnspecified && want != 0 {
		// By name alone, only routines of the kind asked for count.
		var same []*catalog.Proc
		for _, p := range procs {
			if p.Kind == want || (want == catalog.ProcFunction && p.Kind != catalog.ProcProcedure) {
				same = append(same, p)
			}
		}
		procs = same
	}
	if owa.ArgsUnspecified {
		if len(procs) > 1 {
			return nil, "", pgerr.Errorf(pgerr.AmbiguousFunction, "%s name \"%s\" is not unique", word, qname).
				WithHint("Specify the argument list to select the %s unambiguously.", word)
		}
		if len(procs) == 1 {
			found = procs[0]
		} else if !missingOK {
			return nil, "", pgerr.Errorf(pgerr.UndefinedFunction, "could not find a %s named \"%s\"", word, qname)
		}
	} else {
		var oids []uint32
		var names, written []string
		for _, a := range owa.Objargs {
			tn := a.GetTypeName()
			t, err := exec.DeclType(c, tn)
			if err != nil {
				return nil, "", err
			}
			oids = append(oids, t.OID)
			names = append(names, t.BaseName())
			written = append(written, typeNameString(tn))
		}
		sig = qname + "(" + strings.Join(written, ", ") + ")"
		for _, p := range procs {
			if sameOids(p.ArgTypes, oids) {
				found = p
			}
		}
		if found == nil && !missingOK {
			return nil, "", pgerr.Errorf(pgerr.UndefinedFunction, "%s %s(%s) does not exist", word, qname, strings.Join(names, ", "))
		}
	}
	if found != nil && want != 0 && found.Kind != want {
		return nil, "", pgerr.Errorf(pgerr.WrongObjectType, "%s is not a %s", procSignature(found), word)
	}
	return found, sig, nil
}

// dropRoutines runs DROP FUNCTION / PROCEDURE / ROUTINE [IF EXISTS]
// name[(argtypes)] [, …] [CASCADE | RESTRICT].
func (s *Session) dropRoutines(c *exec.Ctx, ds *pg.DropStmt, w pgwire.ResultWriter) error {
	_, word := routineObjectKind(ds.RemoveType)
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockRoutines(c); err != nil {
		return err
	}
	var drop []*catalog.Proc
	for _, o := range ds.Objects {
		p, sig, err := s.lookupRoutine(c, o.GetObjectWithArgs(), ds.RemoveType, ds.MissingOk)
		if err != nil {
			return err
		}
		if p == nil {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "%s %s does not exist, skipping", word, sig))
			continue
		}
		if err := s.checkOwner(c, p); err != nil {
			return err
		}
		drop = append(drop, p)
	}
	for _, p := range drop {
		if err := s.dropProcTriggers(c, p, word, ds.Behavior == pg.DropBehavior_DROP_CASCADE, w); err != nil {
			return err
		}
		if err := s.eng.Catalog.DropProc(c.Tx, p); err != nil {
			return err
		}
	}
	return w.CommandComplete("DROP " + strings.ToUpper(word))
}

// alterFunction runs ALTER FUNCTION / PROCEDURE / ROUTINE … actions
// (volatility, [NOT] STRICT, SECURITY, [NOT] LEAKPROOF, COST, ROWS,
// PARALLEL, SET / RESET).
func (s *Session) alterFunction(c *exec.Ctx, st *pg.AlterFunctionStmt, w pgwire.ResultWriter) error {
	_, word := routineObjectKind(st.Objtype)
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockRoutines(c); err != nil {
		return err
	}
	p, _, err := s.lookupRoutine(c, st.Func, st.Objtype, false)
	if err != nil {
		return err
	}
	if err := s.checkOwner(c, p); err != nil {
		return err
	}
	np := *p
	if err := s.applyRoutineActions(&np, st.Actions, s.currentRoleIsSuper(c)); err != nil {
		return err
	}
	if err := s.eng.Catalog.ReplaceProc(c.Tx, p, &np); err != nil {
		return err
	}
	return w.CommandComplete("ALTER " + strings.ToUpper(word))
}

func (s *Session) applyRoutineActions(p *catalog.Proc, actions []*pg.Node, super bool) error {
	for _, a := range actions {
		de := a.GetDefElem()
		if de == nil {
			continue
		}
		switch de.Defname {
		case "volatility":
			switch de.Arg.GetString_().GetSval() {
			case "immutable":
				p.Volatile = catalog.VolatileImmutable
			case "stable":
				p.Volatile = catalog.VolatileStable
			default:
				p.Volatile = catalog.VolatileVolatile
			}
		case "strict":
			p.Strict = defElemBool(de)
		case "security":
			p.SecDef = defElemBool(de)
		case "leakproof":
			lp := defElemBool(de)
			if lp && !super {
				return pgerr.Errorf(pgerr.InsufficientPrivilege, "only superuser can define a leakproof function")
			}
			p.Leakproof = lp
		case "cost", "rows":
			v, err := defElemFloat(de)
			if err != nil {
				return err
			}
			if v <= 0 {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "%s must be positive", strings.ToUpper(de.Defname))
			}
			if de.Defname == "cost" {
				p.Cost = float32(v)
			} else {
				if !p.RetSet {
					return pgerr.Errorf(pgerr.InvalidParameterValue, "ROWS is not applicable when function does not return a set")
				}
				p.Rows = float32(v)
			}
		case "parallel":
			switch de.Arg.GetString_().GetSval() {
			case "safe":
				p.Parallel = catalog.ParallelSafe
			case "restricted":
				p.Parallel = catalog.ParallelRestricted
			case "unsafe":
				p.Parallel = catalog.ParallelUnsafe
			default:
				return pgerr.Errorf(pgerr.SyntaxError, "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE")
			}
		case "set":
			cfg, err := routine.AlterConfig(p.Config, de.Arg.GetVariableSetStmt())
			if err != nil {
				return err
			}
			if err := s.checkConfig(cfg); err != nil {
				return err
			}
			p.Config = cfg
		default:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "ALTER FUNCTION … %s is not supported yet", strings.ToUpper(de.Defname))
		}
	}
	return nil
}

func defElemBool(de *pg.DefElem) bool {
	if b := de.Arg.GetBoolean(); b != nil {
		return b.Boolval
	}
	if i := de.Arg.GetInteger(); i != nil {
		return i.Ival != 0
	}
	return true
}

func defElemFloat(de *pg.DefElem) (float64, error) {
	switch {
	case de.Arg.GetInteger() != nil:
		return float64(de.Arg.GetInteger().Ival), nil
	case de.Arg.GetFloat() != nil:
		return strconv.ParseFloat(de.Arg.GetFloat().Fval, 64)
	}
	return 0, pgerr.Errorf(pgerr.SyntaxError, "%s requires a numeric value", de.Defname)
}

// renameRoutine runs ALTER FUNCTION … RENAME TO.
func (s *Session) renameRoutine(c *exec.Ctx, rs *pg.RenameStmt, w pgwire.ResultWriter) error {
	_, word := routineObjectKind(rs.RenameType)
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockRoutines(c); err != nil {
		return err
	}
	p, _, err := s.lookupRoutine(c, rs.Object.GetObjectWithArgs(), rs.RenameType, false)
	if err != nil {
		return err
	}
	if err := s.checkOwner(c, p); err != nil {
		return err
	}
	if other, err := s.findRoutine(c, p.Namespace, rs.Newname, p.ArgTypes); err != nil {
		return err
	} else if other != nil {
		np := *p
		np.Name = rs.Newname
		return pgerr.Errorf(pgerr.DuplicateFunction, "%s %s already exists in schema \"%s\"", word, procSignature(&np), s.eng.Catalog.NamespaceName(p.Namespace))
	}
	np := *p
	np.Name = rs.Newname
	if err := s.eng.Catalog.ReplaceProc(c.Tx, p, &np); err != nil {
		return err
	}
	return w.CommandComplete("ALTER " + strings.ToUpper(word))
}

// alterRoutineOwner runs ALTER FUNCTION … OWNER TO.
func (s *Session) alterRoutineOwner(c *exec.Ctx, st *pg.AlterOwnerStmt, w pgwire.ResultWriter) error {
	_, word := routineObjectKind(st.ObjectType)
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockRoutines(c); err != nil {
		return err
	}
	p, _, err := s.lookupRoutine(c, st.Object.GetObjectWithArgs(), st.ObjectType, false)
	if err != nil {
		return err
	}
	if err := s.checkOwner(c, p); err != nil {
		return err
	}
	roleName := st.Newowner.GetRolename()
	switch st.Newowner.GetRoletype() {
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_SESSION_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		roleName = s.currentUser()
	}
	role, err := s.eng.Catalog.LookupRole(c.Tx, roleName)
	if err != nil {
		return err
	}
	if role == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", roleName)
	}
	np := *p
	np.Owner = role.OID
	if err := s.eng.Catalog.ReplaceProc(c.Tx, p, &np); err != nil {
		return err
	}
	return w.CommandComplete("ALTER " + strings.ToUpper(word))
}

// typeNameString is TypeNameToString: a type name as written (int is
// pg_catalog.int4), for the NOTICE of DROP … IF EXISTS.
func typeNameString(tn *pg.TypeName) string {
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	s := strings.Join(parts, ".")
	if tn.PctType {
		s += "%TYPE"
	}
	for range tn.ArrayBounds {
		s += "[]"
	}
	return s
}

func isRoutineObject(t pg.ObjectType) bool {
	return t == pg.ObjectType_OBJECT_FUNCTION || t == pg.ObjectType_OBJECT_PROCEDURE || t == pg.ObjectType_OBJECT_ROUTINE
}
