package session

// Per-session caches of parse and parse-analysis work, so a client that
// sends the same statements over and over (pgbench, any application with
// a fixed set of queries) does not pay for PostgreSQL's grammar, run
// through cgo and decoded from protobuf, on every statement:
//
//   - Simple Query: a single SELECT/INSERT/UPDATE/DELETE is looked up by
//     its shape (the text with its literals replaced, see
//     parser.ScanShape). The second time a shape is seen, its parse tree
//     becomes a template; from then on the text's literal values are
//     written into the template's constants and the tree is planned and run
//     as if it had just been parsed. Parse trees do not depend on settings,
//     the search path or the catalog, so a template never goes stale; the
//     statement is planned afresh every time.
//   - Simple Query: BEGIN, COMMIT and the like are looked up by their exact
//     text (they have no literals, and their trees are only read).
//   - Parse (extended protocol): the tree is looked up by the exact query
//     text and shared, read-only, by the prepared statements made from it.
//     The parse analysis (parameter types, result columns) is reused too,
//     but only while the catalog version, the session's settings (the role
//     among them) and the declared parameter types are those it was made
//     with, and never inside a transaction that has changed the catalog.
//     As in PostgreSQL the statement still takes its snapshot at Parse;
//     unlike PostgreSQL a reused analysis does not lock the statement's
//     tables at Parse (Execute plans the statement and locks them).
//
// Trees are never changed by planning or execution; checkStmtCache (set
// by TIDAL_CHECK_STMT_CACHE=1, for tests) re-parses every text served from
// a cache and fails the statement if the trees differ.

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// maxCachedTexts bounds each of a session's caches; a full cache is
// emptied (ad-hoc workloads then simply parse as before).
const maxCachedTexts = 256

var checkStmtCache = os.Getenv("TIDAL_CHECK_STMT_CACHE") == "1"

type stmtCache struct {
	shapes map[string]*shapeEntry
	texts  map[string]*parsedText
	txns   map[string]*pg.ParseResult // transaction control by exact text
}

// shapeEntry is a shape seen before: tmpl is nil after the first sighting,
// and stays nil when the shape cannot be templated (refused).
type shapeEntry struct {
	tmpl    *parser.Template
	refused bool
}

// parsedText is the parse of one exact query text for the extended
// protocol.
type parsedText struct {
	stmt     *pg.Node // nil: empty query
	text     string   // the statement's own text
	multi    bool     // more than one statement: refused by Parse
	nparams  int      // highest $n
	analyses []*analysis
}

// analysis is a reusable parse analysis of a plannable statement.
type analysis struct {
	declared   []uint32
	catalogV   uint64
	settings   map[string]string
	paramTypes []types.Type
	cols       []exec.Column
	plan       *cachedPlan // a plan to run again (plancache.go)
}

func (s *Session) cache() *stmtCache {
	if s.stmts == nil {
		s.stmts = &stmtCache{shapes: map[string]*shapeEntry{}, texts: map[string]*parsedText{}, txns: map[string]*pg.ParseResult{}}
	}
	return s.stmts
}

// simpleCached runs sql from a template when its shape has one; handled
// is false when it has not (then the caller parses sql in full, and
// noteShape may make a template of the result).
func (s *Session) simpleCached(ctx context.Context, sql string, w pgwire.ResultWriter) (handled bool, shape parser.Shape, scanned bool, err error) {
	shape, scanned = parser.ScanShape(sql)
	if !scanned {
		return false, shape, false, nil
	}
	e := s.cache().shapes[shape.Key]
	if e == nil || e.tmpl == nil {
		return false, shape, true, nil
	}
	e.tmpl.Bind(shape)
	if checkStmtCache {
		if err := checkTree(sql, e.tmpl.Tree); err != nil {
			return true, shape, true, err
		}
	}
	start, end := e.tmpl.StmtRange(len(sql))
	s.tracking.shape = shape.Key // pg_stat_statements need not scan it again
	err = s.runStatement(ctx, e.tmpl.Tree.Stmts[0].Stmt, strings.TrimSpace(sql[start:end]), w, false)
	return true, shape, true, remapPosition(err, e.tmpl, shape)
}

// cachedTxnStmt returns the kept tree of a transaction control statement
// with exactly this text, or nil.
func (s *Session) cachedTxnStmt(sql string) (*pg.ParseResult, error) {
	tree := s.cache().txns[sql]
	if tree != nil && checkStmtCache {
		if err := checkTree(sql, tree); err != nil {
			return nil, err
		}
	}
	return tree, nil
}

// noteTxnStmt keeps the tree of a lone transaction control statement.
func (s *Session) noteTxnStmt(sql string, tree *pg.ParseResult) {
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetTransactionStmt() == nil {
		return
	}
	c := s.cache()
	if len(c.txns) >= maxCachedTexts {
		clear(c.txns)
	}
	c.txns[sql] = tree
}

// noteShape records a fully parsed single plannable statement's shape;
// at the second sighting its tree becomes the shape's template. It must
// be called before the tree is run (a template's tree is later changed in
// place, which is harmless once the statement it was parsed for is done).
func (s *Session) noteShape(sql string, shape parser.Shape, tree *pg.ParseResult) {
	if len(tree.Stmts) != 1 || !isPlannable(tree.Stmts[0].Stmt) {
		return
	}
	c := s.cache()
	e := c.shapes[shape.Key]
	switch {
	case e == nil:
		if len(c.shapes) >= maxCachedTexts {
			clear(c.shapes)
		}
		e = &shapeEntry{}
		c.shapes[shape.Key] = e
		if checkStmtCache {
			// Template at once, so the checks see every later text.
			e.tmpl = parser.NewTemplate(sql, shape, tree)
			e.refused = e.tmpl == nil
		}
	case e.tmpl == nil && !e.refused:
		e.tmpl = parser.NewTemplate(sql, shape, tree)
		e.refused = e.tmpl == nil
	}
}

// remapPosition moves an error's cursor position from the template's text
// to the text that was run.
func remapPosition(err error, t *parser.Template, shape parser.Shape) error {
	if err == nil {
		return nil
	}
	pe := pgerr.From(err)
	if pe.Position <= 0 {
		return err
	}
	cp := *pe
	cp.Position = t.MapPosition(pe.Position, shape)
	return &cp
}

// parsedText returns the parse of an exact query text, from the cache or
// by parsing it (errors are not cached).
func (s *Session) parseText(query string) (*parsedText, error) {
	c := s.cache()
	if pt := c.texts[query]; pt != nil {
		if checkStmtCache && pt.stmt != nil {
			if err := checkTree(query, &pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: pt.stmt}}}); err != nil {
				return nil, err
			}
		}
		return pt, nil
	}
	tree, err := pg.Parse(query)
	if err != nil {
		return nil, parseError(err)
	}
	pt := &parsedText{text: query, multi: len(tree.Stmts) > 1}
	if len(tree.Stmts) == 1 {
		pt.stmt = tree.Stmts[0].Stmt
		pt.text = stmtText(query, tree.Stmts[0])
		pt.nparams = maxParam(pt.stmt)
	}
	if len(c.texts) >= maxCachedTexts {
		clear(c.texts)
	}
	c.texts[query] = pt
	return pt, nil
}

// reusableAnalysis returns an analysis of pt made under the session's
// current catalog version and settings with the same declared types.
func (s *Session) reusableAnalysis(pt *parsedText, declared []uint32) *analysis {
	if s.ctx.Dirty || pt.stmt == nil || !isPlannable(pt.stmt) {
		return nil
	}
	v := s.eng.Catalog.Version()
	for _, a := range pt.analyses {
		if a.catalogV == v && slices.Equal(a.declared, declared) && maps.Equal(a.settings, s.settings) {
			return a
		}
	}
	return nil
}

// keepAnalysis remembers ps's analysis (made at catalog version v) for
// reuse and returns it, or nil. Older analyses with the same declared
// types are dropped.
func (s *Session) keepAnalysis(pt *parsedText, declared []uint32, v uint64, ps *prepared) *analysis {
	if s.ctx.Dirty || ps.stmt == nil || !isPlannable(ps.stmt) || v != s.eng.Catalog.Version() {
		return nil
	}
	a := &analysis{declared: slices.Clone(declared), catalogV: v, settings: maps.Clone(s.settings), paramTypes: ps.paramTypes, cols: ps.cols}
	kept := pt.analyses[:0]
	for _, old := range pt.analyses {
		if !slices.Equal(old.declared, declared) && len(kept) < 3 {
			kept = append(kept, old)
		}
	}
	pt.analyses = append(kept, a)
	return a
}

// checkTree fails when tree differs from sql's own parse tree (locations
// aside): a cache served a wrong tree, or someone changed a cached tree.
func checkTree(sql string, tree *pg.ParseResult) error {
	fresh, err := pg.Parse(sql)
	if err != nil {
		return pgerr.Errorf(pgerr.InternalError, "statement cache check: %v", err)
	}
	if len(fresh.Stmts) != len(tree.Stmts) {
		return pgerr.Errorf(pgerr.InternalError, "statement cache check: %d statements, cached %d", len(fresh.Stmts), len(tree.Stmts))
	}
	for i := range fresh.Stmts {
		if !parser.EqualIgnoringLocations(fresh.Stmts[i].Stmt, tree.Stmts[i].Stmt) {
			return pgerr.Errorf(pgerr.InternalError, "statement cache check: cached parse tree differs for %q", sql)
		}
	}
	return nil
}
