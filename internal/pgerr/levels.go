package pgerr

import "strings"

// Message levels in PostgreSQL's order (elog.h). The names are the
// severities of messages and the values client_min_messages and
// log_min_messages accept; the setting DEBUG is DEBUG2 as in PostgreSQL.
var levelRank = map[string]int{
	"debug5": 10, "debug4": 11, "debug3": 12, "debug2": 13, "debug": 13, "debug1": 14,
	"log": 15, "info": 17, "notice": 18, "warning": 19, "error": 21, "fatal": 22, "panic": 23,
}

const rankLog, rankInfo, rankError, rankFatal = 15, 17, 21, 22

func rank(name string) (int, bool) {
	r, ok := levelRank[strings.ToLower(name)]
	return r, ok
}

// Reported says whether a message of severity sev passes a minimum level
// setting min: toClient for client_min_messages (INFO always reaches the
// client, as in PostgreSQL), else log_min_messages, where LOG ranks between
// ERROR and FATAL (PostgreSQL's is_log_level_output). An unknown severity
// is reported; an unknown minimum counts as the default (NOTICE for the
// client, WARNING for the log).
func Reported(sev, min string, toClient bool) bool {
	r, ok := rank(sev)
	if !ok {
		return true
	}
	if strings.EqualFold(sev, "debug") {
		r = levelRank["debug1"] // a message's DEBUG is any of DEBUG1..5: let it through
	}
	m, ok := rank(min)
	if !ok {
		m = levelRank["warning"]
		if toClient {
			m = levelRank["notice"]
		}
	}
	if toClient {
		return r >= m || r == rankInfo
	}
	switch {
	case r == rankLog:
		return m == rankLog || m <= rankError
	case m == rankLog:
		return r >= rankFatal
	}
	return r >= m
}
