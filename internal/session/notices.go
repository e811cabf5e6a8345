package session

import "github.com/tidal-db/tidal/internal/pgerr"

// SendsNotice implements pgwire.NoticeFilter: client_min_messages, read
// when the notice is sent, so a SET earlier in the same query string counts.
func (s *Session) SendsNotice(severity string) bool {
	return pgerr.Reported(severity, s.Setting("client_min_messages"), true)
}
