package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/access/sequence"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// alterIdentityCmd runs ALTER TABLE … ALTER COLUMN … ADD GENERATED … AS
// IDENTITY, SET GENERATED / SET sequence option / RESTART, and DROP
// IDENTITY; refuses SET/DROP DEFAULT and DROP NOT NULL on an identity
// column; and after TYPE of one, gives its sequence the new type.
// handled is false for other subcommands (and other columns).
func (s *Session) alterIdentityCmd(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd) (handled bool, err error) {
	switch ac.Subtype {
	case pg.AlterTableType_AT_AddIdentity, pg.AlterTableType_AT_SetIdentity, pg.AlterTableType_AT_DropIdentity:
	case pg.AlterTableType_AT_ColumnDefault, pg.AlterTableType_AT_DropNotNull, pg.AlterTableType_AT_AlterColumnType:
		i := rel.AttrByName(ac.Name)
		if i < 0 || rel.Attrs[i].Identity == 0 || rel.Namespace == catalog.PgCatalogNamespace {
			return false, nil
		}
		if ac.Subtype == pg.AlterTableType_AT_AlterColumnType {
			return true, s.retypeIdentity(c, rel, ac, rel.Attrs[i])
		}
		e := pgerr.Errorf(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", ac.Name, rel.Name)
		if ac.Subtype == pg.AlterTableType_AT_ColumnDefault && ac.Def == nil {
			e = e.WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
		}
		return true, e
	default:
		return false, nil
	}
	i, err := alteredColumn(rel, ac.Name)
	if err != nil {
		return true, err
	}
	a := rel.Attrs[i]
	notIdentity := func() error {
		return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is not an identity column", a.Name, rel.Name)
	}
	if err := s.assignXid(c); err != nil {
		return true, err
	}
	switch ac.Subtype {
	case pg.AlterTableType_AT_AddIdentity:
		if !a.NotNull {
			return true, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", a.Name, rel.Name)
		}
		if a.Identity != 0 {
			return true, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is already an identity column", a.Name, rel.Name)
		}
		if a.HasDefault {
			return true, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" already has a default value", a.Name, rel.Name)
		}
		cs, err := s.columnSequenceFor(c, rel.Namespace, rel.Name, a.Num, &a, false, ac.Def.GetConstraint(), map[string]bool{})
		if err != nil {
			return true, err
		}
		if err := s.createColumnSequences(c, rel.Namespace, rel.OID, []*columnSequence{cs}); err != nil {
			return true, err
		}
		return true, s.eng.Catalog.SetColumnIdentity(c.Tx, rel, a.Num, a.Identity)
	case pg.AlterTableType_AT_DropIdentity:
		if a.Identity == 0 {
			if ac.MissingOk {
				c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "column \"%s\" of relation \"%s\" is not an identity column, skipping", a.Name, rel.Name))
				return true, nil
			}
			return true, notIdentity()
		}
		if err := s.eng.Catalog.SetColumnIdentity(c.Tx, rel, a.Num, 0); err != nil {
			return true, err
		}
		if a.IdentitySeq == 0 {
			return true, nil
		}
		seq, err := s.eng.Catalog.ByOID(c.Tx, a.IdentitySeq)
		if err != nil || seq == nil {
			return true, err
		}
		return true, s.eng.Catalog.DropRelation(c.Tx, seq)
	}
	// SET GENERATED { ALWAYS | BY DEFAULT } and sequence options.
	if a.Identity == 0 {
		return true, notIdentity()
	}
	var seqOpts []*pg.Node
	kind := a.Identity
	for _, n := range ac.Def.GetList().GetItems() {
		de := n.GetDefElem()
		if de.Defname == "generated" {
			kind = byte(de.Arg.GetInteger().Ival)
			continue
		}
		seqOpts = append(seqOpts, n)
	}
	if kind != a.Identity {
		if err := s.eng.Catalog.SetColumnIdentity(c.Tx, rel, a.Num, kind); err != nil {
			return true, err
		}
	}
	if len(seqOpts) == 0 || a.IdentitySeq == 0 {
		return true, nil
	}
	seq, err := s.eng.Catalog.ByOID(c.Tx, a.IdentitySeq)
	if err != nil || seq == nil || seq.Seq == nil {
		return true, err
	}
	o, err := parseSeqOptions(seqOpts, true)
	if err != nil {
		return true, err
	}
	cur, err := sequence.Read(c.U(), s.eng.Catalog.SeqRel(seq))
	if err != nil {
		return true, err
	}
	info, restart, err := o.apply(seq.Seq, cur.LastValue)
	if err != nil {
		return true, err
	}
	if err := s.eng.Catalog.UpdateSequence(c.Tx, seq.OID, info); err != nil {
		return true, err
	}
	if restart != nil {
		if err := s.eng.Catalog.ResetSequence(c.Tx, seq, sequence.State{LastValue: *restart}); err != nil {
			return true, err
		}
	}
	s.seqs.Forget(seq.OID)
	return true, nil
}

// retypeIdentity is ALTER COLUMN … TYPE of an identity column: the column
// changes as any other, then its sequence takes the new type.
func (s *Session) retypeIdentity(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd, a catalog.Attr) error {
	handled, err := s.alterColumnCmd(c, rel, ac)
	if err != nil || !handled || a.IdentitySeq == 0 {
		return err
	}
	seq, err := s.eng.Catalog.ByOID(c.Tx, a.IdentitySeq)
	if err != nil || seq == nil || seq.Seq == nil {
		return err
	}
	t, err := expr.TypeFromName(ac.Def.GetColumnDef().GetTypeName())
	if err != nil {
		return err
	}
	if t.OID != types.Int2OID && t.OID != types.Int4OID && t.OID != types.Int8OID {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	cur, err := sequence.Read(c.U(), s.eng.Catalog.SeqRel(seq))
	if err != nil {
		return err
	}
	info, _, err := (&seqOptions{as: &t}).apply(seq.Seq, cur.LastValue)
	if err != nil {
		return err
	}
	return s.eng.Catalog.UpdateSequence(c.Tx, seq.OID, info)
}
