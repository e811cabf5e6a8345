package session

// CREATE [OR REPLACE] FUNCTION / PROCEDURE, DROP FUNCTION / PROCEDURE /
// ROUTINE, ALTER FUNCTION: the pg_proc side of routines (what a call
// does is internal/sql/exec's routine.go and sqlfunc.go; see
// internal/sql/routine/README.md).

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// lockRoutines serializes routine DDL (pg_proc has no unique index to
// make a concurrent CREATE of the same function wait): the lock is held
// to the end of the transaction, and the catalog is read afterwards with
// a fresh catalog snapshot.
func (s *Session) lockRoutines(c *exec.Ctx) error {
	return s.lockRel(c, catalog.PgProcRelID, xact.ShareRowExclusiveLock)
}

// routineNamespace is the namespace a routine named schema.name goes
// into: public unless qualified; pg_temp is the session's temporary
// namespace.
func (s *Session) routineNamespace(c *exec.Ctx, schema string) (uint32, error) {
	switch schema {
	case "":
		return s.creationNamespace(c)
	case "pg_temp":
		return s.tempNamespace(c)
	}
	return s.eng.Catalog.NamespaceOID(c.Tx, schema)
}

func (s *Session) currentRoleOID(c *exec.Ctx) uint32 {
	if r, err := s.eng.Catalog.LookupRole(c.Tx, s.currentUser()); err == nil && r != nil {
		return r.OID
	}
	return catalog.BootstrapSuperuserID
}

// currentRoleIsSuper: the current role (after SET SESSION
// AUTHORIZATION) is a superuser.
func (s *Session) currentRoleIsSuper(c *exec.Ctx) bool {
	if r, err := s.eng.Catalog.LookupRole(c.Tx, s.currentUser()); err == nil && r != nil {
		return r.Super
	}
	return s.isSuperuser()
}

func routineKindWord(kind byte) string {
	if kind == catalog.ProcProcedure {
		return "procedure"
	}
	return "function"
}

// findRoutine is the routine of namespace nsp with this name and these
// input argument types, or nil.
func (s *Session) findRoutine(c *exec.Ctx, nsp uint32, name string, argTypes []uint32) (*catalog.Proc, error) {
	procs, err := s.eng.Catalog.ProcsNamed(c.Tx, name, []uint32{nsp})
	if err != nil {
		return nil, err
	}
	for _, p := range procs {
		if sameOids(p.ArgTypes, argTypes) {
			return p, nil
		}
	}
	return nil, nil
}

func sameOids(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// createFunction runs CREATE [OR REPLACE] FUNCTION / PROCEDURE: the
// pg_proc row is written first, then the language validates the body
// (so a recursive body finds the routine); an error rolls both back with
// the statement.
func (s *Session) createFunction(c *exec.Ctx, st *pg.CreateFunctionStmt, w pgwire.ResultWriter) error {
	def, err := routine.Define(st, func(tn *pg.TypeName) (types.Type, error) { return exec.DeclType(c, tn) })
	if err != nil {
		return err
	}
	def.Text = s.queryString
	p := &def.Proc
	lang, err := exec.LanguageOf(p)
	if err != nil {
		return err
	}
	if p.Namespace, err = s.routineNamespace(c, def.Schema); err != nil {
		return err
	}
	if p.Leakproof && !s.currentRoleIsSuper(c) {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "only superuser can define a leakproof function")
	}
	p.Owner = s.currentRoleOID(c)
	if err := s.checkConfig(p.Config); err != nil {
		return err
	}
	for i, d := range def.Defaults {
		txt, err := exec.ArgDefaultText(c, d, def.DefaultTypes[i])
		if err != nil {
			return err
		}
		p.ArgDefaults = append(p.ArgDefaults, txt)
	}
	if def.Body != nil {
		if p.SQLBody, err = exec.SQLBodyText(def.Body); err != nil {
			return err
		}
	}
	if err := s.storeRoutine(c, def); err != nil {
		return err
	}
	if err := lang.Validate(c, p, def, s.Setting("check_function_bodies") != "off"); err != nil {
		return err
	}
	return w.CommandComplete("CREATE " + strings.ToUpper(routineKindWord(p.Kind)))
}

// storeRoutine writes the new routine, or replaces the existing one of
// the same signature after PostgreSQL's checks (ProcedureCreate).
func (s *Session) storeRoutine(c *exec.Ctx, def *routine.Definition) error {
	p := &def.Proc
	if err := s.requireLanguageUsage(c, p.Lang); err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockRoutines(c); err != nil {
		return err
	}
	old, err := s.findRoutine(c, p.Namespace, p.Name, p.ArgTypes)
	if err != nil {
		return err
	}
	if old == nil {
		return s.eng.Catalog.CreateProc(c.Tx, p)
	}
	if !def.Replace {
		return pgerr.Errorf(pgerr.DuplicateFunction, "%s \"%s\" already exists with same argument types", routineKindWord(p.Kind), p.Name)
	}
	if err := s.checkOwner(c, old); err != nil {
		return err
	}
	if err := checkReplace(old, p); err != nil {
		return err
	}
	p.Owner = old.Owner
	return s.eng.Catalog.ReplaceProc(c.Tx, old, p)
}

// checkReplace refuses the changes CREATE OR REPLACE may not make.
func checkReplace(old, p *catalog.Proc) error {
	if old.Kind != p.Kind {
		e := pgerr.Errorf(pgerr.WrongObjectType, "cannot change routine kind")
		switch old.Kind {
		case catalog.ProcProcedure:
			e.WithDetail("\"%s\" is a procedure.", old.Name)
		case catalog.ProcAggregate:
			e.WithDetail("\"%s\" is an aggregate function.", old.Name)
		default:
			e.WithDetail("\"%s\" is a function.", old.Name)
		}
		return e
	}
	dropCmd := "DROP FUNCTION"
	if p.Kind == catalog.ProcProcedure {
		dropCmd = "DROP PROCEDURE"
	}
	hint := func(e *pgerr.Error) *pgerr.Error {
		return e.WithHint("Use %s %s first.", dropCmd, formatProcedure(old))
	}
	if old.RetType != p.RetType || old.RetSet != p.RetSet {
		msg := "cannot change return type of existing function"
		if p.Kind == catalog.ProcProcedure {
			msg = "cannot change whether a procedure has output parameters"
		}
		return hint(pgerr.Errorf(pgerr.InvalidFunctionDefinition, "%s", msg))
	}
	if p.RetType == types.RecordOID && !sameOutputs(old, p) {
		return hint(pgerr.Errorf(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").
			WithDetail("Row type defined by OUT parameters is different."))
	}
	oldNames, newNames := old.InputArgNames(), p.InputArgNames()
	for i, n := range oldNames {
		if n != "" && (i >= len(newNames) || newNames[i] != n) {
			return hint(pgerr.Errorf(pgerr.InvalidFunctionDefinition, "cannot change name of input parameter \"%s\"", n))
		}
	}
	if len(p.ArgDefaults) < len(old.ArgDefaults) {
		return hint(pgerr.Errorf(pgerr.InvalidFunctionDefinition, "cannot remove parameter defaults from existing function"))
	}
	return nil
}

// sameOutputs compares the row types two routines' OUT parameters
// define (names and types).
func sameOutputs(a, b *catalog.Proc) bool {
	oa, ob := a.OutputArgs(), b.OutputArgs()
	if len(oa) != len(ob) {
		return false
	}
	for k := range oa {
		if a.AllArgTypes[oa[k]] != b.AllArgTypes[ob[k]] || argName(a, oa[k]) != argName(b, ob[k]) {
			return false
		}
	}
	return true
}

func argName(p *catalog.Proc, i int) string {
	if i < len(p.ArgNames) {
		return p.ArgNames[i]
	}
	return ""
}

// procSignature is func_signature_string: name(argument types).
func procSignature(p *catalog.Proc) string { return signature(p, ", ") }

// formatProcedure is format_procedure: name(argument types), the types
// separated by bare commas.
func formatProcedure(p *catalog.Proc) string { return signature(p, ",") }

func signature(p *catalog.Proc, sep string) string {
	parts := make([]string, len(p.ArgTypes))
	for i, t := range p.ArgTypes {
		parts[i] = types.Type{OID: t, Typmod: -1}.BaseName()
	}
	return types.QuoteIdent(p.Name) + "(" + strings.Join(parts, sep) + ")"
}

// checkOwner refuses to change a routine the current role does not own
// (superusers own everything).
func (s *Session) checkOwner(c *exec.Ctx, p *catalog.Proc) error {
	if s.currentRoleIsSuper(c) || p.Owner == s.currentRoleOID(c) {
		return nil
	}
	return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be owner of %s %s", routineKindWord(p.Kind), p.Name)
}

// checkConfig validates the settings of SET clauses.
func (s *Session) checkConfig(cfg []string) error {
	for _, item := range cfg {
		name, value, _ := strings.Cut(item, "=")
		d, err := guc.Lookup(name)
		if err != nil {
			return err
		}
		if _, err := d.Normalize(value); err != nil {
			return err
		}
	}
	return nil
}
