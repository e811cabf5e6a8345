#!/usr/bin/env bash
# readstream.sh -- cold sequential scans: tidal's read streams on vs off under an
# injected read latency, and tidal vs PostgreSQL 15 without it, in one run.
#
#   usage:  bench/readstream.sh                   # SIZE_MB=1024, LATENCY=200us, TRIALS=3
#           SIZE_MB=256 TRIALS=1 bench/readstream.sh
#
# What it does:
#   1. builds ./cmd/tidal, loads a table `rs` of about SIZE_MB (rows of ~900 bytes, 8 a
#      page) into a fresh tidal data directory and into a fresh PostgreSQL 15
#      (pg15-start.sh with a private PG15_ROOT/PG15_PORT), VACUUM + CHECKPOINT both, so
#      the scans set no hint bits and write nothing;
#   2. before every timed scan: restarts the server (shared buffers empty) and drops the
#      table's files from the kernel page cache (fsync + posix_fadvise DONTNEED), so the
#      scan reads every page from disk;
#   3. times `SELECT count(*) FROM rs` (wall clock, psql -c), in these configurations:
#        A  tidal, tidal.io_read_latency = LATENCY, defaults (io_combine_limit = 16,
#           effective_io_concurrency = 1): streaming on
#        B  tidal, same latency, io_combine_limit = 1, effective_io_concurrency = 0: off
#        C  tidal, no injected latency, defaults
#        D  PostgreSQL 15, defaults (8 kB reads, kernel read-ahead)
#      and prints the medians, B/A (target >= 8) and D/C (target >= 1.0, C no slower),
#      plus tidal's pg_stat_io / tidal_stat_io_calls figures for A and B.
# Env: SIZE_MB=1024 LATENCY=200us TRIALS=3 PG15_PORT=55451 PG15_ROOT=/tmp/pg15-stream
#      PGBIN=/usr/lib/postgresql/15/bin BENCH_DIR=/work/shared/bench KEEP_TMP=0
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
SIZE_MB=${SIZE_MB:-1024}
LATENCY=${LATENCY:-200us}
TRIALS=${TRIALS:-3}
PG15_PORT=${PG15_PORT:-55451}
PG15_ROOT=${PG15_ROOT:-/tmp/pg15-stream}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
BENCH_DIR=${BENCH_DIR:-/work/shared/bench}
KEEP_TMP=${KEEP_TMP:-0}
ROWS=$((SIZE_MB * 1024 / 8 * 8))   # 8 rows of ~900 B per 8 kB page

log() { echo "# readstream $(date -u +%T) $*" >&2; }
die() { echo "readstream.sh: ERROR: $*" >&2; exit 1; }

TMP=$(mktemp -d /tmp/readstream-bench.XXXXXX)
TDATA=$TMP/tidal-data
TLOG=$TMP/tidal.log
TPID=
cleanup() {
  [ -n "$TPID" ] && kill "$TPID" 2>/dev/null && wait "$TPID" 2>/dev/null
  PG15_ROOT=$PG15_ROOT bash "$BENCH_DIR/pg15-stop.sh" >/dev/null 2>&1 ||
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG15_ROOT/data" -m fast stop >/dev/null 2>&1
  [ "$KEEP_TMP" = 1 ] || rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
TPORT=$(free_port)

log "building tidal"
(cd "$REPO" && go build -o "$TMP/tidal" ./cmd/tidal) || die "go build failed"

tidal_start() { # $@: extra -c settings
  "$TMP/tidal" serve -D "$TDATA" -p "$TPORT" -c shared_buffers=128MB -c autovacuum=off "$@" >>"$TLOG" 2>&1 &
  TPID=$!
  for _ in $(seq 1 600); do
    "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$TPORT" -U postgres -d postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "tidal did not start (see $TLOG)"
}
tidal_stop() { [ -n "$TPID" ] && kill "$TPID" && wait "$TPID" 2>/dev/null; TPID=; }
tsql() { "$PGBIN/psql" -X -q -At -h 127.0.0.1 -p "$TPORT" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
psql15() { "$PGBIN/psql" -X -q -At -h 127.0.0.1 -p "$PG15_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
pg15_start() { PG15_ROOT=$PG15_ROOT PG15_PORT=$PG15_PORT PG15_EXTRA_CONF="fsync = off" bash "$BENCH_DIR/pg15-start.sh" >/dev/null || die "PostgreSQL 15 did not start"; }
pg15_restart() {
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG15_ROOT/data" -m fast -w restart -l "$PG15_ROOT/pg15.log" >/dev/null || die "PostgreSQL 15 restart failed"
}

# drop_cache FILE...: write back and drop each file from the kernel page cache.
drop_cache() {
  python3 - "$@" <<'EOF'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
EOF
}

# load CLIENT: the table, its hint bits and visibility map set, written out.
load() {
  $1 -c "CREATE TABLE rs (id int, pad text)" -c "INSERT INTO rs SELECT g, repeat('x', 900) FROM generate_series(1, $ROWS) g" \
     -c "VACUUM rs" -c "CHECKPOINT" >/dev/null
}

log "loading $ROWS rows (~${SIZE_MB} MB) into tidal"
tidal_start
t0=$(date +%s.%N)
load tsql || die "tidal load failed"
log "tidal load took $(echo "$(date +%s.%N) - $t0" | bc) s; $(tsql -c "SELECT pg_size_pretty(pg_relation_size('rs'))") "
TNODE=$(tsql -c "SELECT relfilenode FROM pg_class WHERE relname = 'rs'")
tidal_stop

log "loading into PostgreSQL 15 (port $PG15_PORT)"
pg15_start
psql15 -c "DROP TABLE IF EXISTS rs" >/dev/null
load psql15 || die "PostgreSQL 15 load failed"
PGFILE=$(psql15 -c "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('rs')")
log "PostgreSQL 15: $(psql15 -c "SELECT pg_size_pretty(pg_relation_size('rs'))")"

# time_scan: prints the wall-clock seconds of one count(*) with $1 as the SQL client.
time_scan() {
  local client=$1 pre=$2
  local t0 t1
  t0=$(date +%s.%N)
  $client -c "$pre SELECT count(*) FROM rs" >/dev/null || die "scan failed"
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

declare -A RES
run_tidal() { # name latency presql
  local name=$1 lat=$2 pre=$3
  for i in $(seq 1 "$TRIALS"); do
    drop_cache "$TDATA"/base/"$TNODE"*
    tidal_start -c "tidal.io_read_latency=$lat"
    tsql -c "SELECT pg_stat_reset_shared('io')" >/dev/null
    s=$(time_scan tsql "$pre")
    RES[$name]+="$s "
    log "$name: $s s"
    if [ -z "${STATS[$name]:-}" ]; then
      STATS[$name]=$(tsql -c "SELECT 'reads=' || reads || ' hits=' || hits || ' reuses=' || reuses || ' evictions=' || evictions || ' read_calls=' || read_calls
        FROM pg_stat_io JOIN tidal_stat_io_calls USING (backend_type, object, context)
        WHERE backend_type = 'client backend' AND object = 'relation' AND context = 'bulkread'")
    fi
    tidal_stop
  done
}
declare -A STATS

# The virtual disk's host may cache what the guest dropped: read every file
# once first, so all configurations start from the same state.
cat "$TDATA"/base/"$TNODE"* "$PGFILE"* >/dev/null
for i in $(seq 1 "$TRIALS"); do # A and B alternate, so both see the same machine
  TRIALS=1 run_tidal A "$LATENCY" ""
  TRIALS=1 run_tidal B "$LATENCY" "SET io_combine_limit = 1; SET effective_io_concurrency = 0;"
done
for i in $(seq 1 "$TRIALS"); do # C and D alternate too
  drop_cache "$TDATA"/base/"$TNODE"*
  tidal_start
  s=$(time_scan tsql ""); RES[C]+="$s "; log "C trial $i: $s s"
  tidal_stop
  pg15_restart
  drop_cache "$PGFILE"*
  s=$(time_scan psql15 ""); RES[D]+="$s "; log "D trial $i: $s s"
done

mA=$(echo "${RES[A]}" | tr ' ' '\n' | grep . | median)
mB=$(echo "${RES[B]}" | tr ' ' '\n' | grep . | median)
mC=$(echo "${RES[C]}" | tr ' ' '\n' | grep . | median)
mD=$(echo "${RES[D]}" | tr ' ' '\n' | grep . | median)
cat <<EOF

cold sequential scan of ~${SIZE_MB} MB ($ROWS rows), median of $TRIALS, seconds
  A tidal, latency $LATENCY, streaming on  (io_combine_limit 16, eic 1): $mA   [${RES[A]}]
      ${STATS[A]}
  B tidal, latency $LATENCY, streaming off (io_combine_limit 1, eic 0):  $mB   [${RES[B]}]
      ${STATS[B]}
  C tidal, no latency, streaming on:                                     $mC   [${RES[C]}]
  D PostgreSQL 15, no latency:                                           $mD   [${RES[D]}]
  B/A = $(echo "scale=2; $mB / $mA" | bc)x  (target >= 8)
  D/C = $(echo "scale=2; $mD / $mC" | bc)x  (PostgreSQL 15 time / tidal time; target >= 1.0)
EOF
