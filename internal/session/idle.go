package session

import "time"

// IdleTimeout implements pgwire's optional idle-timeout hook: while the
// session sits inside a transaction block (open or failed), the connection
// is terminated with FATAL 25P03 if no message arrives within
// idle_in_transaction_session_timeout (0 = never), as in PostgreSQL.
func (s *Session) IdleTimeout() time.Duration {
	if !s.inBlock {
		return 0
	}
	return time.Duration(s.intSetting("idle_in_transaction_session_timeout")) * time.Millisecond
}
