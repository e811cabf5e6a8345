// Package driver is tidal embedded in a Go program: a database/sql driver,
// registered as "tidal", that opens a data directory in-process — no
// server, no network — and runs the same engine and SQL as `tidal serve`.
//
//	import _ "github.com/tidal-db/tidal/driver"
//
//	db, err := sql.Open("tidal", "/path/to/data")   // created on first use
//	db.Exec("CREATE TABLE t (id int PRIMARY KEY, v text)")
//	db.Exec("INSERT INTO t VALUES ($1, $2)", 1, "one")
//
// The DSN is a data-directory path, optionally followed by settings as a
// query string: "/path/to/data?shared_buffers=64MB&fsync=off". Every
// sql.DB opened on the same directory in one process shares one engine;
// the engine shuts down cleanly (checkpoint) when the last one is closed.
// A directory is used by one process at a time (a second process, or a
// tidal server, is refused by the data directory's lock file).
package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableams"
	"io"
	"log"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/session"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/wal"
)

func init() { sql.Register("tidal", &Driver{}) }

// Driver is the database/sql driver.
type Driver struct{}

// Error is the error type queries return: a PostgreSQL-style error with
// SQLSTATE (Code), message, detail and hint.
type Error = pgerr.Error

type openEngine struct {
	eng  *engine.Engine
	refs int
}

var (
	enginesMu sync.Mutex
	engines   = map[string]*openEngine{}
)

// Open implements driver.Driver.
func (d *Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector implements driver.DriverContext.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	dir, query, _ := strings.Cut(dsn, "?")
	if dir == "" {
		return nil, errors.New("tidal: the DSN must name a data directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	conf := map[string]string{}
	if query != "" {
		vals, err := url.ParseQuery(query)
		if err != nil {
			return nil, fmt.Errorf("tidal: bad DSN settings: %w", err)
		}
		for k, v := range vals {
			def, err := guc.Lookup(k)
			if err != nil {
				return nil, err
			}
			nv, err := def.Normalize(v[len(v)-1])
			if err != nil {
				return nil, err
			}
			conf[strings.ToLower(def.Name)] = nv
		}
	}
	return &connector{dir: abs, conf: conf, drv: d}, nil
}

type connector struct {
	dir  string
	conf map[string]string
	drv  *Driver
}

func (c *connector) Driver() driver.Driver { return c.drv }

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	enginesMu.Lock()
	defer enginesMu.Unlock()
	oe := engines[c.dir]
	if oe == nil {
		cfg := engine.DefaultConfig(c.dir)
		get := func(name string) string {
			d, _ := guc.Lookup(name)
			if v, ok := c.conf[strings.ToLower(d.Name)]; ok {
				return v
			}
			return d.Default
		}
		sb, _ := guc.Lookup("shared_buffers")
		cfg.SharedBuffers = int(sb.Bytes(get("shared_buffers")))
		cfg.Fsync = get("fsync") == "on"
		cfg.FullPageWrites = get("full_page_writes") == "on"
		wc, err := wal.ParseCompression(get("wal_compression"))
		if err != nil {
			return nil, err
		}
		cfg.WALCompression = wc
		if err := cfg.ApplyIOSettings(get); err != nil {
			return nil, err
		}
		cfg.ApplyLockSettings(get)
		cfg.Logger = log.New(io.Discard, "", 0)
		cfg.AccessMethods = tableams.Builtin()
		eng, err := engine.Open(cfg)
		if err != nil {
			return nil, err
		}
		oe = &openEngine{eng: eng}
		engines[c.dir] = oe
		session.StartAutovacuum(eng, c.conf)
	}
	oe.refs++
	// Sessions take this DSN's settings (statement_timeout, TimeZone …)
	// even when another sql.DB opened the engine first; settings that
	// only apply at start (shared_buffers, fsync) are the first opener's.
	sess := session.New(oe.eng, c.conf)
	sess.SetBackendType(stats.StandaloneBackend)
	return &conn{dir: c.dir, sess: sess}, nil
}

func release(dir string) error {
	enginesMu.Lock()
	defer enginesMu.Unlock()
	oe := engines[dir]
	if oe == nil {
		return nil
	}
	oe.refs--
	if oe.refs > 0 {
		return nil
	}
	delete(engines, dir)
	return oe.eng.Close()
}

// conn is one session.
type conn struct {
	dir    string
	sess   *session.Session
	closed bool
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return &stmt{c: c, query: query}, nil
}

func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.sess.Close()
	return release(c.dir)
}

func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	q := "BEGIN"
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault:
	case sql.LevelReadCommitted:
		q += " ISOLATION LEVEL READ COMMITTED"
	case sql.LevelRepeatableRead, sql.LevelSnapshot:
		q += " ISOLATION LEVEL REPEATABLE READ"
	case sql.LevelSerializable:
		q += " ISOLATION LEVEL SERIALIZABLE"
	default:
		return nil, fmt.Errorf("tidal: isolation level %v is not supported", sql.IsolationLevel(opts.Isolation))
	}
	if opts.ReadOnly {
		q += " READ ONLY"
	}
	if err := c.simple(ctx, q); err != nil {
		return nil, err
	}
	return &tx{c: c}, nil
}

func (c *conn) simple(ctx context.Context, q string) error {
	return c.sess.SimpleQuery(ctx, q, &collector{})
}

type tx struct{ c *conn }

func (t *tx) Commit() error   { return t.c.simple(context.Background(), "COMMIT") }
func (t *tx) Rollback() error { return t.c.simple(context.Background(), "ROLLBACK") }

// ExecContext implements driver.ExecerContext.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	col, err := c.run(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return result(col.last().tag), nil
}

// QueryContext implements driver.QueryerContext.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	col, err := c.run(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return &rows{sets: col.rowSets(), tz: c.timeZone()}, nil
}

// run executes a query. Without arguments it goes the way of a simple
// Query message (as lib/pq does), so a string of several statements runs
// as PostgreSQL runs them: in one implicit transaction unless they say
// otherwise, each with its own result. With arguments it takes the
// extended-protocol path: Parse, Bind (text parameters), Describe, Execute,
// Sync, which allows exactly one statement. Rows are collected in memory.
func (c *conn) run(ctx context.Context, query string, args []driver.NamedValue) (*collector, error) {
	if c.closed {
		return nil, driver.ErrBadConn
	}
	// The caller's context ends a statement as a CancelRequest would
	// ("canceling statement due to user request"), by its deadline too:
	// inside the session a deadline means statement_timeout.
	parent := ctx
	ctx, stop := context.WithCancel(context.WithoutCancel(parent))
	defer stop()
	defer context.AfterFunc(parent, stop)()
	if len(args) == 0 {
		col := &collector{}
		if err := c.sess.SimpleQuery(ctx, query, col); err != nil {
			return nil, pgerr.From(err)
		}
		return col, nil
	}
	params := make([][]byte, len(args))
	for i, a := range args {
		b, err := encodeArg(a.Value)
		if err != nil {
			return nil, fmt.Errorf("tidal: argument $%d: %w", i+1, err)
		}
		params[i] = b
	}
	col := &collector{}
	err := c.sess.Parse(ctx, "", query, nil)
	if err == nil {
		err = c.sess.Bind(ctx, "", "", nil, params, nil)
	}
	var fields []pgwire.FieldDesc
	if err == nil {
		fields, err = c.sess.DescribePortal("")
	}
	if err == nil {
		// Execute sends no RowDescription: Describe gave it.
		if fields != nil {
			err = col.RowDescription(fields)
		}
		if err == nil {
			_, err = c.sess.Execute(ctx, "", 0, col)
		}
	}
	if serr := c.sess.Sync(); err == nil {
		err = serr
	}
	if err != nil {
		return nil, pgerr.From(err)
	}
	return col, nil
}

func encodeArg(v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		return strconv.AppendInt(nil, x, 10), nil
	case float64:
		return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
	case bool:
		if x {
			return []byte("t"), nil
		}
		return []byte("f"), nil
	case string:
		return []byte(x), nil
	case []byte:
		out := []byte(`\x`)
		const hex = "0123456789abcdef"
		for _, b := range x {
			out = append(out, hex[b>>4], hex[b&15])
		}
		return out, nil
	case time.Time:
		return encodeTime(x), nil
	}
	return nil, fmt.Errorf("unsupported type %T", v)
}

// encodeTime formats t as its wall-clock time and UTC offset, as lib/pq
// and pgx send a time.Time: a timestamptz parameter gets the instant
// whatever the session's TimeZone, a timestamp parameter the wall clock
// (the offset is ignored). BC years and microseconds use tidal's own
// output function.
func encodeTime(t time.Time) []byte {
	y, mo, d := t.Date()
	var s string
	if y >= -4713 && y <= 294276 {
		wall := time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		s = types.FormatText(types.Timestamp, types.TimestampMicros(types.TimestampFromTime(wall)))
	} else {
		// beyond timestamp's range (a date parameter): no microsecond count
		year, bc := y, ""
		if y <= 0 {
			year, bc = 1-y, " BC"
		}
		s = fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d%s", year, mo, d, t.Hour(), t.Minute(), t.Second(), bc)
	}
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	zone := fmt.Sprintf("%s%02d:%02d:%02d", sign, off/3600, off%3600/60, off%60)
	if rest, bc := strings.CutSuffix(s, " BC"); bc {
		return []byte(rest + zone + " BC")
	}
	return []byte(s + zone)
}

// collector is a ResultWriter that keeps what each statement of a query
// returned, in order.
type collector struct {
	results []*statementResult
	open    *statementResult // the statement whose rows are arriving
}

// statementResult is one statement's outcome: rows (fields is nil for a
// statement that returns none) and its command tag.
type statementResult struct {
	fields []pgwire.FieldDesc
	rows   [][][]byte
	tag    string
}

func (c *collector) current() *statementResult {
	if c.open == nil {
		c.open = &statementResult{}
		c.results = append(c.results, c.open)
	}
	return c.open
}

func (c *collector) RowDescription(f []pgwire.FieldDesc) error {
	c.current().fields = f
	return nil
}

func (c *collector) DataRow(v [][]byte) error {
	row := make([][]byte, len(v))
	for i, b := range v {
		if b != nil {
			row[i] = append([]byte{}, b...)
		}
	}
	r := c.current()
	r.rows = append(r.rows, row)
	return nil
}

func (c *collector) CommandComplete(tag string) error {
	c.current().tag = tag
	c.open = nil
	return nil
}

func (c *collector) EmptyQuery() error         { c.current(); c.open = nil; return nil }
func (c *collector) Notice(*pgerr.Error) error { return nil }

// last is the last statement's result (an empty one for an empty query).
func (c *collector) last() *statementResult {
	if len(c.results) == 0 {
		return &statementResult{}
	}
	return c.results[len(c.results)-1]
}

// rowSets are the results that have rows, as database/sql's result sets
// (lib/pq likewise skips statements that return none); a query with no
// row-returning statement has one empty set.
func (c *collector) rowSets() []*statementResult {
	var sets []*statementResult
	for _, r := range c.results {
		if r.fields != nil {
			sets = append(sets, r)
		}
	}
	if len(sets) == 0 {
		sets = append(sets, &statementResult{})
	}
	return sets
}

type result string

func (r result) LastInsertId() (int64, error) {
	return 0, errors.New("tidal: LastInsertId is not supported; use RETURNING")
}

func (r result) RowsAffected() (int64, error) {
	f := strings.Fields(string(r))
	if len(f) == 0 {
		return 0, nil
	}
	n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		return 0, nil
	}
	return n, nil
}

type stmt struct {
	c     *conn
	query string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.query, named(args))
}
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.query, named(args))
}
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.c.ExecContext(ctx, s.query, args)
}
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.c.QueryContext(ctx, s.query, args)
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// rows walks the result sets of a query: sets[0] until NextResultSet.
type rows struct {
	sets []*statementResult
	set  int // index into sets
	i    int // next row of sets[set]
	tz   *time.Location
}

func (r *rows) cur() *statementResult { return r.sets[r.set] }

func (r *rows) Columns() []string {
	fields := r.cur().fields
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

func (r *rows) Close() error { return nil }

func (r *rows) HasNextResultSet() bool { return r.set+1 < len(r.sets) }

func (r *rows) NextResultSet() error {
	if !r.HasNextResultSet() {
		return io.EOF
	}
	r.set++
	r.i = 0
	return nil
}

func (r *rows) Next(dest []driver.Value) error {
	set := r.cur()
	if r.i >= len(set.rows) {
		return io.EOF
	}
	row := set.rows[r.i]
	r.i++
	for i, b := range row {
		if b == nil {
			dest[i] = nil
			continue
		}
		v, err := decode(set.fields[i].TypeOID, b, r.tz)
		if err != nil {
			return fmt.Errorf("tidal: column %q: %w", set.fields[i].Name, err)
		}
		dest[i] = v
	}
	return nil
}

// ColumnTypeDatabaseTypeName implements driver.RowsColumnTypeDatabaseTypeName:
// the upper-case pg_type name, "_INT4" for an array, as lib/pq reports it.
func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := types.TypeByOID(r.cur().fields[i].TypeOID); ok {
		return strings.ToUpper(t.TypName())
	}
	return ""
}

// timeZone is the session's TimeZone setting, in which timestamptz values
// are returned (as lib/pq returns them in the server's).
func (c *conn) timeZone() *time.Location {
	if loc, err := time.LoadLocation(c.sess.Get("TimeZone")); err == nil {
		return loc
	}
	return time.UTC
}

// decode turns a text-format value into the Go value database/sql
// programs expect for its type, the same ones lib/pq returns: int64 for
// integers, float64, bool, []byte for bytea, time.Time for timestamps;
// every other type as its text.
func decode(oid uint32, b []byte, tz *time.Location) (driver.Value, error) {
	s := string(b)
	switch oid {
	case types.Int2OID, types.Int4OID, types.Int8OID, types.OidOID:
		return strconv.ParseInt(s, 10, 64)
	case types.Float4OID, types.Float8OID:
		return strconv.ParseFloat(s, 64)
	case types.BoolOID:
		return s == "t", nil
	case types.ByteaOID:
		d, err := types.Parse(types.Bytea, s)
		if err != nil {
			return nil, err
		}
		return []byte(d.Str()), nil
	case types.TimestampOID, types.TimestamptzOID:
		t := types.Timestamp
		if oid == types.TimestamptzOID {
			t = types.Timestamptz
		}
		d, err := types.Parse(t, s)
		if err != nil {
			return nil, err
		}
		if d.Micros() == types.TimestampInfinity || d.Micros() == types.TimestampNegInfinity {
			return s, nil // infinity has no time.Time
		}
		if oid == types.TimestamptzOID {
			at := types.TimeFromTimestamp(d.Micros()).In(tz)
			// The text carries the offset the server used; keep the
			// session's zone only when it agrees (a TimeZone such as
			// '+02' or 'UTC+3' is no Go location), as lib/pq does.
			if off, ok := utcOffset(s); ok {
				if _, tzOff := at.Zone(); tzOff != off {
					at = at.In(time.FixedZone("", off))
				}
			}
			return at, nil
		}
		return types.TimeFromTimestamp(d.Micros()), nil
	case types.DateOID:
		d, err := types.Parse(types.Date, s)
		if err != nil {
			return nil, err
		}
		if days := d.Int(); days != int64(types.DateInfinity) && days != int64(types.DateNegInfinity) {
			// seconds, not microseconds: the latest dates overflow the latter
			return time.Unix(days*86400+946684800, 0).UTC(), nil
		}
	}
	return s, nil
}

// utcOffset reads the UTC offset at the end of timestamptz output
// ("2026-11-30 01:02:03.5+05:30", "… -08 BC") in seconds east of UTC.
func utcOffset(s string) (int, bool) {
	s = strings.TrimSuffix(s, " BC")
	_, clock, ok := strings.Cut(s, " ")
	if !ok {
		return 0, false
	}
	i := strings.LastIndexAny(clock, "+-")
	if i < 0 {
		return 0, false
	}
	sign := 1
	if clock[i] == '-' {
		sign = -1
	}
	secs, unit := 0, 3600
	for _, part := range strings.Split(clock[i+1:], ":") {
		n, err := strconv.Atoi(part)
		if err != nil || unit == 0 {
			return 0, false
		}
		secs += n * unit
		unit /= 60
	}
	return sign * secs, true
}

var (
	_ driver.DriverContext  = (*Driver)(nil)
	_ driver.ExecerContext  = (*conn)(nil)
	_ driver.QueryerContext = (*conn)(nil)
	_ driver.ConnBeginTx    = (*conn)(nil)
)
