package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
)

// txMode is what a transaction is declared to be (BEGIN / SET TRANSACTION
// options), carried over by COMMIT AND CHAIN.
type txMode struct {
	isolation  string
	readOnly   bool
	deferrable bool
}

// transactionStmt runs BEGIN, COMMIT, ROLLBACK, the savepoint commands and
// the two-phase commands, with PostgreSQL's rules for each block state
// (xact.c's BeginTransactionBlock, EndTransactionBlock, …).
func (s *Session) transactionStmt(ts *pg.TransactionStmt, w pgwire.ResultWriter) error {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		return s.beginBlock(ts, w)
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		return s.endBlock(true, ts.Chain, w)
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return s.endBlock(false, ts.Chain, w)
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return s.defineSavepoint(savepointName(ts), w)
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		return s.releaseSavepoint(savepointName(ts), w)
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return s.rollbackToSavepoint(savepointName(ts), w)
	case pg.TransactionStmtKind_TRANS_STMT_PREPARE:
		return s.prepareTransaction(w)
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
		if s.failed {
			return abortedError()
		}
		if s.inBlock {
			name := "COMMIT PREPARED"
			if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED {
				name = "ROLLBACK PREPARED"
			}
			return pgerr.Errorf(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", name)
		}
		return pgerr.Errorf(pgerr.UndefinedObject, "prepared transaction with identifier \"%s\" does not exist", ts.Gid)
	}
	return pgerr.Errorf(pgerr.FeatureNotSupported, "transaction statement %s is not supported", ts.Kind)
}

// savepointName: the parser gives RELEASE / ROLLBACK TO the name in
// SavepointName and SAVEPOINT in an option.
func savepointName(ts *pg.TransactionStmt) string {
	if ts.SavepointName != "" {
		return ts.SavepointName
	}
	for _, o := range ts.Options {
		if de := o.GetDefElem(); de != nil && de.Defname == "savepoint_name" {
			return de.Arg.GetString_().GetSval()
		}
	}
	return ""
}

func (s *Session) beginBlock(ts *pg.TransactionStmt, w pgwire.ResultWriter) error {
	if s.failed {
		return abortedError()
	}
	if s.inBlock {
		w.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.ActiveSQLTransaction, "there is already a transaction in progress"))
		return w.CommandComplete("BEGIN")
	}
	if !s.inTx {
		s.begin()
	}
	s.inBlock = true
	if err := s.applyTxOptions(ts.Options); err != nil {
		// The block exists, failed: a client that goes on with its
		// statements must not have them commit one by one.
		s.failBlock()
		return err
	}
	return w.CommandComplete("BEGIN")
}

// applyTxOptions applies BEGIN's or SET TRANSACTION's list of modes.
func (s *Session) applyTxOptions(opts []*pg.Node) error { return s.applyModeOptions(opts, "") }

// applyModeOptions sets each transaction_* option of opts, with prefix
// ("default_" for SET SESSION CHARACTERISTICS AS TRANSACTION).
func (s *Session) applyModeOptions(opts []*pg.Node, prefix string) error {
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		var v string
		switch c := de.Arg.GetAConst(); {
		case c == nil:
		case c.GetSval() != nil:
			v = c.GetSval().GetSval()
		case c.GetIval() != nil:
			v = "off"
			if c.GetIval().GetIval() != 0 {
				v = "on"
			}
		}
		if err := s.set(prefix+de.Defname, v, false); err != nil {
			return err
		}
	}
	return nil
}

// endBlock is COMMIT (commit) or ROLLBACK, optionally AND CHAIN.
func (s *Session) endBlock(commit, chain bool, w pgwire.ResultWriter) error {
	name := "ROLLBACK"
	if commit {
		name = "COMMIT"
	}
	if !s.inBlock {
		if chain {
			return pgerr.Errorf(pgerr.NoActiveSQLTransaction, "%s AND CHAIN can only be used in transaction blocks", name)
		}
		w.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.NoActiveSQLTransaction, "there is no transaction in progress"))
		if commit && s.inTx {
			if err := s.commit(); err != nil {
				return err
			}
		} else {
			s.abort()
		}
		return w.CommandComplete(name)
	}
	mode := s.txMode()
	tag := name
	if commit && !s.failed {
		if err := s.commit(); err != nil {
			return err
		}
	} else {
		s.abort()
		tag = "ROLLBACK"
	}
	if chain {
		s.begin()
		s.inBlock = true
		s.setTxMode(mode)
	}
	return w.CommandComplete(tag)
}

func (s *Session) txMode() txMode {
	return txMode{isolation: s.isolation, readOnly: s.readOnly, deferrable: s.deferrable}
}

func (s *Session) setTxMode(m txMode) {
	s.isolation, s.readOnly, s.deferrable = m.isolation, m.readOnly, m.deferrable
}

// prepareTransaction is PREPARE TRANSACTION with PostgreSQL's default
// max_prepared_transactions = 0: in an open block it fails and ends the
// block, rolled back; outside a block, or in a failed one, it ends like
// ROLLBACK (PrepareTransactionBlock's "unsuccessful commit").
func (s *Session) prepareTransaction(w pgwire.ResultWriter) error {
	if !s.inBlock || s.failed {
		if !s.inBlock {
			w.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.NoActiveSQLTransaction, "there is no transaction in progress"))
		}
		s.abort()
		return w.CommandComplete("ROLLBACK")
	}
	temp := s.ctx.AccessedTemp
	s.abort()
	if temp {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot PREPARE a transaction that has operated on temporary objects")
	}
	return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "prepared transactions are disabled").
		WithHint("Set max_prepared_transactions to a nonzero value.")
}

// The transaction_* settings are the running transaction's modes, not
// session values: they read the transaction's fields while one runs, and
// the settings stack saves and restores those fields (gucstack.go) so a
// rolled-back savepoint undoes SET TRANSACTION like any SET.
var txSettings = map[string]bool{"transaction_isolation": true, "transaction_read_only": true, "transaction_deferrable": true}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// txSetting is a transaction_* setting's value while a transaction runs.
func (s *Session) txSetting(k string) (string, bool) {
	if !s.inTx || !txSettings[k] {
		return "", false
	}
	switch k {
	case "transaction_isolation":
		return s.isolation, true
	case "transaction_read_only":
		return onOff(s.readOnly), true
	}
	return onOff(s.deferrable), true
}

func (s *Session) putTxSetting(k, v string) {
	switch k {
	case "transaction_isolation":
		s.isolation = v
	case "transaction_read_only":
		s.readOnly = v == "on"
	case "transaction_deferrable":
		s.deferrable = v == "on"
	}
}

// checkTxSetting refuses changes of the transaction's modes that
// PostgreSQL refuses (check_XactIsoLevel, check_transaction_read_only,
// check_transaction_deferrable).
func (s *Session) checkTxSetting(k, v string) error {
	if !s.inTx || !txSettings[k] {
		return nil
	}
	sub := len(s.savepoints) > 0
	switch k {
	case "transaction_isolation":
		if v == s.isolation {
			return nil
		}
		if s.snapTaken {
			return pgerr.Errorf(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
		}
		if sub {
			return pgerr.Errorf(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must not be called in a subtransaction")
		}
		return nil
	case "transaction_read_only":
		if v == "off" && s.readOnly {
			if sub {
				return pgerr.Errorf(pgerr.ActiveSQLTransaction, "cannot set transaction read-write mode inside a read-only transaction")
			}
			if s.snapTaken {
				return pgerr.Errorf(pgerr.ActiveSQLTransaction, "transaction read-write mode must be set before any query")
			}
		}
	case "transaction_deferrable":
		if sub {
			return pgerr.Errorf(pgerr.ActiveSQLTransaction, "SET TRANSACTION [NOT] DEFERRABLE cannot be called within a subtransaction")
		}
		if s.snapTaken {
			return pgerr.Errorf(pgerr.ActiveSQLTransaction, "SET TRANSACTION [NOT] DEFERRABLE must be called before any query")
		}
	}
	return nil
}
