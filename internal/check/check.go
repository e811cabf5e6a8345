// Package check verifies a table and its indexes, in the spirit of
// PostgreSQL's amcheck (bt_index_check with heapallindexed) and
// pg_visibility (pg_check_visible):
//
//   - each B-tree's structure: keys in order within and across pages,
//     high keys, sibling links, downlinks (btree.Index.Check);
//   - every index entry points at a line pointer that exists and is not
//     unused, and an entry pointing at a tuple carries that tuple's key;
//   - every heap row whose chain still has a live version is indexed by
//     every index;
//   - every page whose visibility-map bit is set is really all-visible.
//
// The table's own storage is checked by its access method (tableam.Checker:
// heap checks line pointers, HOT chains and the visibility map); this
// package cross-checks the indexes against what the AM reports.
//
// It reads under share locks and is meant for quiescent tables (tests
// after VACUUM, or the `tidal_check` SQL function).
package check

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Problems are what a check found; empty means the relation is consistent.
type Problems []string

func (p *Problems) addf(format string, args ...any) {
	if len(*p) < 50 {
		*p = append(*p, fmt.Sprintf(format, args...))
	}
}

// Table checks rel and all its indexes, and its TOAST table and index.
func Table(cat *catalog.Catalog, u *stats.Usage, rel *catalog.Relation) (Problems, error) {
	probs, err := table(cat, u, rel)
	if err != nil || rel.ToastRel == nil {
		return probs, err
	}
	tp, err := table(cat, u, rel.ToastRel)
	for _, p := range tp {
		probs.addf("TOAST table %s: %s", rel.ToastRel.Name, p)
	}
	return probs, err
}

func table(cat *catalog.Catalog, u *stats.Usage, rel *catalog.Relation) (Problems, error) {
	var probs Problems
	checker, ok := rel.Table.(tableam.Checker)
	if !ok {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "access method \"%s\" does not support tidal_check", rel.AM.Name())
	}
	targets, found, err := checker.CheckStorage(u, rel.NewDeformer(), cat.Env().Xact.OldestXmin())
	for _, p := range found {
		probs.addf("%s", p)
	}
	if err != nil {
		return probs, err
	}

	for _, ir := range rel.Indexes {
		ix := cat.IndexFor(rel, ir)
		if err := ix.Check(u); err != nil {
			probs.addf("index %q: %v", ir.Name, err)
			continue
		}
		indexed := map[page.ItemPointer]bool{}
		cur := ix.Scan(u, nil, nil)
		var keys []types.Datum
		for {
			tid, tup, ok, err := cur.Next()
			if err != nil {
				cur.Close()
				return nil, err
			}
			if !ok {
				break
			}
			tg, ok := targets[tid]
			if !(ok && tg.Kind == tableam.TargetRoot && tg.Vals != nil && tup.DeleteMarked()) {
				indexed[tid] = true // (a marked entry indexes the row only with its current key, below)
			}
			if !ok {
				probs.addf("index %q: entry points to %s, which does not exist", ir.Name, tid)
				continue
			}
			switch tg.Kind {
			case tableam.TargetUnused:
				probs.addf("index %q: entry points to unused line pointer %s", ir.Name, tid)
			case tableam.TargetNotRoot:
				probs.addf("index %q: entry points to heap-only tuple %s", ir.Name, tid)
			case tableam.TargetRoot:
				if tg.Vals == nil {
					continue // a dead version (or a redirect): its key is not checked
				}
				keys, err = ix.Keys(tup, keys)
				if err != nil {
					return nil, err
				}
				if tup.DeleteMarked() {
					// An in-place update's old or new key (btree README
					// "Delete-marking"): it may differ from the version
					// stored now; the row must have an entry with that one.
					if keyMatches(rel, ir, keys, tg.Vals) {
						indexed[tid] = true
					}
					continue
				}
				for i, k := range ir.Index.Keys {
					a, b := keys[i], tg.Vals[k-1]
					if a.IsNull() != b.IsNull() || (!a.IsNull() && !types.Equal(rel.Attrs[k-1].Type, a, b)) {
						probs.addf("index %q: entry for %s has key %s but the tuple has %s", ir.Name, tid,
							types.FormatText(rel.Attrs[k-1].Type, a), types.FormatText(rel.Attrs[k-1].Type, b))
					}
				}
			}
		}
		cur.Close()
		// heapallindexed: every root of a chain with a live version.
		for tid, tg := range targets {
			if tg.Kind == tableam.TargetRoot && tg.Live && !indexed[tid] {
				probs.addf("index %q: heap row %s is not indexed", ir.Name, tid)
			}
		}
	}
	return probs, nil
}

// keyMatches: is keys (an entry's) the key of the version vals?
func keyMatches(rel, ir *catalog.Relation, keys, vals []types.Datum) bool {
	for i, k := range ir.Index.Keys {
		a, b := keys[i], vals[k-1]
		if a.IsNull() != b.IsNull() || (!a.IsNull() && !types.Equal(rel.Attrs[k-1].Type, a, b)) {
			return false
		}
	}
	return true
}

// Error turns problems into one XX002 error (index_corrupted), or nil.
func (p Problems) Error() error {
	if len(p) == 0 {
		return nil
	}
	e := pgerr.Errorf("XX002", "%d consistency problem(s) found: %s", len(p), p[0])
	if len(p) > 1 {
		msg := ""
		for _, s := range p[1:] {
			msg += s + "\n"
		}
		e.Detail = msg
	}
	return e
}
