package session

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Column storage and compression (CREATE TABLE … COMPRESSION, ALTER
// COLUMN … SET STORAGE / SET COMPRESSION) and the toast_tuple_target
// reloption, with PostgreSQL's checks and messages.

// compressionCode checks a COMPRESSION clause for a column of type t and
// returns its attcompression code (0 for DEFAULT).
func compressionCode(name string, t types.Type) (byte, error) {
	if !types.Toastable(t) {
		return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "column data type %s does not support compression", t)
	}
	if name == "default" {
		return 0, nil
	}
	m, ok := varatt.MethodByName(name)
	if !ok {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid compression method \"%s\"", name)
	}
	return m.AttCode(), nil
}

// storageCode checks a storage name for a column of type t.
func storageCode(name string, t types.Type) (byte, error) {
	var code byte
	switch strings.ToLower(name) {
	case "plain":
		code = 'p'
	case "main":
		code = 'm'
	case "extended":
		code = 'x'
	case "external":
		code = 'e'
	default:
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid storage type \"%s\"", name)
	}
	if code != 'p' && t.Layout().Storage == 'p' {
		return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "column data type %s can only have storage PLAIN", t)
	}
	return code, nil
}

// columnToastOptions applies a column definition's COMPRESSION and
// STORAGE clauses to a.
func columnToastOptions(cd *pg.ColumnDef, a *catalog.Attr) error {
	if cd.Compression != "" {
		c, err := compressionCode(cd.Compression, a.Type)
		if err != nil {
			return err
		}
		a.Compression = c
	}
	if cd.StorageName != "" {
		s, err := storageCode(cd.StorageName, a.Type)
		if err != nil {
			return err
		}
		a.Storage = s
	}
	return nil
}

// alterToastCmd runs ALTER TABLE's SET STORAGE, SET COMPRESSION and
// SET/RESET (reloptions) subcommands; handled is false for others.
func (s *Session) alterToastCmd(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd) (handled bool, err error) {
	switch ac.Subtype {
	case pg.AlterTableType_AT_SetStorage, pg.AlterTableType_AT_SetCompression:
		i, err := alteredColumn(rel, ac.Name)
		if err != nil {
			return true, err
		}
		a := rel.Attrs[i]
		name := ""
		if sv := ac.Def.GetString_(); sv != nil {
			name = sv.Sval
		}
		if err := s.assignXid(c); err != nil {
			return true, err
		}
		if ac.Subtype == pg.AlterTableType_AT_SetStorage {
			code, err := storageCode(name, a.Type)
			if err != nil {
				return true, err
			}
			return true, s.eng.Catalog.SetColumnStorage(c.Tx, rel, a.Num, code)
		}
		code, err := compressionCode(name, a.Type)
		if err != nil {
			return true, err
		}
		return true, s.eng.Catalog.SetColumnCompression(c.Tx, rel, a.Num, code)
	case pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions:
		opts := map[string]string{}
		for k, v := range rel.Options {
			opts[k] = v
		}
		for _, n := range ac.Def.GetList().GetItems() {
			de := n.GetDefElem()
			if ac.Subtype == pg.AlterTableType_AT_ResetRelOptions {
				delete(opts, relOptionKey(de))
				continue
			}
			k, v, err := relOption(de)
			if err != nil {
				return true, err
			}
			opts[k] = v
		}
		if err := s.assignXid(c); err != nil {
			return true, err
		}
		return true, s.eng.Catalog.SetRelOptions(c.Tx, rel, opts)
	}
	return false, nil
}

// relOptionKey is the name reloptions keeps a parameter under.
func relOptionKey(de *pg.DefElem) string {
	if de.Defnamespace != "" {
		return de.Defnamespace + "." + de.Defname
	}
	return de.Defname
}

// relOption checks one table storage parameter and returns its name and
// value as reloptions keeps them.
func relOption(de *pg.DefElem) (string, string, error) {
	if k, v, ok, err := autovacuumRelOption(de); ok {
		return k, v, err
	}
	v, err := relOptionValue(de)
	return de.Defname, v, err
}

// indexRelOptions checks a B-tree index's storage parameters (fillfactor,
// deduplicate_items) and returns them as reloptions keeps them.
func indexRelOptions(list []*pg.Node) (map[string]string, error) {
	opts := map[string]string{}
	for _, o := range list {
		de := o.GetDefElem()
		if de.Defname == "deduplicate_items" {
			v, err := relOptionBool(de)
			if err != nil {
				return nil, err
			}
			opts[de.Defname] = v
			continue
		}
		if de.Defname != "fillfactor" {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
		}
		v, err := relOptionValue(de)
		if err != nil {
			return nil, err
		}
		opts[de.Defname] = v
	}
	return opts, nil
}

// relOptionBool checks a boolean storage parameter (a bare name is
// true) and returns it as written, as reloptions keeps it.
func relOptionBool(de *pg.DefElem) (string, error) {
	if de.Arg == nil {
		return "true", nil
	}
	v := relOptionText(de)
	if _, ok := catalog.ParseBoolOption(v); !ok {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for boolean option \"%s\": %s", de.Defname, v)
	}
	return v, nil
}

func relOptionValue(de *pg.DefElem) (string, error) {
	bounded := func(lo, hi int) (string, error) {
		v := defInt(de)
		if v < lo || v > hi {
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "value %d out of bounds for option \"%s\"", v, de.Defname).
				WithDetail("Valid values are between \"%d\" and \"%d\".", lo, hi)
		}
		return fmt.Sprint(v), nil
	}
	switch de.Defname {
	case "fillfactor":
		return bounded(10, 100)
	case "toast_tuple_target":
		return bounded(128, varatt.TupleTargetMain)
	}
	return "", pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
}
