package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// GeneratedAlways is SQLSTATE 428C9.
const GeneratedAlways = "428C9"

// applyIdentityOverride enforces GENERATED ALWAYS AS IDENTITY on an
// INSERT's target columns (targets: column indexes, in VALUES order).
// Without OVERRIDING SYSTEM VALUE an ALWAYS column takes only DEFAULT;
// OVERRIDING USER VALUE turns the values given for identity columns into
// DEFAULT, which this does by rewriting the VALUES lists.
func (p *Planner) applyIdentityOverride(rel *catalog.Relation, targets []int, s *pg.InsertStmt) error {
	sel := s.SelectStmt.GetSelectStmt()
	if sel == nil {
		return nil
	}
	for pos, col := range targets {
		a := rel.Attrs[col]
		if a.Identity == 0 {
			continue
		}
		switch s.Override {
		case pg.OverridingKind_OVERRIDING_SYSTEM_VALUE:
			continue
		case pg.OverridingKind_OVERRIDING_USER_VALUE:
			if len(sel.ValuesLists) == 0 {
				return pgerr.Errorf(pgerr.FeatureNotSupported, "OVERRIDING USER VALUE with INSERT … SELECT is not supported yet")
			}
			for _, row := range sel.ValuesLists {
				if items := row.GetList().GetItems(); pos < len(items) {
					items[pos] = &pg.Node{Node: &pg.Node_SetToDefault{SetToDefault: &pg.SetToDefault{}}}
				}
			}
			continue
		}
		if a.Identity != catalog.IdentityAlways {
			continue
		}
		allDefault := len(sel.ValuesLists) > 0
		for _, row := range sel.ValuesLists {
			if items := row.GetList().GetItems(); pos < len(items) && items[pos].GetSetToDefault() == nil {
				allDefault = false
			}
		}
		if !allDefault {
			return pgerr.Errorf(GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", a.Name).
				WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", a.Name).
				WithHint("Use OVERRIDING SYSTEM VALUE to override.")
		}
	}
	return nil
}

// checkIdentityUpdate refuses UPDATE SET of an ALWAYS identity column to
// anything but DEFAULT.
func checkIdentityUpdate(a catalog.Attr, val *pg.Node) error {
	if a.Identity != catalog.IdentityAlways || val.GetSetToDefault() != nil {
		return nil
	}
	return pgerr.Errorf(GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", a.Name).
		WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", a.Name)
}
