package session

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/access/sequence"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// seqTypeRange is the value range of a sequence's data type.
func seqTypeRange(oid uint32) (min, max int64) {
	switch oid {
	case types.Int2OID:
		return math.MinInt16, math.MaxInt16
	case types.Int4OID:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// seqOptions is a parsed list of sequence options (CREATE/ALTER SEQUENCE,
// an identity column's options): nil fields were not given.
type seqOptions struct {
	as                                *types.Type
	increment, min, max, start, cache *int64
	noMin, noMax                      bool
	restart                           *int64
	restartDefault                    bool
	cycle                             *bool
	ownedBy                           []string // nil: not given; ["none"]: OWNED BY NONE
	sequenceName                      []string // identity's SEQUENCE NAME
}

func defInt64(de *pg.DefElem) (int64, error) {
	switch {
	case de.Arg.GetInteger() != nil:
		return int64(de.Arg.GetInteger().Ival), nil
	case de.Arg.GetFloat() != nil:
		s := de.Arg.GetFloat().Fval
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type bigint", s)
		}
		return v, nil
	}
	return 0, pgerr.Errorf(pgerr.SyntaxError, "%s requires a numeric value", de.Defname)
}

func parseSeqOptions(list []*pg.Node, forIdentity bool) (*seqOptions, error) {
	o := &seqOptions{}
	seen := map[string]bool{}
	for _, n := range list {
		de := n.GetDefElem()
		if seen[de.Defname] {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "conflicting or redundant options")
		}
		seen[de.Defname] = true
		num := func(dst **int64) error {
			v, err := defInt64(de)
			*dst = &v
			return err
		}
		var err error
		switch de.Defname {
		case "as":
			t, terr := expr.TypeFromName(de.Arg.GetTypeName())
			if terr != nil {
				return nil, terr
			}
			if t.OID != types.Int2OID && t.OID != types.Int4OID && t.OID != types.Int8OID {
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
			o.as = &t
		case "increment":
			err = num(&o.increment)
		case "minvalue":
			if de.Arg == nil {
				o.noMin = true
			} else {
				err = num(&o.min)
			}
		case "maxvalue":
			if de.Arg == nil {
				o.noMax = true
			} else {
				err = num(&o.max)
			}
		case "start":
			err = num(&o.start)
		case "restart":
			if de.Arg == nil {
				o.restartDefault = true
			} else {
				err = num(&o.restart)
			}
		case "cache":
			err = num(&o.cache)
		case "cycle":
			b := de.Arg.GetBoolean().GetBoolval()
			o.cycle = &b
		case "owned_by":
			if forIdentity {
				return nil, pgerr.Errorf(pgerr.SyntaxError, "invalid sequence option OWNED BY")
			}
			for _, it := range de.Arg.GetList().GetItems() {
				o.ownedBy = append(o.ownedBy, it.GetString_().Sval)
			}
		case "sequence_name":
			if !forIdentity {
				return nil, pgerr.Errorf(pgerr.SyntaxError, "invalid sequence option SEQUENCE NAME")
			}
			for _, it := range de.Arg.GetList().GetItems() {
				o.sequenceName = append(o.sequenceName, it.GetString_().Sval)
			}
		default:
			return nil, pgerr.Errorf(pgerr.SyntaxError, "option \"%s\" not recognized", de.Defname)
		}
		if err != nil {
			return nil, err
		}
	}
	return o, nil
}

// apply works out a sequence's parameters from the options (init_params):
// old is the current state for ALTER, nil for CREATE. It returns the new
// parameters and, when the value must move (RESTART), the new value.
func (o *seqOptions) apply(old *catalog.SequenceInfo, lastValue int64) (catalog.SequenceInfo, *int64, error) {
	var info catalog.SequenceInfo
	isInit := old == nil
	if !isInit {
		info = *old
	} else {
		info.TypeOID = types.Int8OID
		info.Increment, info.Cache = 1, 1
	}
	oldMin, oldMax := seqTypeRange(info.TypeOID)
	resetMax, resetMin := false, false
	if o.as != nil {
		if !isInit {
			// A bound at the old type's limit follows the type.
			resetMax = (info.Increment > 0 && info.Max == oldMax) || (info.Increment < 0 && info.Max == -1)
			resetMin = (info.Increment > 0 && info.Min == 1) || (info.Increment < 0 && info.Min == oldMin)
		}
		info.TypeOID = o.as.OID
	}
	if o.increment != nil {
		if *o.increment == 0 {
			return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
		}
		info.Increment = *o.increment
	}
	if o.cycle != nil {
		info.Cycle = *o.cycle
	}
	typeName := map[uint32]string{types.Int2OID: "smallint", types.Int4OID: "integer", types.Int8OID: "bigint"}[info.TypeOID]
	tmin, tmax := seqTypeRange(info.TypeOID)
	switch {
	case o.max != nil:
		info.Max = *o.max
	case isInit || o.noMax || resetMax:
		if info.Increment > 0 {
			info.Max = tmax
		} else {
			info.Max = -1
		}
	}
	if info.Max < tmin || info.Max > tmax {
		return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", info.Max, typeName)
	}
	switch {
	case o.min != nil:
		info.Min = *o.min
	case isInit || o.noMin || resetMin:
		if info.Increment > 0 {
			info.Min = 1
		} else {
			info.Min = tmin
		}
	}
	if info.Min < tmin || info.Min > tmax {
		return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", info.Min, typeName)
	}
	if info.Min >= info.Max {
		return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", info.Min, info.Max)
	}
	switch {
	case o.start != nil:
		info.Start = *o.start
	case isInit:
		if info.Increment > 0 {
			info.Start = info.Min
		} else {
			info.Start = info.Max
		}
	}
	if info.Start < info.Min {
		return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", info.Start, info.Min)
	}
	if info.Start > info.Max {
		return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", info.Start, info.Max)
	}
	var restart *int64
	switch {
	case o.restart != nil:
		restart = o.restart
	case o.restartDefault:
		v := info.Start
		restart = &v
	}
	if !isInit {
		// RESTART, or the current value if the bounds moved, must fit.
		v := lastValue
		if restart != nil {
			v = *restart
		}
		if v < info.Min {
			return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", v, info.Min)
		}
		if v > info.Max {
			return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", v, info.Max)
		}
	}
	if o.cache != nil {
		if *o.cache <= 0 {
			return info, nil, pgerr.Errorf(pgerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", *o.cache)
		}
		info.Cache = *o.cache
	}
	return info, restart, nil
}

func (s *Session) createSequence(c *exec.Ctx, cs *pg.CreateSeqStmt, w pgwire.ResultWriter) error {
	rv := cs.Sequence
	if rv.Relpersistence == "u" {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "unlogged sequences are not supported yet")
	}
	nsp, err := s.namespaceFor(c, rv)
	if err != nil {
		return err
	}
	if existing, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname); err != nil {
		return err
	} else if existing != nil && existing.Namespace == nsp {
		if cs.IfNotExists {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateTable, "relation \"%s\" already exists, skipping", rv.Relname))
			return w.CommandComplete("CREATE SEQUENCE")
		}
		return pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname)
	}
	o, err := parseSeqOptions(cs.Options, false)
	if err != nil {
		return err
	}
	info, _, err := o.apply(nil, 0)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	oid, err := s.eng.Catalog.CreateSequence(c.Tx, nsp, rv.Relname, info)
	if err != nil {
		return err
	}
	if o.ownedBy != nil {
		if err := s.setOwnedBy(c, oid, nsp, o.ownedBy); err != nil {
			return err
		}
	}
	return w.CommandComplete("CREATE SEQUENCE")
}

// setOwnedBy records OWNED BY table.column (or NONE) for sequence seq.
func (s *Session) setOwnedBy(c *exec.Ctx, seq, seqNsp uint32, owned []string) error {
	if len(owned) == 1 && owned[0] == "none" {
		return s.eng.Catalog.SetSequenceOwner(c.Tx, seq, catalog.Owner{})
	}
	if len(owned) < 2 {
		return pgerr.Errorf(pgerr.SyntaxError, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	col := owned[len(owned)-1]
	tname := owned[len(owned)-2]
	schema := ""
	if len(owned) > 2 {
		schema = owned[len(owned)-3]
	}
	table, err := s.eng.Catalog.Lookup(c.Tx, schema, tname)
	if err != nil {
		return err
	}
	if table == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, tname))
	}
	if table.Kind != catalog.KindTable {
		return pgerr.Errorf(pgerr.WrongObjectType, "sequence cannot be owned by relation \"%s\"", table.Name).
			WithDetail("This operation is not supported for %s.", kindPlural(table.Kind))
	}
	if table.Namespace != seqNsp {
		return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
	}
	i := table.AttrByName(col)
	if i < 0 {
		return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, table.Name)
	}
	return s.eng.Catalog.SetSequenceOwner(c.Tx, seq, catalog.Owner{Table: table.OID, Attnum: table.Attrs[i].Num, DepType: catalog.DepAuto})
}

func kindPlural(k byte) string {
	switch k {
	case catalog.KindIndex:
		return "indexes"
	case catalog.KindSequence:
		return "sequences"
	case catalog.KindView:
		return "views"
	}
	return "tables"
}

func (s *Session) alterSequence(c *exec.Ctx, as *pg.AlterSeqStmt, w pgwire.ResultWriter) error {
	rv := as.Sequence
	seq, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname)
	if err != nil {
		return err
	}
	if seq == nil {
		if as.MissingOk {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedTable, "relation \"%s\" does not exist, skipping", rv.Relname))
			return w.CommandComplete("ALTER SEQUENCE")
		}
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname))
	}
	if seq.Kind != catalog.KindSequence || seq.Seq == nil {
		return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a sequence", seq.Name)
	}
	if err := s.lockRel(c, seq.OID, xact.ShareRowExclusiveLock); err != nil {
		return err
	}
	o, err := parseSeqOptions(as.Options, false)
	if err != nil {
		return err
	}
	rel := s.eng.Catalog.SeqRel(seq)
	cur, err := sequence.Read(c.U(), rel)
	if err != nil {
		return err
	}
	info, restart, err := o.apply(seq.Seq, cur.LastValue)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.eng.Catalog.UpdateSequence(c.Tx, seq.OID, info); err != nil {
		return err
	}
	if restart != nil {
		if err := s.eng.Catalog.ResetSequence(c.Tx, seq, sequence.State{LastValue: *restart}); err != nil {
			return err
		}
	}
	s.seqs.Forget(seq.OID)
	if o.ownedBy != nil {
		if err := s.setOwnedBy(c, seq.OID, seq.Namespace, o.ownedBy); err != nil {
			return err
		}
	}
	return w.CommandComplete("ALTER SEQUENCE")
}

// checkSequenceDrop refuses to drop a sequence a column still needs: an
// identity column's, or one a column default calls. With CASCADE the
// defaults go instead (the notice lists them).
func (s *Session) checkSequenceDrop(c *exec.Ctx, seq *catalog.Relation, cascade bool) error {
	owner, ok, err := s.eng.Catalog.SequenceOwner(c.Tx, seq.OID)
	if err != nil {
		return err
	}
	if ok && owner.DepType == catalog.DepInternal {
		table, err := s.eng.Catalog.ByOID(c.Tx, owner.Table)
		if err != nil || table == nil {
			return err
		}
		colName := ""
		for _, a := range table.Attrs {
			if a.Num == owner.Attnum {
				colName = a.Name
			}
		}
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", seq.Name, colName, table.Name).
			WithHint("You can drop column %s of table %s instead.", colName, table.Name)
	}
	uses, err := s.sequenceDefaults(c, seq)
	if err != nil || len(uses) == 0 {
		return err
	}
	var lines []string
	for _, u := range uses {
		lines = append(lines, u.String())
	}
	if !cascade {
		for i := range lines {
			lines[i] += " depends on sequence " + seq.Name
		}
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", seq.Name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, u := range uses {
		if err := s.lockRel(c, u.table.OID, xact.AccessExclusiveLock); err != nil {
			return err
		}
		if err := s.assignXid(c); err != nil {
			return err
		}
		if err := s.eng.Catalog.DropDefault(c.Tx, u.table.OID, u.attr.Num); err != nil {
			return err
		}
	}
	if len(lines) == 1 {
		c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to %s", lines[0]))
	} else {
		for i := range lines {
			lines[i] = "drop cascades to " + lines[i]
		}
		n := pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(lines))
		n.Detail = strings.Join(lines, "\n")
		c.Notice(n)
	}
	return nil
}

// columnSequence is a sequence CREATE TABLE makes for a serial or
// identity column.
type columnSequence struct {
	attnum   int16 // the column's number
	name     string
	opts     *seqOptions
	identity bool
}

// serialType recognises the serial pseudo-types.
func serialType(tn *pg.TypeName) (types.Type, bool) {
	if tn == nil || len(tn.Names) != 1 || len(tn.ArrayBounds) > 0 {
		return types.Type{}, false
	}
	switch tn.Names[0].GetString_().GetSval() {
	case "smallserial", "serial2":
		return types.Int2, true
	case "serial", "serial4":
		return types.Int4, true
	case "bigserial", "serial8":
		return types.Int8, true
	}
	return types.Type{}, false
}

// chooseSequenceName is ChooseRelationName(table, column, "seq"): the
// name truncated to fit NAMEDATALEN, made unique with a number.
func (s *Session) chooseSequenceName(c *exec.Ctx, nsp uint32, table, column string, taken map[string]bool) string {
	for i := 0; ; i++ {
		suffix := "seq"
		if i > 0 {
			suffix += strconv.Itoa(i)
		}
		t, col := table, column
		for len(t)+len(col)+len(suffix)+2 > 63 {
			if len(t) > len(col) {
				t = t[:len(t)-1]
			} else {
				col = col[:len(col)-1]
			}
		}
		name := t + "_" + col + "_" + suffix
		if taken[name] {
			continue
		}
		if r, err := s.eng.Catalog.Lookup(c.Tx, "", name); err == nil && r == nil {
			taken[name] = true
			return name
		}
	}
}

// columnSequenceFor handles a serial type or an identity constraint on a
// column being defined: it returns the sequence the column needs (nil if
// none) after adjusting the column.
func (s *Session) columnSequenceFor(c *exec.Ctx, nsp uint32, table string, attnum int16, a *catalog.Attr, serial bool, identity *pg.Constraint, taken map[string]bool) (*columnSequence, error) {
	if !serial && identity == nil {
		return nil, nil
	}
	if identity != nil && (a.HasDefault || serial) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", a.Name, table)
	}
	if serial && a.HasDefault {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", a.Name, table)
	}
	if a.Type.OID != types.Int2OID && a.Type.OID != types.Int4OID && a.Type.OID != types.Int8OID {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	cs := &columnSequence{attnum: attnum, opts: &seqOptions{}}
	if identity != nil {
		o, err := parseSeqOptions(identity.Options, true)
		if err != nil {
			return nil, err
		}
		cs.opts, cs.identity = o, true
		a.Identity = catalog.IdentityByDefault
		if identity.GeneratedWhen == "a" {
			a.Identity = catalog.IdentityAlways
		}
	}
	t := a.Type
	cs.opts.as = &t
	if n := cs.opts.sequenceName; len(n) > 0 {
		cs.name = n[len(n)-1]
	} else {
		cs.name = s.chooseSequenceName(c, nsp, table, a.Name, taken)
	}
	a.NotNull = true
	if serial {
		text, err := s.eng.Catalog.RegclassText(c.Tx, nsp, cs.name)
		if err != nil {
			return nil, err
		}
		a.HasDefault = true
		a.Default = "nextval('" + text + "'::regclass)"
	}
	return cs, nil
}

// createColumnSequences makes the sequences of a new table's serial and
// identity columns and ties each to its column.
func (s *Session) createColumnSequences(c *exec.Ctx, nsp, table uint32, seqs []*columnSequence) error {
	for _, cs := range seqs {
		info, _, err := cs.opts.apply(nil, 0)
		if err != nil {
			return err
		}
		oid, err := s.eng.Catalog.CreateSequence(c.Tx, nsp, cs.name, info)
		if err != nil {
			return err
		}
		dep := byte(catalog.DepAuto)
		if cs.identity {
			dep = catalog.DepInternal
		}
		if err := s.eng.Catalog.SetSequenceOwner(c.Tx, oid, catalog.Owner{Table: table, Attnum: cs.attnum, DepType: dep}); err != nil {
			return err
		}
	}
	return nil
}

// restartOwnedSequences is TRUNCATE … RESTART IDENTITY for one table: its
// columns' sequences start over.
func (s *Session) restartOwnedSequences(c *exec.Ctx, table *catalog.Relation) error {
	owned, err := s.eng.Catalog.OwnedSequences(c.Tx, table.OID)
	if err != nil {
		return err
	}
	for oid := range owned {
		if err := s.lockRel(c, oid, xact.AccessExclusiveLock); err != nil {
			return err
		}
		seq, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil {
			return err
		}
		if seq == nil || seq.Seq == nil {
			continue
		}
		if err := s.eng.Catalog.ResetSequence(c.Tx, seq, sequence.State{LastValue: seq.Seq.Start}); err != nil {
			return err
		}
	}
	return nil
}

// castSequenceArgs makes the string argument of nextval/currval/setval in
// a column default an explicit regclass constant, so the stored default
// reads as PostgreSQL's does (nextval('s'::regclass)) and DROP SEQUENCE
// can find the defaults that use a sequence.
func castSequenceArgs(n *pg.Node) {
	if n == nil {
		return
	}
	switch {
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		name := fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
		if (name == "nextval" || name == "currval" || name == "setval") && len(fc.Args) > 0 {
			if ac := fc.Args[0].GetAConst(); ac != nil && ac.GetSval() != nil {
				fc.Args[0] = &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{
					Arg:      fc.Args[0],
					TypeName: &pg.TypeName{Names: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: "regclass"}}}}, Typemod: -1},
					Location: -1,
				}}}
			}
		}
		for _, a := range fc.Args {
			castSequenceArgs(a)
		}
	case n.GetTypeCast() != nil:
		castSequenceArgs(n.GetTypeCast().Arg)
	case n.GetAExpr() != nil:
		castSequenceArgs(n.GetAExpr().Lexpr)
		castSequenceArgs(n.GetAExpr().Rexpr)
	case n.GetCoalesceExpr() != nil:
		for _, a := range n.GetCoalesceExpr().Args {
			castSequenceArgs(a)
		}
	}
}

// sequenceDefaults finds the column defaults that call a sequence
// function on seq: "default value for column c of table t" each.
func (s *Session) sequenceDefaults(c *exec.Ctx, seq *catalog.Relation) ([]defaultUse, error) {
	tables, err := s.eng.Catalog.UserTables(c.Tx)
	if err != nil {
		return nil, err
	}
	lits, err := s.eng.Catalog.RegclassLiterals(c.Tx, seq.Namespace, seq.Name)
	if err != nil {
		return nil, err
	}
	var out []defaultUse
	for _, t := range tables {
		for _, a := range t.Attrs {
			if a.Identity != 0 || !a.HasDefault {
				continue
			}
			for _, lit := range lits {
				if strings.Contains(a.Default, lit) {
					out = append(out, defaultUse{table: t, attr: a})
					break
				}
			}
		}
	}
	return out, nil
}

type defaultUse struct {
	table *catalog.Relation
	attr  catalog.Attr
}

func (d defaultUse) String() string {
	return fmt.Sprintf("default value for column %s of table %s", d.attr.Name, d.table.Name)
}

// lockOwnedSequences takes the locks that dropping table's owned
// sequences along with it needs, so no session is inside nextval of one.
func (s *Session) lockOwnedSequences(c *exec.Ctx, table *catalog.Relation) error {
	if table.Kind != catalog.KindTable {
		return nil
	}
	owned, err := s.eng.Catalog.OwnedSequences(c.Tx, table.OID)
	if err != nil {
		return err
	}
	for oid := range owned {
		if err := s.lockRel(c, oid, xact.AccessExclusiveLock); err != nil {
			return err
		}
	}
	return nil
}

// skipSequence reports whether VACUUM or ANALYZE was given a sequence
// (err is OpenRelation's refusal), warning as PostgreSQL does.
func (s *Session) skipSequence(c *exec.Ctx, rv *pg.RangeVar, err error, vacuum bool, w pgwire.ResultWriter) bool {
	if pgerr.Code(err) != pgerr.WrongObjectType {
		return false
	}
	rel, lerr := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname)
	if lerr != nil || rel == nil || rel.Kind != catalog.KindSequence {
		return false
	}
	what := "analyze"
	if vacuum {
		what = "vacuum"
	}
	w.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.Warning, "skipping \"%s\" --- cannot %s non-tables or special system tables", rel.Name, what))
	return true
}
