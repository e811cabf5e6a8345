package session

import (
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
)

// syncWALCompression hands the session's wal_compression to the WAL: the
// log reads it from the usage every insert of this backend is charged to,
// as each PostgreSQL backend compresses its images with its own setting.
// It runs when the session starts (the server's value) and whenever the
// setting changes (storeSetting), so a SET inside a transaction applies to
// the records after it.
func (s *Session) syncWALCompression() {
	c, err := wal.ParseCompression(s.Setting("wal_compression"))
	if err != nil {
		c = 0 // not reachable: values are checked when set; the server's applies
	}
	s.usage.WALCompression = uint8(c)
}

// checkSetPermission refuses a superuser-context parameter to a role that
// is not a superuser, as PostgreSQL's set_config_option does.
// session_authorization is checked by SET SESSION AUTHORIZATION itself
// (against the session user, not the current role).
func (s *Session) checkSetPermission(d *guc.Def) error {
	if d.Context == guc.Superuser && d.Name != "session_authorization" && !s.isSuperuser() {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to set parameter \"%s\"", d.Name)
	}
	return nil
}
