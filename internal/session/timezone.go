package session

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// typeSettings returns the session settings the types package needs: the
// TimeZone for timestamptz input, output, casts and arithmetic.
func (s *Session) typeSettings() *types.Settings {
	z, err := types.LookupZone(s.Setting("TimeZone"))
	if err != nil {
		z = nil // a zone from tidal.conf that does not resolve: UTC
	}
	st := &types.Settings{Zone: z, Interrupts: &s.sig.state, UserTypes: newSessionTypes(s)}
	st.DateStyle, st.DateOrder = types.ParseDateStyle(s.Setting("DateStyle"))
	st.IntervalStyle = types.ParseIntervalStyle(s.Setting("IntervalStyle"))
	if efd, err := strconv.Atoi(s.Setting("extra_float_digits")); err == nil {
		st.RoundFloatDigits = types.RoundFloatDigitsFor(efd)
	}
	st.ByteaEscape = s.Setting("bytea_output") == "escape"
	if !s.txStart.IsZero() {
		st.TxnTime = types.TimestampFromTime(s.txStart.UTC())
	}
	return st
}

// canonicalDateStyle checks a DateStyle value and returns it as SHOW
// prints it ("ISO, MDY"); a value giving only one half keeps the other
// from the current setting.
func (s *Session) canonicalDateStyle(v string) (string, error) {
	return types.CanonicalDateStyle(v, s.Setting("DateStyle"))
}

// canonicalTimeZone checks a TimeZone value and returns it as SHOW
// prints it: a number is hours east of Greenwich ("<+02>-02"), anything
// else a zone name or POSIX offset.
func canonicalTimeZone(v string) (string, error) {
	z, err := types.ZoneForSetting(v)
	if err != nil {
		return "", err
	}
	return z.Name, nil
}

// intervalTimeZone is SET TIME ZONE INTERVAL '…' [HOUR TO MINUTE]: the
// interval's time becomes a fixed offset east of Greenwich.
func intervalTimeZone(name string, tc *pg.TypeCast) (string, bool, error) {
	if !strings.EqualFold(name, "timezone") || tc.TypeName == nil {
		return "", false, nil
	}
	t, err := expr.TypeFromName(tc.TypeName)
	if err != nil || t.OID != types.IntervalOID {
		return "", false, nil
	}
	d, err := types.Parse(t, tc.Arg.GetAConst().GetSval().GetSval())
	if err != nil {
		return "", true, err
	}
	z, err := types.TimeZoneFromInterval(d)
	if err != nil {
		return "", true, err
	}
	return z.Name, true, nil
}
