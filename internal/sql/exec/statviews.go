package exec

import (
	"sort"
	"time"

	"github.com/tidal-db/tidal/internal/activity"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// The activity views: pg_stat_activity (the engine's backend registry,
// with the lock manager's view of who waits), pg_locks (the heavyweight
// lock table and the predicate locks), pg_stat_database and the index
// statistics views. Columns, types and meanings are PostgreSQL 15's.

func init() {
	systemViews["pg_stat_activity"] = &systemView{cols: colSpec(
		"datid", types.Oid, "datname", types.Name, "pid", types.Int4, "leader_pid", types.Int4,
		"usesysid", types.Oid, "usename", types.Name, "application_name", types.Text,
		"client_addr", types.Text, "client_hostname", types.Text, "client_port", types.Int4,
		"backend_start", types.Timestamptz, "xact_start", types.Timestamptz, "query_start", types.Timestamptz,
		"state_change", types.Timestamptz, "wait_event_type", types.Text, "wait_event", types.Text,
		"state", types.Text, "backend_xid", types.Xid, "backend_xmin", types.Xid, "query_id", types.Int8,
		"query", types.Text, "backend_type", types.Text), rows: statActivityRows}
	systemViews["pg_locks"] = &systemView{cols: colSpec(
		"locktype", types.Text, "database", types.Oid, "relation", types.Oid, "page", types.Int4,
		"tuple", types.Int2, "virtualxid", types.Text, "transactionid", types.Xid, "classid", types.Oid,
		"objid", types.Oid, "objsubid", types.Int2, "virtualtransaction", types.Text, "pid", types.Int4,
		"mode", types.Text, "granted", types.Boolean, "fastpath", types.Boolean, "waitstart", types.Timestamptz),
		rows: locksRows}
	systemViews["pg_stat_database"] = &systemView{cols: colSpec(
		"datid", types.Oid, "datname", types.Name, "numbackends", types.Int4,
		"xact_commit", types.Int8, "xact_rollback", types.Int8, "blks_read", types.Int8, "blks_hit", types.Int8,
		"tup_returned", types.Int8, "tup_fetched", types.Int8, "tup_inserted", types.Int8,
		"tup_updated", types.Int8, "tup_deleted", types.Int8, "conflicts", types.Int8,
		"temp_files", types.Int8, "temp_bytes", types.Int8, "deadlocks", types.Int8,
		"checksum_failures", types.Int8, "checksum_last_failure", types.Timestamptz,
		"blk_read_time", types.Float8, "blk_write_time", types.Float8, "session_time", types.Float8,
		"active_time", types.Float8, "idle_in_transaction_time", types.Float8, "sessions", types.Int8,
		"sessions_abandoned", types.Int8, "sessions_fatal", types.Int8, "sessions_killed", types.Int8,
		"stats_reset", types.Timestamptz), rows: statDatabaseRows}
	for _, v := range []struct {
		name string
		keep func(nsp uint32) bool
	}{
		{"pg_stat_all_indexes", func(uint32) bool { return true }},
		{"pg_stat_user_indexes", isUserNamespace},
		{"pg_stat_sys_indexes", func(nsp uint32) bool { return !isUserNamespace(nsp) }},
	} {
		keep := v.keep
		systemViews[v.name] = &systemView{cols: colSpec(
			"relid", types.Oid, "indexrelid", types.Oid, "schemaname", types.Name, "relname", types.Name,
			"indexrelname", types.Name, "idx_scan", types.Int8, "idx_tup_read", types.Int8, "idx_tup_fetch", types.Int8),
			rows: func(c *Ctx) ([]Row, error) { return statIndexRows(c, keep) }}
	}
}

// isUserNamespace: not pg_catalog, information_schema or a TOAST schema
// (the split between PostgreSQL's _user_ and _sys_ views).
func isUserNamespace(nsp uint32) bool {
	return nsp != catalog.PgCatalogNamespace && nsp != catalog.PgToastNamespace && nsp != catalog.InfoSchemaNamespace
}

// ts is a timestamptz, NULL for the zero time.
func ts(t time.Time) types.Datum {
	if t.IsZero() {
		return types.Null()
	}
	return types.TimestampMicros(types.TimestampFromTime(t.UTC()))
}

func nonEmpty(s string) types.Datum {
	if s == "" {
		return types.Null()
	}
	return types.Str(s)
}

func nonZero(v int64) types.Datum {
	if v == 0 {
		return types.Null()
	}
	return types.Int(v)
}

// lockWaitEvents names the wait events of heavyweight lock waits, by tag
// kind (PostgreSQL's wait event type Lock).
var lockWaitEvents = map[uint8]string{
	xact.LockRelation: "relation", xact.LockTransaction: "transactionid", xact.LockTuple: "tuple",
	xact.LockAdvisory: "advisory", xact.LockAdvisory2: "advisory",
}

func statActivityRows(c *Ctx) ([]Row, error) {
	canSee, err := statsVisibility(c)
	if err != nil {
		return nil, err
	}
	procs := c.Eng.Xact.ProcStatus()
	var out []Row
	for _, b := range c.Eng.Backends.All() {
		out = append(out, activityRow(b, b.Activity.Snapshot(), procs[b.PID], canSee(b.Role)))
	}
	return out, nil
}

func activityRow(b *interrupt.Backend, a activity.Row, p xact.ProcInfo, visible bool) Row {
	cl := a.Client
	var datName, userName types.Datum = types.Null(), types.Null()
	if cl.DatID != 0 {
		datName = types.Str(cl.DatName)
	}
	if cl.UserID != 0 {
		userName = types.Str(cl.UserName)
	}
	row := Row{nonZero(int64(cl.DatID)), datName, types.Int(int64(b.PID)), types.Null(),
		nonZero(int64(cl.UserID)), userName, types.Str(cl.AppName)}
	if !visible {
		// To those without the privileges of its role or of
		// pg_read_all_stats, PostgreSQL shows only who the backend is and
		// its transaction horizon.
		for i := 0; i < 10; i++ {
			row = append(row, types.Null())
		}
		return append(row, nonZero(int64(p.Xid)), nonZero(int64(p.Xmin)), types.Null(),
			types.Str("<insufficient privilege>"), types.Null())
	}
	port := types.Null()
	if cl.Port != 0 {
		port = types.Int(int64(cl.Port))
	}
	waitType, wait := a.WaitEventType, a.WaitEvent
	switch {
	case p.Waits:
		waitType, wait = "Lock", lockWaitEvents[p.Waiting.Kind]
	case waitType == "" && isIdle(a.State) && b.BackendType() == interrupt.ClientBackend:
		waitType, wait = "Client", "ClientRead"
	}
	return append(row, nonEmpty(cl.Addr), types.Null(), port,
		ts(a.BackendStart), ts(a.XactStart), ts(a.QueryStart), ts(a.StateChange),
		nonEmpty(waitType), nonEmpty(wait), nonEmpty(a.State.String()),
		nonZero(int64(p.Xid)), nonZero(int64(p.Xmin)), types.Null(),
		types.Str(a.Query), types.Str(b.BackendType()))
}

func isIdle(s activity.State) bool {
	return s == activity.Idle || s == activity.IdleInTransaction || s == activity.IdleInTransactionAborted
}

// statsVisibility says whose activity the current user may see in full:
// a superuser's or pg_read_all_stats member's, everyone's; else that of
// roles whose privileges it has (HAS_PGSTAT_PERMISSIONS).
func statsVisibility(c *Ctx) (func(role uint32) bool, error) {
	user := c.CurrentUser()
	u, err := c.Eng.Catalog.LookupRole(c.Tx, user)
	if err != nil || u == nil {
		return func(uint32) bool { return false }, err
	}
	if u.Super {
		return func(uint32) bool { return true }, nil
	}
	g, err := c.Eng.Catalog.LoadMembershipGraph(c.Tx)
	if err != nil {
		return nil, err
	}
	if g.IsMember(u.OID, pgReadAllStatsID, true) {
		return func(uint32) bool { return true }, nil
	}
	return func(role uint32) bool { return role == u.OID || g.IsMember(u.OID, role, true) }, nil
}

// pgReadAllStatsID is the predefined role pg_read_all_stats.
const pgReadAllStatsID = 3375

// sharedCatalogs are PostgreSQL's shared relations: pg_locks shows their
// locks with database 0.
var sharedCatalogs = map[uint32]bool{1213: true, 1214: true, 1260: true, 1261: true, 1262: true,
	2396: true, 2964: true, 3592: true, 6000: true, 6100: true}

// lockRow is one pg_locks row with the identifying columns left NULL; the
// lock's kind fills them in.
func lockRow(locktype string, vxid string, pid int32, mode string, granted, fastpath bool, waitStart time.Time) Row {
	r := make(Row, 16)
	for i := range r {
		r[i] = types.Null()
	}
	r[0] = types.Str(locktype)
	r[10] = types.Str(vxid)
	r[11] = nonZero(int64(pid))
	r[12], r[13], r[14], r[15] = types.Str(mode), types.Bool(granted), types.Bool(fastpath), ts(waitStart)
	return r
}

func locksRows(c *Ctx) ([]Row, error) {
	files, err := c.Eng.Catalog.RelationsByFileNode(c.Tx)
	if err != nil {
		return nil, err
	}
	relOID := func(file uint32) types.Datum {
		if o, ok := files[file]; ok {
			return types.Int(int64(o))
		}
		return types.Int(int64(file))
	}
	db := types.Int(catalog.DatabaseOID)
	var out []Row
	// Each backend in a transaction holds its virtual transaction id.
	procs := c.Eng.Xact.ProcStatus()
	for _, b := range c.Eng.Backends.All() {
		p, ok := procs[b.PID]
		if !ok || b.Activity.Snapshot().XactStart.IsZero() {
			continue
		}
		r := lockRow("virtualxid", p.VXid, b.PID, xact.ExclusiveLock.String(), true, true, time.Time{})
		r[5] = types.Str(p.VXid)
		out = append(out, r)
	}
	for _, l := range c.Eng.Xact.LockStatus() {
		t := l.Tag
		var r Row
		switch t.Kind {
		case xact.LockRelation:
			r = lockRow("relation", l.VXid, l.PID, l.Mode.String(), l.Granted, l.Weak, l.WaitStart)
			r[1] = db
			if sharedCatalogs[t.A] {
				r[1] = types.Int(0)
			}
			r[2] = types.Int(int64(t.A))
		case xact.LockTransaction:
			r = lockRow("transactionid", l.VXid, l.PID, l.Mode.String(), l.Granted, false, l.WaitStart)
			r[6] = types.Int(int64(t.A))
		case xact.LockTuple:
			r = lockRow("tuple", l.VXid, l.PID, l.Mode.String(), l.Granted, false, l.WaitStart)
			r[1], r[2], r[3], r[4] = db, relOID(t.A), types.Int(int64(t.B)), types.Int(int64(t.C))
		case xact.LockAdvisory, xact.LockAdvisory2:
			r = lockRow("advisory", l.VXid, l.PID, l.Mode.String(), l.Granted, false, l.WaitStart)
			sub := int64(1)
			if t.Kind == xact.LockAdvisory2 {
				sub = 2
			}
			r[1], r[7], r[8], r[9] = db, types.Int(int64(t.A)), types.Int(int64(t.B)), types.Int(sub)
		default:
			continue
		}
		out = append(out, r)
	}
	return append(out, predicateLockRows(c, db, relOID)...), nil
}

// predicateLockRows are the SIREAD locks, as PostgreSQL lists them after
// the heavyweight ones.
func predicateLockRows(c *Ctx, db types.Datum, relOID func(uint32) types.Datum) []Row {
	if c.Eng.AMEnv == nil || c.Eng.AMEnv.Pred == nil {
		return nil
	}
	locks := c.Eng.AMEnv.Pred.Locks()
	sort.Slice(locks, func(i, j int) bool {
		a, b := locks[i], locks[j]
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		if a.Target.Rel != b.Target.Rel {
			return a.Target.Rel < b.Target.Rel
		}
		if a.Target.Block != b.Target.Block {
			return a.Target.Block+1 < b.Target.Block+1 // relation targets first
		}
		return a.Target.Offset < b.Target.Offset
	})
	var out []Row
	for _, l := range locks {
		t := l.Target
		r := lockRow(t.Kind(), l.VXid, l.PID, "SIReadLock", true, false, time.Time{})
		r[1], r[2] = db, relOID(t.Rel)
		if t.Kind() != "relation" {
			r[3] = types.Int(int64(t.Block))
		}
		if t.Kind() == "tuple" {
			r[4] = types.Int(int64(t.Offset))
		}
		out = append(out, r)
	}
	return out
}

func statDatabaseRows(c *Ctx) ([]Row, error) {
	d := c.Eng.Stats.Database()
	numBackends := 0
	for _, b := range c.Eng.Backends.All() {
		if b.Activity.Snapshot().Client.DatID == catalog.DatabaseOID {
			numBackends++
		}
	}
	ms := func(t time.Duration) types.Datum { return types.Float(float64(t.Microseconds()) / 1000) }
	row := func(datid types.Datum, datname types.Datum, n int, d stats.DatabaseCounters) Row {
		return Row{datid, datname, types.Int(int64(n)),
			types.Int(d.XactCommit), types.Int(d.XactRollback), types.Int(d.BlksRead), types.Int(d.BlksHit),
			types.Int(d.TupReturned), types.Int(d.TupFetched), types.Int(d.TupInserted),
			types.Int(d.TupUpdated), types.Int(d.TupDeleted), types.Int(d.Conflicts),
			types.Int(d.TempFiles), types.Int(d.TempBytes), types.Int(d.Deadlocks),
			// tidal always has data checksums, so these are never NULL.
			types.Int(d.ChecksumFailures), ts(d.ChecksumLastFailure),
			types.Float(0), types.Float(0), ms(d.SessionTime), ms(d.ActiveTime), ms(d.IdleInXactTime),
			types.Int(d.Sessions), types.Int(d.SessionsAbandoned), types.Int(d.SessionsFatal),
			types.Int(d.SessionsKilled), ts(d.StatsReset)}
	}
	// Row 0 is shared objects': tidal counts no activity against it.
	return []Row{
		row(types.Int(0), types.Null(), 0, stats.DatabaseCounters{}),
		row(types.Int(catalog.DatabaseOID), types.Str("postgres"), numBackends, d),
	}, nil
}

func statIndexRows(c *Ctx, keep func(nsp uint32) bool) ([]Row, error) {
	tables, err := c.Eng.Catalog.AllTables(c.Tx)
	if err != nil {
		return nil, err
	}
	counters := c.Eng.Stats.Indexes()
	var out []Row
	for _, t := range tables {
		if !keep(t.Namespace) {
			continue
		}
		nsp := types.Str(c.Eng.Catalog.NamespaceName(t.Namespace))
		for _, ix := range t.Indexes {
			s := counters[ix.OID]
			out = append(out, Row{types.Int(int64(t.OID)), types.Int(int64(ix.OID)), nsp, types.Str(t.Name),
				types.Str(ix.Name), types.Int(s.IdxScan), types.Int(s.IdxTupRead), types.Int(s.IdxTupFetch)})
		}
	}
	return out, nil
}
