package session

import (
	"strings"

	"github.com/tidal-db/tidal/internal/guc"
)

// SettingSource implements exec.SessionHooks for pg_settings. Values
// from the startup packet are stored as the session's own, so they show
// as "session" where PostgreSQL says "client".
func (s *Session) SettingSource(name string) (source, resetVal string) {
	d, err := guc.Lookup(name)
	if err != nil {
		return "", ""
	}
	k := strings.ToLower(d.Name)
	resetVal, source = d.Default, "default"
	if v, ok := s.conf[k]; ok {
		resetVal, source = v, "configuration file"
	}
	if _, ok := s.txSetting(k); ok {
		return "session", resetVal
	}
	if _, ok := s.settings[k]; ok {
		return "session", resetVal
	}
	return source, resetVal
}
