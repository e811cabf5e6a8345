package session

// Transactional settings, as PostgreSQL's GUC nesting (guc.c's
// AtEOXact_GUC): a SET made inside a transaction that aborts — or inside a
// subtransaction that is rolled back — is undone; SET LOCAL lasts until
// the end of the top-level transaction; a plain SET made in a transaction
// that commits stays for the session, even when a SET LOCAL masked it.
//
// Each transaction level (the top level, and one per open savepoint)
// remembers, for every setting it changed, the value before the level
// began (prior) and the value a plain SET asked to keep (session), which a
// later SET LOCAL of the same transaction may mask. The current value is
// always s.settings; a value "unset" (the default applies) is noSetting.

// noSetting marks a setting with no session value (RESET, or never set).
const noSetting = "\x00"

type gucSave struct {
	prior      string // value before the level first changed it
	session    string // value a plain SET made at this level keeps
	hasSession bool
}

// gucLevel is one transaction level's saved settings.
type gucLevel map[string]*gucSave

// gucStack has one level per open transaction level; empty outside a
// transaction.
type gucStack []gucLevel

func (s *Session) settingValue(k string) string {
	if v, ok := s.txSetting(k); ok {
		return v
	}
	if v, ok := s.settings[k]; ok {
		return v
	}
	return noSetting
}

func (s *Session) putSetting(k, v string) {
	if txSettings[k] {
		if s.inTx && v != noSetting {
			s.putTxSetting(k, v)
		}
		return
	}
	s.storeSetting(k, v)
}

// storeSetting is the one writer of s.settings: it also counts changes, so
// the wire layer re-reads the reported parameters only when one may have
// changed (ParamsGeneration).
func (s *Session) storeSetting(k, v string) {
	s.settingsGen++
	if v == noSetting {
		delete(s.settings, k)
	} else {
		s.settings[k] = v
	}
	if k == "wal_compression" {
		s.syncWALCompression()
	}
	if ioSettingNames[k] {
		s.syncIOSettings()
	}
}

// ParamsGeneration implements pgwire.ParamsVersioned: it changes whenever
// a setting does.
func (s *Session) ParamsGeneration() uint64 { return s.settingsGen }

// changeSetting sets k to v (noSetting: back to the default), recording
// what the innermost transaction level needs to undo it.
func (s *Session) changeSetting(k, v string, local bool) {
	if n := len(s.gucs); n > 0 {
		lvl := s.gucs[n-1]
		if lvl == nil {
			lvl = gucLevel{}
			s.gucs[n-1] = lvl
		}
		e := lvl[k]
		if e == nil {
			e = &gucSave{prior: s.settingValue(k)}
			lvl[k] = e
		}
		if !local {
			e.session, e.hasSession = v, true
		}
	}
	s.putSetting(k, v)
}

// gucBegin opens a transaction level (its map is made at its first SET:
// most levels change no setting).
func (s *Session) gucBegin() { s.gucs = append(s.gucs, nil) }

// gucAbortLevel undoes the innermost level's changes and closes it.
func (s *Session) gucAbortLevel() {
	n := len(s.gucs)
	if n == 0 {
		return
	}
	for k, e := range s.gucs[n-1] {
		s.putSetting(k, e.prior)
	}
	s.gucs = s.gucs[:n-1]
}

// gucReleaseLevel folds the innermost level into its parent (a released
// savepoint): the parent keeps its own prior value, and a plain SET made
// inside becomes the parent's to keep.
func (s *Session) gucReleaseLevel() {
	n := len(s.gucs)
	if n < 2 {
		return
	}
	child, parent := s.gucs[n-1], s.gucs[n-2]
	for k, e := range child {
		if k == "transaction_read_only" {
			// A subtransaction's read-only mode ends with it, committed
			// or not (xact.c restores prevXactReadOnly).
			s.putSetting(k, e.prior)
			continue
		}
		if parent == nil {
			parent = gucLevel{}
			s.gucs[n-2] = parent
		}
		pe := parent[k]
		if pe == nil {
			parent[k] = e
			continue
		}
		if e.hasSession {
			pe.session, pe.hasSession = e.session, true
		}
	}
	s.gucs = s.gucs[:n-1]
}

// gucEnd closes every level at the end of the top-level transaction.
func (s *Session) gucEnd(committed bool) {
	if !committed {
		for len(s.gucs) > 0 {
			s.gucAbortLevel()
		}
		return
	}
	for len(s.gucs) > 1 {
		s.gucReleaseLevel()
	}
	if len(s.gucs) == 1 {
		for k, e := range s.gucs[0] {
			if e.hasSession {
				s.putSetting(k, e.session)
			} else {
				s.putSetting(k, e.prior) // SET LOCAL only
			}
		}
	}
	s.gucs = nil
}
