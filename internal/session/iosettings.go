package session

import (
	"strconv"

	"github.com/tidal-db/tidal/internal/stats"
)

// ioSettingNames are the settings the buffer layer reads from the
// session's usage (read streams, pg_stat_io timing).
var ioSettingNames = map[string]bool{
	"io_combine_limit": true, "effective_io_concurrency": true,
	"maintenance_io_concurrency": true, "track_io_timing": true,
}

// syncIOSettings hands the session's read-ahead settings and
// track_io_timing to its usage, which every buffer read is given (as
// syncWALCompression does for wal_compression): at start and whenever one
// of them changes.
func (s *Session) syncIOSettings() {
	atoi := func(name string) int {
		n, _ := strconv.Atoi(s.Setting(name))
		return n
	}
	s.usage.IO = stats.IOSettings{
		Set:                    true,
		CombineLimit:           atoi("io_combine_limit"),
		Concurrency:            atoi("effective_io_concurrency"),
		MaintenanceConcurrency: atoi("maintenance_io_concurrency"),
		TrackTiming:            s.Setting("track_io_timing") == "on",
	}
}

// SetBackendType says what pg_stat_io charges this session's I/O to: a
// client backend (the server's sessions) or a standalone backend (the
// embedded driver's).
func (s *Session) SetBackendType(b stats.BackendType) { s.usage.Backend = b }
