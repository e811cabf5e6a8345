package catalog

import (
	"github.com/tidal-db/tidal/internal/acl"
	"slices"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// PostgreSQL's OIDs of the function and language catalogs and of the
// languages initdb creates (plpgsql's is PostgreSQL 15's as its extension
// installs it).
const (
	PgProcRelID     = 1255
	PgLanguageRelID = 2612

	LangInternal = 12
	LangC        = 13
	LangSQL      = 14
	LangPLpgSQL  = 13563
)

// Routine kinds (pg_proc.prokind), volatility (provolatile), parallel
// safety (proparallel) and argument modes (proargmodes): PostgreSQL's
// letters.
const (
	ProcFunction  = 'f'
	ProcProcedure = 'p'
	ProcAggregate = 'a'
	ProcWindow    = 'w'

	VolatileImmutable = 'i'
	VolatileStable    = 's'
	VolatileVolatile  = 'v'

	ParallelSafe       = 's'
	ParallelRestricted = 'r'
	ParallelUnsafe     = 'u'

	ArgIn       = 'i'
	ArgOut      = 'o'
	ArgInOut    = 'b'
	ArgVariadic = 'v'
	ArgTable    = 't'
)

// PgProc holds functions and procedures with PostgreSQL's columns and
// types, except: proargtypes (an oidvector) is text in oidvector's text
// form ("23 25"); proargdefaults and prosqlbody (node trees) are text —
// proargdefaults an array literal of the default expressions as SQL text,
// already coerced to the argument types (e.g. {1,"'x'::text"}),
// prosqlbody the SQL text of a BEGIN ATOMIC or RETURN body; proacl
// (aclitem[]) is a text[], always NULL. Array columns are stored in their
// text form (types' encArrayText).
var PgProc = &TableDef{PgProcRelID, "pg_proc", []Column{
	col("oid", tOid), col("proname", tName), col("pronamespace", tOid), col("proowner", tOid),
	col("prolang", tOid), col("procost", tFlt4), col("prorows", tFlt4), col("provariadic", tOid),
	col("prosupport", tOid), col("prokind", tChar), col("prosecdef", tBool), col("proleakproof", tBool),
	col("proisstrict", tBool), col("proretset", tBool), col("provolatile", tChar), col("proparallel", tChar),
	col("pronargs", tInt2), col("pronargdefaults", tInt2), col("prorettype", tOid), col("proargtypes", tText),
	col("proallargtypes", oidArrayT), col("proargmodes", charArrayT), col("proargnames", textArrayT), col("proargdefaults", tText),
	col("protrftypes", oidArrayT), col("prosrc", tText), col("probin", tText), col("prosqlbody", tText),
	col("proconfig", textArrayT), col("proacl", textArrayT),
}}

// PgLanguage holds the procedural languages: fixed rows (initdb's, with
// plpgsql as its extension installs it).
var PgLanguage = &TableDef{PgLanguageRelID, "pg_language", []Column{
	col("oid", tOid), col("lanname", tName), col("lanowner", tOid), col("lanispl", tBool),
	col("lanpltrusted", tBool), col("lanplcallfoid", tOid), col("laninline", tOid), col("lanvalidator", tOid),
	col("lanacl", tTextArr),
}}

// Language is a row of pg_language.
type Language struct {
	OID     uint32
	Name    string
	PL      bool // lanispl
	Trusted bool
	// Call, Inline and Validator are the handler functions' OIDs.
	Call, Inline, Validator uint32
}

// BootstrapLanguages are the rows of pg_language.
var BootstrapLanguages = []Language{
	{OID: LangInternal, Name: "internal", Validator: 2246},
	{OID: LangC, Name: "c", Validator: 2247},
	{OID: LangSQL, Name: "sql", Trusted: true, Validator: 2248},
	{OID: LangPLpgSQL, Name: "plpgsql", PL: true, Trusted: true, Call: 13560, Inline: 13561, Validator: 13562},
}

func (l *Language) row() []types.Datum {
	return []types.Datum{ov(l.OID), types.Str(l.Name), ov(BootstrapSuperuserID), bv(l.PL),
		bv(l.Trusted), ov(l.Call), ov(l.Inline), ov(l.Validator), types.Null()}
}

func (c *Catalog) insertBootstrapLanguages(tx *Txn) error {
	for i := range BootstrapLanguages {
		if _, err := c.insert(tx, PgLanguage, BootstrapLanguages[i].row()); err != nil {
			return err
		}
	}
	return nil
}

// LanguageByName finds a language (nil when there is none). The set is
// fixed, so it is not read from pg_language.
func LanguageByName(name string) *Language {
	for i := range BootstrapLanguages {
		if BootstrapLanguages[i].Name == name {
			return &BootstrapLanguages[i]
		}
	}
	return nil
}

// LanguageByOID finds a language by OID (nil when there is none).
func LanguageByOID(oid uint32) *Language {
	for i := range BootstrapLanguages {
		if BootstrapLanguages[i].OID == oid {
			return &BootstrapLanguages[i]
		}
	}
	return nil
}

// Proc is a row of pg_proc: a function or procedure.
type Proc struct {
	OID       uint32
	Name      string
	Namespace uint32
	Owner     uint32
	Lang      uint32
	Cost      float32
	Rows      float32
	// Variadic is provariadic: the element type of a VARIADIC argument
	// (or "any"), 0 without one.
	Variadic  uint32
	Kind      byte
	SecDef    bool
	Leakproof bool
	Strict    bool
	RetSet    bool
	Volatile  byte
	Parallel  byte
	RetType   uint32
	// ArgTypes are the input arguments (modes IN, INOUT, VARIADIC):
	// proargtypes. AllArgTypes, ArgModes and ArgNames cover every
	// argument, OUT and TABLE ones included; AllArgTypes and ArgModes are
	// nil when all arguments are IN, ArgNames when none has a name.
	ArgTypes    []uint32
	AllArgTypes []uint32
	ArgModes    []byte
	ArgNames    []string
	// ArgDefaults are the default expressions (SQL text) of the last
	// len(ArgDefaults) input arguments.
	ArgDefaults []string
	Src         string // prosrc: the body text
	SQLBody     string // prosqlbody: a BEGIN ATOMIC body, "" if none
	HasSQLBody  bool
	Config      []string // proconfig: SET clauses as name=value
	ACL         acl.ACL  // proacl (nil: NULL, the default)

	tid page.ItemPointer
}

// InputArgNames are the names of the input arguments ("" for an unnamed
// one), in order; nil when no argument has a name.
func (p *Proc) InputArgNames() []string {
	if p.ArgNames == nil {
		return nil
	}
	if p.ArgModes == nil {
		return p.ArgNames
	}
	var out []string
	for i, m := range p.ArgModes {
		if IsInputMode(m) && i < len(p.ArgNames) {
			out = append(out, p.ArgNames[i])
		}
	}
	return out
}

// IsInputMode reports whether an argument of mode m is passed by the
// caller (IN, INOUT, VARIADIC).
func IsInputMode(m byte) bool { return m == ArgIn || m == ArgInOut || m == ArgVariadic }

// OutputArgs lists the positions (in AllArgTypes order) of the output
// arguments: OUT, INOUT and TABLE ones.
func (p *Proc) OutputArgs() []int {
	var out []int
	for i, m := range p.ArgModes {
		if m == ArgOut || m == ArgInOut || m == ArgTable {
			out = append(out, i)
		}
	}
	return out
}

var (
	oidArrayT, _  = types.ArrayOf(types.Oid)
	textArrayT, _ = types.ArrayOf(types.Text)
	charArrayT, _ = types.ArrayOf(types.Char)
)

func oidVectorText(oids []uint32) types.Datum {
	parts := make([]string, len(oids))
	for i, o := range oids {
		parts[i] = strconv.FormatUint(uint64(o), 10)
	}
	return types.Str(strings.Join(parts, " "))
}

func parseOidVector(d types.Datum) []uint32 {
	var out []uint32
	for _, f := range strings.Fields(d.Str()) {
		n, _ := strconv.ParseUint(f, 10, 32)
		out = append(out, uint32(n))
	}
	return out
}

func oidArray(oids []uint32) types.Datum {
	if oids == nil {
		return types.Null()
	}
	el := make([]types.Datum, len(oids))
	for i, o := range oids {
		el[i] = ov(o)
	}
	return types.Array(el)
}

func textArray(ss []string) types.Datum {
	if ss == nil {
		return types.Null()
	}
	el := make([]types.Datum, len(ss))
	for i, s := range ss {
		el[i] = types.Str(s)
	}
	return types.Array(el)
}

// textArrayText is a text column holding an array literal (proargdefaults).
func textArrayText(ss []string) types.Datum {
	if ss == nil {
		return types.Null()
	}
	return types.Str(types.FormatText(textArrayT, textArray(ss)))
}

func modesArray(ms []byte) types.Datum {
	if ms == nil {
		return types.Null()
	}
	el := make([]types.Datum, len(ms))
	for i, m := range ms {
		el[i] = cv(m)
	}
	return types.Array(el)
}

// arrayElems are the elements of an array column's value (nil for NULL).
func arrayElems(d types.Datum) []types.Datum {
	if d.IsNull() {
		return nil
	}
	el := d.Elems()
	if el == nil {
		el = []types.Datum{}
	}
	return el
}

// parseTextArrayText reads a text column holding an array literal.
func parseTextArrayText(d types.Datum) []string {
	if d.IsNull() {
		return nil
	}
	a, err := types.Parse(textArrayT, d.Str())
	if err != nil {
		return nil
	}
	return parseTextArray(a)
}

func parseOidArray(d types.Datum) []uint32 {
	el := arrayElems(d)
	if el == nil {
		return nil
	}
	out := make([]uint32, len(el))
	for i, e := range el {
		out[i] = uint32(e.Int())
	}
	return out
}

func parseTextArray(d types.Datum) []string {
	el := arrayElems(d)
	if el == nil {
		return nil
	}
	out := make([]string, len(el))
	for i, e := range el {
		out[i] = e.Str()
	}
	return out
}

func parseModes(d types.Datum) []byte {
	el := arrayElems(d)
	if el == nil {
		return nil
	}
	out := make([]byte, len(el))
	for i, e := range el {
		out[i] = byte(e.Int())
	}
	return out
}

func nullableText(s string, present bool) types.Datum {
	if !present {
		return types.Null()
	}
	return types.Str(s)
}

func (p *Proc) row() []types.Datum {
	return []types.Datum{
		ov(p.OID), types.Str(p.Name), ov(p.Namespace), ov(p.Owner),
		ov(p.Lang), types.Float(float64(p.Cost)), types.Float(float64(p.Rows)), ov(p.Variadic),
		ov(0), cv(p.Kind), bv(p.SecDef), bv(p.Leakproof),
		bv(p.Strict), bv(p.RetSet), cv(p.Volatile), cv(p.Parallel),
		iv(int64(len(p.ArgTypes))), iv(int64(len(p.ArgDefaults))), ov(p.RetType), oidVectorText(p.ArgTypes),
		oidArray(p.AllArgTypes), modesArray(p.ArgModes), textArray(p.ArgNames), textArrayText(p.ArgDefaults),
		types.Null(), types.Str(p.Src), types.Null(), nullableText(p.SQLBody, p.HasSQLBody),
		textArray(p.Config), aclDatum(p.ACL),
	}
}

func procFromRow(v []types.Datum, tid page.ItemPointer) *Proc {
	p := &Proc{
		OID: uint32(v[0].Int()), Name: v[1].Str(), Namespace: uint32(v[2].Int()), Owner: uint32(v[3].Int()),
		Lang: uint32(v[4].Int()), Cost: float32(v[5].Float()), Rows: float32(v[6].Float()), Variadic: uint32(v[7].Int()),
		Kind: byte(v[9].Int()), SecDef: v[10].Bool(), Leakproof: v[11].Bool(),
		Strict: v[12].Bool(), RetSet: v[13].Bool(), Volatile: byte(v[14].Int()), Parallel: byte(v[15].Int()),
		RetType: uint32(v[18].Int()), ArgTypes: parseOidVector(v[19]),
		AllArgTypes: parseOidArray(v[20]), ArgModes: parseModes(v[21]), ArgNames: parseTextArray(v[22]),
		ArgDefaults: parseTextArrayText(v[23]), Src: v[25].Str(), SQLBody: v[27].Str(), HasSQLBody: !v[27].IsNull(),
		Config: parseTextArray(v[28]), ACL: aclFromDatum(v[29]), tid: tid,
	}
	if len(p.ArgDefaults) == 0 {
		p.ArgDefaults = nil
	}
	return p
}

// Procs lists the functions and procedures for which keep is true (all
// with a nil keep), in OID order.
func (c *Catalog) Procs(tx *Txn, keep func(name string, nsp uint32) bool) ([]*Proc, error) {
	var out []*Proc
	err := c.scan(tx, PgProc, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if keep == nil || keep(v[1].Str(), uint32(v[2].Int())) {
			out = append(out, procFromRow(v, tid))
		}
		return true, nil
	})
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].OID < out[j-1].OID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, err
}

// ProcsNamed lists the routines called name in the namespaces of nsps
// (every namespace when nsps is nil). The committed state is cached per
// catalog version, as relations are, because every function call that
// is not a builtin asks.
func (c *Catalog) ProcsNamed(tx *Txn, name string, nsps []uint32) ([]*Proc, error) {
	all, err := c.procsNamed(tx, name)
	if err != nil || nsps == nil {
		return all, err
	}
	// In search path order; a routine hides those of later schemas with
	// the same argument types (FuncnameGetCandidates).
	var out []*Proc
	for _, n := range nsps {
		for _, p := range all {
			if p.Namespace == n && !hiddenBy(p, out) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func hiddenBy(p *Proc, earlier []*Proc) bool {
	for _, q := range earlier {
		if q.Namespace != p.Namespace && slices.Equal(q.ArgTypes, p.ArgTypes) {
			return true
		}
	}
	return false
}

func (c *Catalog) procsNamed(tx *Txn, name string) ([]*Proc, error) {
	if !tx.Dirty {
		c.mu.Lock()
		if c.cacheV != c.version.Load() {
			c.flushCache()
		}
		if c.procNames != nil {
			ps := c.procNames[name]
			c.mu.Unlock()
			return ps, nil
		}
		c.mu.Unlock()
	}
	v := c.version.Load()
	all, err := c.Procs(tx, nil)
	if err != nil {
		return nil, err
	}
	byName := map[string][]*Proc{}
	for _, p := range all {
		byName[p.Name] = append(byName[p.Name], p)
	}
	if !tx.Dirty {
		c.mu.Lock()
		if c.version.Load() == v && c.cacheV == v {
			c.procNames = byName
		}
		c.mu.Unlock()
	}
	return byName[name], nil
}

// ProcByOID finds a routine by OID (nil when there is none).
func (c *Catalog) ProcByOID(tx *Txn, oid uint32) (*Proc, error) {
	var found *Proc
	err := c.scan(tx, PgProc, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == oid {
			found = procFromRow(v, tid)
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// CreateProc adds a routine; it assigns p.OID. The caller has checked
// that no routine of the same name and input argument types exists in
// the namespace.
func (c *Catalog) CreateProc(tx *Txn, p *Proc) error {
	oid, err := c.NewOid()
	if err != nil {
		return err
	}
	p.OID = oid
	tid, err := c.insert(tx, PgProc, p.row())
	if err != nil {
		return err
	}
	p.tid = tid
	if err := c.recordProcDepends(tx, p); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// UpdateProc writes a new version of a routine read from the catalog
// (CREATE OR REPLACE, ALTER FUNCTION); its OID stays.
func (c *Catalog) UpdateProc(tx *Txn, p *Proc) error {
	tx.Dirty = true
	newTid, oc, err := c.updateRow(tx, PgProc, p.tid, p.row())
	if err != nil {
		return err
	}
	if oc.Result != tableam.Ok && oc.Result != tableam.SelfModified {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	p.tid = newTid
	if err := c.deleteProcDepends(tx, p.OID); err != nil {
		return err
	}
	if err := c.recordProcDepends(tx, p); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// ReplaceProc writes np as the new version of routine old (CREATE OR
// REPLACE): np takes old's OID.
func (c *Catalog) ReplaceProc(tx *Txn, old, np *Proc) error {
	np.OID, np.tid = old.OID, old.tid
	return c.UpdateProc(tx, np)
}

// DropProc removes a routine read from the catalog, with its
// dependencies.
func (c *Catalog) DropProc(tx *Txn, p *Proc) error {
	if err := c.DropDescriptions(tx, PgProcRelID, p.OID); err != nil {
		return err
	}
	if err := c.delete(tx, PgProc, p.tid); err != nil {
		return err
	}
	if err := c.deleteProcDepends(tx, p.OID); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// firstUnpinnedObjectID: objects below it (initdb's) are pinned and get
// no pg_depend rows, as in PostgreSQL.
const firstUnpinnedObjectID = 12000

// recordProcDepends records what routine p depends on (pg_depend 'n'
// rows): its namespace and its argument and result types, unless pinned.
func (c *Catalog) recordProcDepends(tx *Txn, p *Proc) error {
	refs := map[[2]uint32]bool{}
	if p.Namespace >= firstUnpinnedObjectID {
		refs[[2]uint32{PgNamespaceRelID, p.Namespace}] = true
	}
	used := append(append([]uint32{p.RetType}, p.ArgTypes...), p.AllArgTypes...)
	for _, t := range used {
		if t >= firstUnpinnedObjectID {
			refs[[2]uint32{PgTypeRelID, t}] = true
		}
	}
	for ref := range refs {
		row := []types.Datum{ov(PgProcRelID), ov(p.OID), iv(0), ov(ref[0]), ov(ref[1]), iv(0), cv(DepNormal)}
		if _, err := c.insert(tx, PgDepend, row); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) deleteProcDepends(tx *Txn, oid uint32) error {
	return c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[0].Int()) == PgProcRelID && uint32(v[1].Int()) == oid
	})
}

// ProcsDependingOn lists the routines with a pg_depend row on object oid
// of catalog classID (a type or a namespace), for DROP … RESTRICT.
func (c *Catalog) ProcsDependingOn(tx *Txn, classID, oid uint32) ([]uint32, error) {
	var out []uint32
	err := c.scan(tx, PgDepend, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == PgProcRelID && uint32(v[3].Int()) == classID && uint32(v[4].Int()) == oid {
			out = append(out, uint32(v[1].Int()))
		}
		return true, nil
	})
	return out, err
}

// dropProcsIn drops the routines of namespace nsp (a temporary namespace
// at the end of its session).
func (c *Catalog) dropProcsIn(tx *Txn, nsp uint32) (int, error) {
	ps, err := c.Procs(tx, func(_ string, n uint32) bool { return n == nsp })
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		if err := c.DropProc(tx, p); err != nil {
			return 0, err
		}
	}
	return len(ps), nil
}
