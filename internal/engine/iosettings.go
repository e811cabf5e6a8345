package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// ApplyIOSettings fills the start-up I/O settings from a settings lookup
// (tidal.conf and -c values): io_direct and tidal.io_read_latency.
func (c *Config) ApplyIOSettings(get func(name string) string) error {
	direct, err := ParseIODirect(get("io_direct"))
	if err != nil {
		return err
	}
	c.DirectIO = direct
	us, _ := strconv.ParseInt(get("tidal.io_read_latency"), 10, 64)
	c.IOReadLatency = time.Duration(us) * time.Microsecond
	return nil
}

// ParseIODirect checks io_direct (PostgreSQL 17's debug_io_direct list
// syntax): empty, or "data". Direct I/O for WAL is not implemented.
func ParseIODirect(v string) (bool, error) {
	direct := false
	for _, item := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(item)) {
		case "":
		case "data":
			direct = true
		case "wal", "wal_init":
			return false, pgerr.Errorf(pgerr.FeatureNotSupported, "io_direct = %s is not supported by tidal: only \"data\" is", strings.TrimSpace(item))
		default:
			return false, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"io_direct\": \"%s\"", v).
				WithDetail("Invalid option \"%s\"", strings.TrimSpace(item))
		}
	}
	return direct, nil
}
