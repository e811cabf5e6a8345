// Package guc holds configuration parameters with PostgreSQL's names,
// units, defaults and SET/SHOW/RESET behaviour, and reads tidal.conf
// (postgresql.conf syntax).
package guc

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Kind of a parameter's value.
type Kind int

const (
	Bool Kind = iota
	Int
	Real
	String
	Enum
)

// Context says when a parameter can change (pg_settings.context).
type Context string

const (
	Internal   Context = "internal"
	Postmaster Context = "postmaster"
	Sighup     Context = "sighup"
	User       Context = "user"
	Superuser  Context = "superuser"
)

// Def describes a parameter.
type Def struct {
	Name    string
	Kind    Kind
	Default string
	Unit    string // "kB", "8kB", "ms", "s", "min" for Int parameters
	Context Context
	Enum    []string
	// Aliases are other spellings an Enum accepts and the value each
	// stands for (PostgreSQL's hidden enum entries, and visible ones such
	// as wal_compression's "on" that mean another value).
	Aliases map[string]string
	Min     int64
	Max     int64
	// FMin and FMax bound a Real parameter.
	FMin, FMax float64
	Desc       string
}

// Defs lists the parameters tidal knows.
var Defs = map[string]*Def{}

func def(d Def) { Defs[strings.ToLower(d.Name)] = &d }

func init() {
	def(Def{Name: "server_version", Kind: String, Default: "17.0", Context: Internal, Desc: "Shows the server version."})
	def(Def{Name: "server_version_num", Kind: Int, Default: "170000", Context: Internal, Min: 170000, Max: 170000})
	def(Def{Name: "server_encoding", Kind: String, Default: "UTF8", Context: Internal})
	def(Def{Name: "client_encoding", Kind: String, Default: "UTF8", Context: User})
	def(Def{Name: "DateStyle", Kind: String, Default: "ISO, MDY", Context: User})
	def(Def{Name: "IntervalStyle", Kind: Enum, Default: "postgres", Context: User, Enum: []string{"postgres", "postgres_verbose", "sql_standard", "iso_8601"}})
	def(Def{Name: "TimeZone", Kind: String, Default: "UTC", Context: User})
	def(Def{Name: "integer_datetimes", Kind: Bool, Default: "on", Context: Internal})
	def(Def{Name: "standard_conforming_strings", Kind: Bool, Default: "on", Context: User})
	def(Def{Name: "application_name", Kind: String, Default: "", Context: User})
	def(Def{Name: "search_path", Kind: String, Default: "\"$user\", public", Context: User})
	def(Def{Name: "check_function_bodies", Kind: Bool, Default: "on", Context: User, Desc: "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE."})
	def(Def{Name: "max_stack_depth", Kind: Int, Default: "2048", Unit: "kB", Context: Superuser, Min: 100, Max: 2147483647, Desc: "Sets the maximum stack depth, in kilobytes."})
	def(Def{Name: "is_superuser", Kind: Bool, Default: "on", Context: Internal})
	def(Def{Name: "session_authorization", Kind: String, Default: "postgres", Context: Superuser})
	def(Def{Name: "role", Kind: String, Default: "none", Context: User})
	// Accepted so that scripts setting them run; tidal's planner does not
	// read them (it has no parallel-mode test harness, no statistics
	// targets and prunes partitions always).
	boolAliases := map[string]string{"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off", "0": "off"}
	def(Def{Name: "force_parallel_mode", Kind: Enum, Default: "off", Context: User, Enum: []string{"off", "on", "regress"}, Aliases: boolAliases})
	def(Def{Name: "default_statistics_target", Kind: Int, Default: "100", Context: User, Min: 1, Max: 10000})
	def(Def{Name: "constraint_exclusion", Kind: Enum, Default: "partition", Context: User, Enum: []string{"partition", "on", "off"}, Aliases: boolAliases})
	def(Def{Name: "default_transaction_read_only", Kind: Bool, Default: "off", Context: User})
	def(Def{Name: "transaction_read_only", Kind: Bool, Default: "off", Context: User})
	def(Def{Name: "default_transaction_deferrable", Kind: Bool, Default: "off", Context: User})
	def(Def{Name: "transaction_deferrable", Kind: Bool, Default: "off", Context: User})
	def(Def{Name: "in_hot_standby", Kind: Bool, Default: "off", Context: Internal})
	def(Def{Name: "session_replication_role", Kind: Enum, Default: "origin", Context: Superuser, Enum: []string{"origin", "replica", "local"}, Desc: "Sets the session's behavior for triggers and rewrite rules."})
	def(Def{Name: "default_transaction_isolation", Kind: Enum, Default: "read committed", Context: User, Enum: []string{"serializable", "repeatable read", "read committed", "read uncommitted"}})
	def(Def{Name: "transaction_isolation", Kind: Enum, Default: "read committed", Context: User, Enum: []string{"serializable", "repeatable read", "read committed", "read uncommitted"}})
	def(Def{Name: "shared_buffers", Kind: Int, Default: "16384", Unit: "8kB", Context: Postmaster, Min: 16, Max: intMax / 2})
	def(Def{Name: "work_mem", Kind: Int, Default: "4096", Unit: "kB", Context: User, Min: 64, Max: intMax})
	def(Def{Name: "hash_mem_multiplier", Kind: Real, Default: "2", Context: User, FMin: 1, FMax: 1000, Desc: "Multiple of \"work_mem\" to use for hash tables."})
	def(Def{Name: "temp_file_limit", Kind: Int, Default: "-1", Unit: "kB", Context: Superuser, Min: -1, Max: intMax, Desc: "Limits the total size of all temporary files used by each process."})
	def(Def{Name: "log_temp_files", Kind: Int, Default: "-1", Unit: "kB", Context: Superuser, Min: -1, Max: intMax, Desc: "Log the use of temporary files larger than this number of kilobytes."})
	// tidal allows maintenance_work_mem down to 64kB (PostgreSQL: 1MB) so
	// that tests can make VACUUM run many index passes on small tables.
	def(Def{Name: "maintenance_work_mem", Kind: Int, Default: "65536", Unit: "kB", Context: User, Min: 64, Max: intMax})
	def(Def{Name: "autovacuum_work_mem", Kind: Int, Default: "-1", Unit: "kB", Context: Sighup, Min: -1, Max: intMax})
	def(Def{Name: "vacuum_buffer_usage_limit", Kind: Int, Default: "2048", Unit: "kB", Context: User, Min: 0, Max: 16 << 20, Desc: "Sets the buffer pool size for VACUUM, ANALYZE, and autovacuum."})
	def(Def{Name: "max_connections", Kind: Int, Default: "100", Context: Postmaster, Min: 1, Max: 262143})
	def(Def{Name: "max_locks_per_transaction", Kind: Int, Default: "64", Context: Postmaster, Min: 10, Max: intMax})
	// tidal has no two-phase commit (PREPARE TRANSACTION fails as it does
	// in PostgreSQL at 0), so 0 is the only value it can honour.
	def(Def{Name: "max_prepared_transactions", Kind: Int, Default: "0", Context: Postmaster, Min: 0, Max: 0})
	def(Def{Name: "max_pred_locks_per_transaction", Kind: Int, Default: "64", Context: Postmaster, Min: 10, Max: intMax})
	def(Def{Name: "max_pred_locks_per_relation", Kind: Int, Default: "-2", Context: Sighup, Min: intMin, Max: intMax})
	def(Def{Name: "max_pred_locks_per_page", Kind: Int, Default: "2", Context: Sighup, Min: 0, Max: intMax})
	def(Def{Name: "fsync", Kind: Bool, Default: "on", Context: Sighup})
	def(Def{Name: "full_page_writes", Kind: Bool, Default: "on", Context: Sighup})
	def(Def{Name: "synchronous_commit", Kind: Enum, Default: "on", Context: User, Enum: []string{"local", "remote_write", "remote_apply", "on", "off"}})
	def(Def{Name: "wal_compression", Kind: Enum, Default: "lz4", Context: Superuser, Enum: []string{"pglz", "lz4", "zstd", "on", "off"},
		Aliases: map[string]string{"on": "pglz", "true": "pglz", "yes": "pglz", "1": "pglz", "false": "off", "no": "off", "0": "off"},
		Desc:    "Compresses full-page writes written in WAL file with specified method."})
	def(Def{Name: "checkpoint_timeout", Kind: Int, Default: "300", Unit: "s", Context: Sighup, Min: 30, Max: 86400})
	def(Def{Name: "statement_timeout", Kind: Int, Default: "0", Unit: "ms", Context: User, Min: 0, Max: 1<<31 - 1})
	def(Def{Name: "idle_in_transaction_session_timeout", Kind: Int, Default: "0", Unit: "ms", Context: User, Min: 0, Max: 1<<31 - 1})
	def(Def{Name: "lock_timeout", Kind: Int, Default: "0", Unit: "ms", Context: User, Min: 0, Max: 1<<31 - 1})
	def(Def{Name: "deadlock_timeout", Kind: Int, Default: "1000", Unit: "ms", Context: Superuser, Min: 1, Max: 1<<31 - 1})
	def(Def{Name: "max_parallel_workers", Kind: Int, Default: "8", Context: User, Min: 0, Max: 1024})
	def(Def{Name: "max_parallel_maintenance_workers", Kind: Int, Default: "2", Context: User, Min: 0, Max: 1024})
	def(Def{Name: "max_parallel_workers_per_gather", Kind: Int, Default: "2", Context: User, Min: 0, Max: 1024})
	def(Def{Name: "parallel_setup_cost", Kind: Real, Default: "1000", Context: User, Min: 0})
	def(Def{Name: "parallel_tuple_cost", Kind: Real, Default: "0.1", Context: User, Min: 0})
	def(Def{Name: "min_parallel_table_scan_size", Kind: Int, Default: "1024", Unit: "8kB", Context: User, Min: 0, Max: 715827882})
	def(Def{Name: "min_parallel_index_scan_size", Kind: Int, Default: "64", Unit: "8kB", Context: User, Min: 0, Max: 715827882})
	def(Def{Name: "parallel_leader_participation", Kind: Bool, Default: "on", Context: User})
	def(Def{Name: "effective_io_concurrency", Kind: Int, Default: "1", Context: User, Min: 0, Max: 1000})
	def(Def{Name: "io_combine_limit", Kind: Int, Default: "16", Unit: "8kB", Context: User, Min: 1, Max: 32, Desc: "Limit on the size of data reads and writes."})
	def(Def{Name: "maintenance_io_concurrency", Kind: Int, Default: "10", Context: User, Min: 0, Max: 1000})
	def(Def{Name: "io_direct", Kind: String, Default: "", Context: Postmaster, Desc: "tidal: use direct I/O for relation files (PostgreSQL 17's debug_io_direct; only \"data\" is supported)."})
	def(Def{Name: "tidal.io_read_latency", Kind: Int, Default: "0", Unit: "us", Context: Postmaster, Min: 0, Max: 1000000, Desc: "tidal: latency added to every read system call of relation files, for benchmarks of read-ahead."})
	def(Def{Name: "autovacuum", Kind: Bool, Default: "on", Context: Sighup})
	def(Def{Name: "default_table_access_method", Kind: String, Default: "heap", Context: User})
	def(Def{Name: "default_toast_compression", Kind: Enum, Default: "pglz", Context: User, Enum: []string{"pglz", "lz4"}, Desc: "Sets the default compression method for compressible values."})
	def(Def{Name: "client_min_messages", Kind: Enum, Default: "notice", Context: User, Enum: []string{"debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"}})
	// PL/pgSQL's settings (internal/sql/plpgsql).
	def(Def{Name: "plpgsql.variable_conflict", Kind: Enum, Default: "error", Context: User, Enum: []string{"error", "use_variable", "use_column"}, Desc: "Sets handling of conflicts between PL/pgSQL variable names and table column names."})
	def(Def{Name: "plpgsql.print_strict_params", Kind: Bool, Default: "off", Context: User, Desc: "Print information about parameters in the DETAIL part of the error messages generated on INTO ... STRICT failures."})
	def(Def{Name: "plpgsql.check_asserts", Kind: Bool, Default: "on", Context: User, Desc: "Perform checks given in ASSERT statements."})
	def(Def{Name: "plpgsql.extra_warnings", Kind: String, Default: "none", Context: User, Desc: "List of programming constructs that should produce a warning."})
	def(Def{Name: "plpgsql.extra_errors", Kind: String, Default: "none", Context: User, Desc: "List of programming constructs that should produce an error."})
	def(Def{Name: "bytea_output", Kind: Enum, Default: "hex", Context: User, Enum: []string{"escape", "hex"}, Desc: "Sets the output format for bytea."})
	def(Def{Name: "extra_float_digits", Kind: Int, Default: "1", Context: User, Min: -15, Max: 3})
	def(Def{Name: "vacuum_dead_tid_store", Kind: Enum, Default: "radix", Context: User, Enum: []string{"radix", "array"}, Desc: "tidal: dead-TID store used by VACUUM (radix = PostgreSQL 17, array = PostgreSQL 15)."})
	def(Def{Name: "vacuum_freeze_min_age", Kind: Int, Default: "50000000", Context: User, Min: 0, Max: 1000000000})
	def(Def{Name: "vacuum_multixact_freeze_min_age", Kind: Int, Default: "5000000", Context: User, Min: 0, Max: 1000000000})
	def(Def{Name: "vacuum_multixact_freeze_table_age", Kind: Int, Default: "150000000", Context: User, Min: 0, Max: 2000000000})
	def(Def{Name: "log_autovacuum_min_duration", Kind: Int, Default: "600000", Unit: "ms", Context: Sighup, Min: -1, Max: 1<<31 - 1})
	autovacuumDefs()
	plannerDefs()
	def(Def{Name: "track_io_timing", Kind: Bool, Default: "off", Context: Superuser})
	def(Def{Name: "track_activities", Kind: Bool, Default: "on", Context: Superuser, Desc: "Collects information about executing commands."})
	def(Def{Name: "track_activity_query_size", Kind: Int, Default: "1024", Unit: "B", Context: Postmaster, Min: 100, Max: 1048576, Desc: "Sets the size reserved for pg_stat_activity.query, in bytes."})
	def(Def{Name: "jit", Kind: Bool, Default: "off", Context: User})
	def(Def{Name: "listen_addresses", Kind: String, Default: "127.0.0.1", Context: Postmaster})
	def(Def{Name: "auth_loopback", Kind: Enum, Default: "trust", Context: Sighup, Enum: []string{"trust", "scram-sha-256", "reject"}, Desc: "tidal: authentication method for loopback and Unix-socket connections."})
	def(Def{Name: "auth_remote", Kind: Enum, Default: "scram-sha-256", Context: Sighup, Enum: []string{"trust", "scram-sha-256", "reject"}, Desc: "tidal: authentication method for connections from other addresses."})
	def(Def{Name: "port", Kind: Int, Default: "5433", Context: Postmaster, Min: 1, Max: 65535})
	def(Def{Name: "data_directory", Kind: String, Default: "", Context: Postmaster})
	def(Def{Name: "block_size", Kind: Int, Default: "8192", Context: Internal, Min: 8192, Max: 8192})
	def(Def{Name: "wal_segment_size", Kind: Int, Default: "16777216", Unit: "B", Context: Internal, Min: 1 << 20, Max: 1 << 30})
	def(Def{Name: "row_security", Kind: Bool, Default: "on", Context: User})
	def(Def{Name: "lc_messages", Kind: String, Default: "C", Context: Superuser})
	def(Def{Name: "lc_monetary", Kind: String, Default: "C", Context: User})
	def(Def{Name: "lc_numeric", Kind: String, Default: "C", Context: User})
	def(Def{Name: "lc_time", Kind: String, Default: "C", Context: User})
}

// Lookup finds a parameter definition.
func Lookup(name string) (*Def, error) {
	d := Defs[strings.ToLower(name)]
	if d == nil {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	return d, nil
}

var unitMul = map[string]float64{"B": 1.0 / 1024, "kB": 1, "MB": 1024, "GB": 1024 * 1024, "TB": 1024 * 1024 * 1024,
	"us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}

// Normalize checks and canonicalises a value for the parameter: integers
// with units are converted to the parameter's base unit.
func (d *Def) Normalize(v string) (string, error) {
	v = strings.TrimSpace(v)
	bad := func() error {
		if d.Kind == Int && d.Unit != "" {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.Name, v).
				WithHint("Valid units for this parameter are %s.", validUnits(d.Unit))
		}
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.Name, v)
	}
	switch d.Kind {
	case Bool:
		switch strings.ToLower(v) {
		case "on", "true", "yes", "1", "t", "y":
			return "on", nil
		case "off", "false", "no", "0", "f", "n":
			return "off", nil
		}
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", d.Name)
	case Int:
		num, unit := splitUnit(v)
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return "", bad()
		}
		if unit != "" {
			base := d.Unit
			bm := 1.0
			if base == "8kB" {
				bm = 8
				base = "kB"
			}
			um, ok := unitMul[unit]
			bu, ok2 := unitMul[base]
			if !ok || !ok2 || (isMem(unit) != isMem(base)) {
				return "", bad()
			}
			f = f * um / bu / bm
		}
		n := int64(f + 0.5)
		if f < 0 {
			n = int64(f - 0.5)
		}
		if n < d.Min || n > d.Max {
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "%s%s is outside the valid range for parameter \"%s\" (%d .. %d)", num, unitSuffix(unit), d.Name, d.Min, d.Max)
		}
		return strconv.FormatInt(n, 10), nil
	case Real:
		if d.FMin == 0 && d.FMax == 0 {
			// Real parameters here are costs: at least Min, no upper bound
			// short of DBL_MAX (PostgreSQL prints values with %g).
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return "", bad()
			}
			if f < float64(d.Min) {
				return "", pgerr.Errorf(pgerr.InvalidParameterValue, "%g is outside the valid range for parameter \"%s\" (%d .. 1.79769e+308)", f, d.Name, d.Min)
			}
			return fmt.Sprintf("%g", f), nil
		}
		return d.normalizeReal(v)
	case Enum:
		lv := strings.ToLower(v)
		if a, ok := d.Aliases[lv]; ok {
			return a, nil
		}
		for _, e := range d.Enum {
			if e == lv {
				return e, nil
			}
		}
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.Name, v).
			WithHint("Available values: %s.", strings.Join(d.Enum, ", "))
	}
	return v, nil
}

func isMem(u string) bool { return u == "B" || u == "kB" || u == "MB" || u == "GB" || u == "TB" }

func validUnits(u string) string {
	if isMem(u) || u == "8kB" {
		return "\"B\", \"kB\", \"MB\", \"GB\", and \"TB\""
	}
	return "\"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\""
}

func splitUnit(v string) (string, string) {
	i := len(v)
	for i > 0 && (v[i-1] < '0' || v[i-1] > '9') && v[i-1] != '.' {
		i--
	}
	return strings.TrimSpace(v[:i]), strings.TrimSpace(v[i:])
}

// Display renders a stored value as SHOW does (memory and time with the
// largest exact unit).
func (d *Def) Display(v string) string {
	if d.Kind == Real && d.Unit != "" && Float(v) > 0 {
		return v + d.Unit
	}
	if d.Kind != Int || d.Unit == "" {
		return v
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return v
	}
	switch d.Unit {
	case "kB", "8kB", "B", "MB":
		kb := float64(n)
		if d.Unit == "8kB" {
			kb *= 8
		}
		if d.Unit == "MB" {
			kb *= 1024
		}
		if d.Unit == "B" {
			if n%1024 != 0 {
				return fmt.Sprintf("%dB", n)
			}
			kb = float64(n / 1024)
		}
		for _, u := range []struct {
			s string
			m float64
		}{{"TB", 1 << 30}, {"GB", 1 << 20}, {"MB", 1 << 10}} {
			if int64(kb)%int64(u.m) == 0 {
				return fmt.Sprintf("%d%s", int64(kb/u.m), u.s)
			}
		}
		return fmt.Sprintf("%dkB", int64(kb))
	case "ms":
		for _, u := range []struct {
			s string
			m int64
		}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
			if n%u.m == 0 {
				return fmt.Sprintf("%d%s", n/u.m, u.s)
			}
		}
		return fmt.Sprintf("%dms", n)
	case "us":
		if n%1000 == 0 {
			ms := Def{Kind: Int, Unit: "ms"}
			return ms.Display(strconv.FormatInt(n/1000, 10))
		}
		return fmt.Sprintf("%dus", n)
	case "s":
		for _, u := range []struct {
			s string
			m int64
		}{{"d", 86400}, {"h", 3600}, {"min", 60}} {
			if n%u.m == 0 {
				return fmt.Sprintf("%d%s", n/u.m, u.s)
			}
		}
		return fmt.Sprintf("%ds", n)
	}
	return v
}

// Bytes returns a memory parameter's value in bytes.
func (d *Def) Bytes(v string) int64 {
	n, _ := strconv.ParseInt(v, 10, 64)
	switch d.Unit {
	case "kB":
		return n * 1024
	case "8kB":
		return n * 8192
	}
	return n
}

// ReadConf reads name = value lines of a postgresql.conf-style file.
func ReadConf(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]string{}, nil
		}
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			k, v, ok = strings.Cut(s, " ")
		}
		if !ok {
			return nil, pgerr.Errorf(pgerr.ConfigFileError, "syntax error in file \"%s\" line %d", path, line)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), "'")
		d, err := Lookup(k)
		if err != nil {
			return nil, pgerr.Errorf(pgerr.ConfigFileError, "unrecognized configuration parameter \"%s\" in file \"%s\" line %d", k, path, line)
		}
		nv, err := d.Normalize(v)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out[strings.ToLower(d.Name)] = nv
	}
	return out, sc.Err()
}

// Names returns every parameter name, sorted regardless of case as
// PostgreSQL lists them (SHOW ALL, pg_settings).
func Names() []string {
	var out []string
	for _, d := range Defs {
		out = append(out, d.Name)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}
