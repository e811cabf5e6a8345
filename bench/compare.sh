#!/usr/bin/env bash
# compare.sh -- tidal vs PostgreSQL 15, side by side, in one run.
#
#   usage:  bench/compare.sh                      # WORKLOADS=boat, 3 interleaved trials
#           WORKLOADS=boat BOAT_TRIALS=5 bench/compare.sh
#           WORKLOADS="boat vac6 deadtid pgbench" bench/compare.sh
#           WORKLOADS="boat undo" bench/compare.sh    # + seed 003's undo table (tidal only)
#
# What it does (see bench/README.md for the details):
#   1. go build ./cmd/tidal into a temp dir; start it on a fresh temp data directory on a
#      free port with shared_buffers=128MB fsync=on full_page_writes=on
#      synchronous_commit=on autovacuum=off (the settings pg15-start.sh gives PostgreSQL);
#   2. start PostgreSQL 15 through the shared pg15-start.sh, but with PG15_ROOT pointing at
#      a fresh private temp dir and PG15_PORT at a free port (so it never touches the
#      shared /tmp/pg15 instance);
#   3. run $BENCH_DIR/seeds.sh once per (workload, trial, server), alternating which server
#      goes first from trial to trial, each run into its own OUT folder;
#   4. merge the figures and print a side-by-side table plus PASS/FAIL verdicts for the
#      boat targets;
#   5. stop both servers and remove the temp dirs (trap on EXIT/INT/TERM).
# Output: bench/results/<UTC timestamp>/summary.txt (also printed on stdout); progress
# messages go to stderr.
#
# Tunables (env):
#   WORKLOADS="boat"            any of: boat vac6 deadtid pgbench (passed to seeds.sh), and
#                               undo: seed 003's second script on tidal's undo table (after
#                               SET default_table_access_method = undo, and with CREATE TABLE
#                               ... USING undo) beside tidal's heap, per wal_compression
#                               method, with issue 9's verdicts (bench/boat-undo.sh; tidal only,
#                               PostgreSQL 15 has no undo AM)
#   UNDO_TRIALS=3 UNDO_METHODS="off pglz lz4 zstd" UNDO_VARIANTS="heap set using"  (undo)
#   BOAT_TRIALS=3 VAC_TRIALS=3 DT_TRIALS=1   trials per workload (seeds.sh's own names)
#   PGB_PASSES=1                how many times the whole pgbench workload runs per server
#   every other seeds.sh tunable (BOAT_ROWS, VAC_ROWS, VAC_VARIANTS, DT_ROWS, DT_MEMS,
#   PGB_*, PGUSER, PGDATABASE) is passed through unchanged.
#   INTERLEAVE=1                0: run all trials of a workload on tidal, then on PG15
#   TIDAL_PORT= PG_PORT=        fixed ports for the two servers (default: random free ones)
#   TIDAL_SHARED_BUFFERS=128MB  TIDAL_ARGS=""  (extra args for `tidal serve`, e.g. "-c work_mem=8MB")
#   TIDAL_BIN=                  use this prebuilt binary instead of building
#   TIDAL_REV=                  build this git revision (via read-only `git archive REV`)
#                               instead of the working tree, e.g. TIDAL_REV=HEAD
#   PG15_EXTRA_CONF=            extra postgresql.conf lines (handed to pg15-start.sh)
#   WAL_COMPRESSION=off         wal_compression for both servers (off pglz lz4 zstd); off by
#                               default, PostgreSQL's default, so the WAL bytes compare like
#                               with like. TIDAL_ARGS / PG15_EXTRA_CONF settings come later and win.
#   BENCH_DIR=/work/shared/bench   PGBIN=/usr/lib/postgresql/15/bin
#   START_TIMEOUT=60            seconds to wait for each server to accept connections
#   SEEDS_TIMEOUT=              seconds allowed for one seeds.sh invocation; default per
#                               workload and trial: boat 900, vac6 2400 per variant,
#                               deadtid 3600 per memory setting, pgbench 600 + runs*(PGB_TIME+60).
#                               On a timeout the run is killed, recorded as failed and that
#                               server is restarted (a hung backend could block later runs).
#   PAUSE=2                     seconds of `sync` + sleep between seeds.sh invocations
#   RESULTS_DIR=bench/results/<timestamp>   KEEP_TMP=0 (1: keep temp data dirs)
#
# Exit status: 0 when the run completed (whatever the verdicts), 1 on a setup error
# (missing tools, build failure, a server that would not start).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/work/shared/bench}
SEEDS=$BENCH_DIR/seeds.sh
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
export WORKLOADS=${WORKLOADS:-boat}
export BOAT_TRIALS=${BOAT_TRIALS:-3} VAC_TRIALS=${VAC_TRIALS:-3} DT_TRIALS=${DT_TRIALS:-1}
export UNDO_TRIALS=${UNDO_TRIALS:-3} UNDO_METHODS=${UNDO_METHODS:-"off pglz lz4 zstd"} UNDO_VARIANTS=${UNDO_VARIANTS:-"heap set using"}
PGB_PASSES=${PGB_PASSES:-1}
export PGUSER=${PGUSER:-postgres} PGDATABASE=${PGDATABASE:-postgres}
INTERLEAVE=${INTERLEAVE:-1}
TIDAL_SHARED_BUFFERS=${TIDAL_SHARED_BUFFERS:-128MB}
TIDAL_ARGS=${TIDAL_ARGS:-}
WAL_COMPRESSION=${WAL_COMPRESSION:-off}
export PG15_EXTRA_CONF="wal_compression = $WAL_COMPRESSION${PG15_EXTRA_CONF:+
$PG15_EXTRA_CONF}"
TIDAL_BIN=${TIDAL_BIN:-}
START_TIMEOUT=${START_TIMEOUT:-60}
SEEDS_TIMEOUT=${SEEDS_TIMEOUT:-}
TIDAL_REV=${TIDAL_REV:-}
PAUSE=${PAUSE:-2}
KEEP_TMP=${KEEP_TMP:-0}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RES=${RESULTS_DIR:-$HERE/results/$STAMP}
export PGCONNECT_TIMEOUT=${PGCONNECT_TIMEOUT:-10}

log() { echo "# compare $(date -u +%T) $*" >&2; }
die() { echo "compare.sh: ERROR: $*" >&2; exit 1; }

###############################################################################
# preflight
###############################################################################
for t in psql pgbench perl go ss setsid timeout; do
  [ "$t" = go ] && [ -n "$TIDAL_BIN" ] && continue
  command -v "$t" >/dev/null 2>&1 || die "'$t' not found in PATH (psql/pgbench: apt-get install postgresql-client-15; go: https://go.dev/dl)"
done
[ -x "$SEEDS" ] || die "seeds.sh not found or not executable at $SEEDS (set BENCH_DIR)"
[ -x "$BENCH_DIR/pg15-start.sh" ] && [ -x "$BENCH_DIR/pg15-stop.sh" ] || die "pg15-start.sh / pg15-stop.sh missing in $BENCH_DIR"
[ -x "$PGBIN/pg_ctl" ] && [ -x "$PGBIN/initdb" ] || die "PostgreSQL 15 server binaries not found in $PGBIN (set PGBIN)"
id postgres >/dev/null 2>&1 || die "OS user 'postgres' does not exist (pg15-start.sh runs the server as postgres)"
me=$(id -un)
if [ "$me" != root ] && [ "$me" != postgres ]; then
  die "must run as root or as postgres: pg15-start.sh uses 'runuser -u postgres' (you are $me)"
fi
[ "$me" = root ] && { command -v runuser >/dev/null 2>&1 || die "'runuser' not found (needed to start PostgreSQL as postgres)"; }
for w in $WORKLOADS; do
  case $w in boat|vac6|deadtid|pgbench|undo) ;; *) die "unknown workload '$w' (known: boat vac6 deadtid pgbench undo)";; esac
done
psql_v=$(psql --version); pgbench_v=$(pgbench --version)
case $psql_v in *" 15."*) ;; *) log "warning: $psql_v is not a PostgreSQL 15 psql; seeds.sh expects PG15 client output";; esac

[ -d "$RES" ] && [ -n "$(ls -A "$RES" 2>/dev/null)" ] && die "results folder $RES is not empty (set RESULTS_DIR to a new folder)"
mkdir -p "$RES" || die "cannot create $RES"
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/tidal-compare.XXXXXX") || die "mktemp failed"
PG_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/tidal-compare-pg15.XXXXXX") || die "mktemp failed"
if [ "$me" = root ] && ! runuser -u postgres -- test -x "$(dirname "$PG_ROOT")"; then
  die "user postgres cannot enter $(dirname "$PG_ROOT"); set TMPDIR to a directory it can traverse"
fi

###############################################################################
# cleanup (trap)
###############################################################################
TIDAL_PID=""; TIDAL_PORT=${TIDAL_PORT:-}; PG_PORT=${PG_PORT:-}; PG_STARTED=0; CUR_PID=""; CLEANED=0
stop_tidal() {
  [ -n "$TIDAL_PID" ] || return 0
  if kill -0 "$TIDAL_PID" 2>/dev/null; then
    kill -TERM "$TIDAL_PID" 2>/dev/null
    local i
    for i in $(seq 1 100); do kill -0 "$TIDAL_PID" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$TIDAL_PID" 2>/dev/null; then
      log "tidal (pid $TIDAL_PID) did not stop within 20 s; sending SIGKILL"
      kill -KILL "$TIDAL_PID" 2>/dev/null
    fi
  fi
  wait "$TIDAL_PID" 2>/dev/null
  TIDAL_PID=""
}
stop_pg() {
  [ "$PG_STARTED" = 1 ] || return 0
  if ! PG15_ROOT=$PG_ROOT PGBIN=$PGBIN timeout 150 "$BENCH_DIR/pg15-stop.sh" >>"$RES/pg15-start.log" 2>&1; then
    log "pg15-stop.sh failed; pg_ctl stop -m immediate"
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_ROOT/data" -m immediate -w -t 60 stop >>"$RES/pg15-start.log" 2>&1
  fi
  PG_STARTED=0
}
cleanup() {
  [ "$CLEANED" = 1 ] && return; CLEANED=1
  if [ -n "$CUR_PID" ] && kill -0 "$CUR_PID" 2>/dev/null; then
    kill -TERM -- "-$CUR_PID" 2>/dev/null; sleep 1; kill -KILL -- "-$CUR_PID" 2>/dev/null
  fi
  stop_tidal
  stop_pg
  [ -f "$TMPROOT/tidal.log" ] && cp "$TMPROOT/tidal.log" "$RES/tidal-server.log" 2>/dev/null
  [ -f "$PG_ROOT/pg15.log" ] && cp "$PG_ROOT/pg15.log" "$RES/pg15-server.log" 2>/dev/null
  if [ "$KEEP_TMP" = 1 ]; then
    log "kept temp dirs: $TMPROOT $PG_ROOT"
  else
    rm -rf -- "$TMPROOT" "$PG_ROOT"
  fi
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

###############################################################################
# helpers
###############################################################################
free_port() { # free_port [EXCLUDE] -> a TCP port nobody listens on (random, 20000-59999)
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [ "$p" = "${1:-}" ] && continue
    case $p in 54315|5432|5433) continue;; esac
    [ -z "$(ss -Htln "( sport = :$p )" 2>/dev/null)" ] && { echo "$p"; return 0; }
  done
  return 1
}
ready() { psql -X -h 127.0.0.1 -p "$1" -Atqc 'SELECT 1' >/dev/null 2>&1; }
wait_ready() { # wait_ready PORT [PID] -> 0 once it accepts a query
  local deadline=$((SECONDS + START_TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null && return 1
    ready "$1" && return 0
    sleep 0.2
  done
  return 1
}
start_tidal() { # (re)start tidal on $TIDAL_DATA; up to 3 ports
  local attempt
  for attempt in 1 2 3; do
    [ -n "$TIDAL_PORT" ] && [ -z "$(ss -Htln "( sport = :$TIDAL_PORT )")" ] || TIDAL_PORT=$(free_port "$PG_PORT") || return 1
    echo "---- $(date -u +%FT%TZ) start: $TIDAL_BIN serve -D $TIDAL_DATA -p $TIDAL_PORT ${TIDAL_CONF[*]} $TIDAL_ARGS" >>"$TMPROOT/tidal.log"
    # shellcheck disable=SC2086
    setsid "$TIDAL_BIN" serve -D "$TIDAL_DATA" -p "$TIDAL_PORT" "${TIDAL_CONF[@]}" $TIDAL_ARGS >>"$TMPROOT/tidal.log" 2>&1 </dev/null &
    TIDAL_PID=$!
    if wait_ready "$TIDAL_PORT" "$TIDAL_PID"; then
      log "tidal up: pid $TIDAL_PID port $TIDAL_PORT data $TIDAL_DATA"
      return 0
    fi
    log "tidal did not come up on port $TIDAL_PORT (attempt $attempt); last log lines:"
    tail -5 "$TMPROOT/tidal.log" >&2
    stop_tidal; TIDAL_PORT=""
  done
  return 1
}
start_pg() {
  local attempt
  for attempt in 1 2 3; do
    [ -n "$PG_PORT" ] || PG_PORT=$(free_port "$TIDAL_PORT") || return 1
    PG_STARTED=1
    if PG15_ROOT=$PG_ROOT PG15_PORT=$PG_PORT AUTOVACUUM=off PGBIN=$PGBIN \
         timeout $((START_TIMEOUT + 150)) "$BENCH_DIR/pg15-start.sh" >>"$RES/pg15-start.log" 2>&1 \
       && wait_ready "$PG_PORT"; then
      log "pg15 up: port $PG_PORT root $PG_ROOT"
      return 0
    fi
    log "PostgreSQL 15 did not come up on port $PG_PORT (attempt $attempt); see $RES/pg15-start.log"
    tail -5 "$RES/pg15-start.log" >&2; tail -5 "$PG_ROOT/pg15.log" >&2 2>/dev/null
    stop_pg; PG_PORT=""
  done
  return 1
}
declare -A FORCE_RESTART=()
timeout_for() { # timeout_for WORKLOAD TRIALS -> seconds
  [ -n "$SEEDS_TIMEOUT" ] && { echo "$SEEDS_TIMEOUT"; return; }
  local nv nm nr
  nv=$(echo ${VAC_VARIANTS:-serial default par4} | wc -w); nm=$(echo ${DT_MEMS:-1MB 1GB} | wc -w)
  nr=$(echo ${PGB_RUNS:-builtin custom select} | wc -w)
  case $1 in
    boat) echo $((900 * $2)) ;;
    vac6) echo $((2400 * nv * $2)) ;;
    deadtid) echo $((3600 * nm * $2)) ;;
    pgbench) echo $((600 + nr * (${PGB_TIME:-30} + 60))) ;;
    undo) echo $((300 * $(echo $UNDO_METHODS | wc -w) * $(echo $UNDO_VARIANTS | wc -w) * $2)) ;;
  esac
}
port_of() { [ "$1" = tidal ] && echo "$TIDAL_PORT" || echo "$PG_PORT"; }
ensure_up() { # ensure_up SERVER -> 0 if it answers (restarting it once if it died)
  local s=$1
  if [ "$s" = tidal ]; then
    [ -z "${FORCE_RESTART[$s]:-}" ] && [ -n "$TIDAL_PID" ] && kill -0 "$TIDAL_PID" 2>/dev/null && ready "$TIDAL_PORT" && return 0
    FORCE_RESTART[$s]=""
    log "tidal is not running/answering (crashed? timed out?); restarting on the same data dir"
    echo "tidal restarted (crash, hang or timeout) before $2" >>"$RES/incidents.txt"
    stop_tidal; start_tidal
  else
    [ -z "${FORCE_RESTART[$s]:-}" ] && ready "$PG_PORT" && return 0
    FORCE_RESTART[$s]=""
    log "PostgreSQL 15 is not answering (or timed out before); restarting"
    echo "pg15 restarted before $2" >>"$RES/incidents.txt"
    stop_pg; start_pg
  fi
}
run_seeds() { # run_seeds SERVER WORKLOAD ROUND TRIALS_PER_ROUND -> appends to status.tsv
  local s=$1 w=$2 r=$3 n=$4 out=$RES/$1/$2/r$3 rc st note nfig
  mkdir -p "$out"
  if ! ensure_up "$s" "$w round $r"; then
    printf '%s\t%s\t%s\t%s\t%s\n' "$s" "$w" "$r" failed "server not running" >>"$RES/status.tsv"
    log "$s $w round $r: FAILED (server not running)"; return
  fi
  sync; sleep "$PAUSE"
  log "$s: $w round $r ($n trial(s)) -> $out"
  local -a env=(OUT="$out" WORKLOADS="$w")
  case $w in
    boat) env+=(BOAT_TRIALS="$n") ;;
    vac6) env+=(VAC_TRIALS="$n") ;;
    deadtid) env+=(DT_TRIALS="$n") ;;
    undo) env+=(UNDO_TRIALS="$n") ;;
  esac
  local runner=$SEEDS
  [ "$w" = undo ] && runner=$HERE/boat-undo.sh
  env "${env[@]}" setsid "$runner" 127.0.0.1 "$(port_of "$s")" "$s" >"$out/seeds.stdout" 2>"$out/seeds.stderr" </dev/null &
  CUR_PID=$!
  local limit; limit=$(timeout_for "$w" "$n")
  local deadline=$((SECONDS + limit)); rc=""
  while kill -0 "$CUR_PID" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      log "$s $w round $r: timeout after ${limit}s, killing it; $s will be restarted before its next run"
      FORCE_RESTART[$s]=1
      echo "$s $w round $r: timed out after ${limit}s (seeds.sh killed)" >>"$RES/incidents.txt"
      kill -TERM -- "-$CUR_PID" 2>/dev/null; sleep 5; kill -KILL -- "-$CUR_PID" 2>/dev/null
      rc=124; break
    fi
    sleep 0.5
  done
  wait "$CUR_PID"; local wrc=$?
  [ -n "$rc" ] || rc=$wrc
  CUR_PID=""
  nfig=$(grep -c '^[A-Za-z][^=#]*=' "$out/figures.txt" 2>/dev/null); nfig=${nfig:-0}
  # errors: seeds.sh's own log, then the raw psql/pgbench output of the run
  note=$(grep -m1 -E 'ERROR|FATAL|failed' "$out/seeds.stderr" | sed 's/^# [0-9:]* //' | cut -c1-160)
  local rawerr
  rawerr=$(grep -h -m1 -E '(ERROR|FATAL|error):' "$out"/raw/*.err "$out"/raw/*.log 2>/dev/null | head -1 | cut -c1-160)
  [ -n "$rawerr" ] && note="${note:+$note; }$rawerr"
  # things the server said it does not do yet (information, not a failure by itself)
  local notimpl
  notimpl=$(grep -h -o -m1 -E '(NOTICE|WARNING):  [^:]*not (yet )?implemented[^;]*' "$out"/raw/*.err 2>/dev/null | sort -u | head -2 | tr '\n' ' ')
  [ -n "$notimpl" ] && printf '%s\t%s\t%s\t%s\n' "$s" "$w" "$r" "$notimpl" >>"$RES/notices.tsv"
  if [ "$rc" = 124 ]; then st=failed; note="timeout after ${limit}s${note:+; $note}"
  elif [ "$rc" != 0 ]; then st=failed; note="seeds.sh exit $rc${note:+; $note}"
  elif [ "$nfig" -eq 0 ]; then st=failed; note=${note:-"no figures produced"}
  elif grep -q -E '^# [0-9:]+ ERROR' "$out/seeds.stderr"; then st=failed   # seeds.sh itself saw a step fail
  elif [ -n "$note" ]; then st=partial   # figures came out, but an ERROR shows in the raw output
  else st=ok; fi
  # a server that died during the run makes the run a failure even if figures came out
  if [ "$s" = tidal ] && ! kill -0 "$TIDAL_PID" 2>/dev/null; then st=failed; note="tidal died during the run${note:+; $note}"; fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$s" "$w" "$r" "$st" "$note" >>"$RES/status.tsv"
  log "$s $w round $r: $st${note:+ ($note)}"
}

###############################################################################
# 1. build tidal
###############################################################################
SRC=$REPO; SRC_DESC="working tree of $REPO"
if [ -z "$TIDAL_BIN" ]; then
  TIDAL_BIN=$TMPROOT/tidal
  if [ -n "$TIDAL_REV" ]; then
    SRC=$TMPROOT/src; mkdir -p "$SRC"
    rev=$(git -C "$REPO" rev-parse --verify --short "$TIDAL_REV^{commit}" 2>/dev/null) || die "TIDAL_REV=$TIDAL_REV is not a commit of $REPO"
    git -C "$REPO" archive --format=tar "$rev" | tar -x -C "$SRC" || die "git archive $rev failed"
    SRC_DESC="git archive $rev (TIDAL_REV=$TIDAL_REV)"
  fi
  log "building tidal from the $SRC_DESC"
  ( cd "$SRC" && go build -o "$TIDAL_BIN" ./cmd/tidal ) >"$RES/build.log" 2>&1 \
    || { cat "$RES/build.log" >&2; die "go build ./cmd/tidal failed (log: $RES/build.log)"; }
else
  SRC_DESC="prebuilt binary $TIDAL_BIN"
fi
[ -x "$TIDAL_BIN" ] || die "tidal binary $TIDAL_BIN not executable"
TIDAL_DATA=$TMPROOT/tidal-data
TIDAL_CONF=(-c "shared_buffers=$TIDAL_SHARED_BUFFERS" -c fsync=on -c full_page_writes=on -c synchronous_commit=on -c autovacuum=off -c "wal_compression=$WAL_COMPRESSION")

###############################################################################
# 2. start both servers
###############################################################################
: >"$RES/status.tsv"
start_tidal || die "tidal did not start within ${START_TIMEOUT}s (log: $TMPROOT/tidal.log, copied to $RES/tidal-server.log)"
start_pg || die "PostgreSQL 15 did not start (see $RES/pg15-start.log)"

show() { # show PORT -> "name=value ..." of the durability settings (SHOW, non-fatal)
  local n out=""
  for n in shared_buffers fsync full_page_writes wal_compression synchronous_commit autovacuum server_version; do
    out+="$n=$(psql -X -h 127.0.0.1 -p "$1" -Atqc "SHOW $n" 2>/dev/null || echo '?') "
  done
  echo "${out% }"
}
{
  echo "date:    $(date -u +%FT%TZ)   host: $(hostname)   cpus: $(nproc)   mem: $(free -g 2>/dev/null | awk '/^Mem:/{print $2 "G"}')"
  if [ -n "$TIDAL_REV" ] || [ "$SRC_DESC" != "working tree of $REPO" ]; then
    echo "tidal:   built from $SRC_DESC  $("$TIDAL_BIN" version 2>/dev/null)  $(go version 2>/dev/null)"
  else
    dirty=$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
    echo "tidal:   built from the working tree at $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)$( [ "$dirty" -gt 0 ] && echo " + uncommitted changes in $dirty tracked files")  $("$TIDAL_BIN" version 2>/dev/null)  $(go version 2>/dev/null)"
  fi
  echo "         port $TIDAL_PORT, data dir $TIDAL_DATA (fresh), SHOW: $(show "$TIDAL_PORT")"
  echo "         args: ${TIDAL_CONF[*]} $TIDAL_ARGS"
  echo "pg15:    $(psql -X -h 127.0.0.1 -p "$PG_PORT" -Atqc 'SELECT version()' 2>/dev/null | cut -d, -f1)"
  echo "         port $PG_PORT, private initdb in $PG_ROOT via pg15-start.sh (AUTOVACUUM=off), SHOW: $(show "$PG_PORT")"
  echo "clients: $psql_v / $pgbench_v"
  echo "seeds:   $SEEDS   workloads: $WORKLOADS"
} >"$RES/env.txt"
cat "$RES/env.txt" >&2

###############################################################################
# 3. workloads, interleaved
###############################################################################
trials_of() {
  case $1 in boat) echo "$BOAT_TRIALS";; vac6) echo "$VAC_TRIALS";; deadtid) echo "$DT_TRIALS";; pgbench) echo "$PGB_PASSES";; undo) echo "$UNDO_TRIALS";; esac
}
declare -A TPR=()   # trials per round, per workload
declare -A ROUNDS=()
for w in $WORKLOADS; do
  n=$(trials_of "$w")
  if [ "$INTERLEAVE" = 1 ] || [ "$w" = pgbench ]; then
    TPR[$w]=1; ROUNDS[$w]=$n
  else
    TPR[$w]=$n; ROUNDS[$w]=1
  fi
  for r in $(seq 1 "${ROUNDS[$w]}"); do
    if [ $((r % 2)) = 1 ]; then order="tidal pg15"; else order="pg15 tidal"; fi
    for s in $order; do
      [ "$w" = undo ] && [ "$s" = pg15 ] && continue   # PostgreSQL 15 has no undo AM
      run_seeds "$s" "$w" "$r" "${TPR[$w]}"
    done
  done
done

###############################################################################
# 4. merge + summary
###############################################################################
merge() { # merge SERVER -> $RES/SERVER/figures.txt (key@trial lines, then medians)
  local s=$1 w r args=()
  for w in $WORKLOADS; do
    for r in $(seq 1 "${ROUNDS[$w]}"); do args+=("${TPR[$w]}:$r:$RES/$s/$w/r$r"); done
  done
  perl -e '
    my (%v, @order, %seen);
    sub put { my ($k, $t, $x) = @_; return unless defined $x && length $x; push @order, $k unless $seen{$k}++; $v{$k}{$t} = $x }
    for my $arg (@ARGV) {
      my ($tpr, $r, $dir) = split /:/, $arg, 3;
      my $base = ($r - 1) * $tpr;
      if (open my $fh, "<", "$dir/figures.txt") {
        my (@at, @plain, %hasat);
        while (<$fh>) {
          chomp; next if /^#/; next unless /^([^=\s]+)=(.*)$/;
          my ($k, $x) = ($1, $2);
          if ($k =~ /^(.*)\@(\d+)$/) { push @at, [$1, $2, $x]; $hasat{$1} = 1 } else { push @plain, [$k, $x] }
        }
        put($_->[0], $base + $_->[1], $_->[2]) for @at;
        for (@plain) { put($_->[0], $base + 1, $_->[1]) unless $hasat{$_->[0]} }
      }
      # extra figures from the raw boat EXPLAIN output: the Seq Scan node
      for my $f (glob "$dir/raw/boat.t*.out") {
        my ($t) = $f =~ /boat\.t(\d+)\.out$/; my $T = $base + $t;
        open my $b, "<", $f or next; my ($in, $seq) = (0, 0);
        while (<$b>) {
          $in = 1 if /^\@\@ explain/; next unless $in;
          if (/->\s+Seq Scan on boat \(actual time=\S+ rows=(\d+)/) { $seq = 1; put("boat.update.seqscan_rows", $T, $1); next }
          next unless $seq == 1;
          if (/Rows Removed by Filter: (\d+)/) { put("boat.update.seqscan_rows_removed", $T, $1); next }
          if (/Buffers: shared (.*)/) { my $s = $1; my ($h) = $s =~ /\bhit=(\d+)/; put("boat.update.seqscan_hit", $T, $h // 0); $seq = 2 }
          if (/^\S/ || /^ (Planning|Execution)/) { $seq = 2 }
        }
      }
    }
    for my $k (@order) { print "$k\@$_=$v{$k}{$_}\n" for sort { $a <=> $b } keys %{$v{$k}} }
    for my $k (@order) {
      my @a = map { $v{$k}{$_} } sort { $a <=> $b } keys %{$v{$k}};
      if (grep { !/^-?[0-9.]+(e[-+]?[0-9]+)?$/i } @a) { print "$k=$a[0]\n"; next }
      @a = sort { $a <=> $b } @a; my $n = @a;
      my $m = $n % 2 ? $a[$n/2] : ($a[$n/2-1] + $a[$n/2]) / 2;
      $m = sprintf("%.3f", $m) + 0 if $m =~ /\./;
      print "$k=$m\n";
    }' "${args[@]}" >"$RES/$s/figures.txt"
}
mkdir -p "$RES/tidal" "$RES/pg15"
merge tidal; merge pg15

# undo_summary FIGURES -> the undo workload's table and issue 9's verdicts (tidal only)
undo_summary() {
  BOAT_ROWS=${BOAT_ROWS:-500000} perl -e '
    my (%m, %tr);
    open my $fh, "<", shift or exit 0;
    while (<$fh>) { chomp; next unless /^(undo\.[^=\s]+)=(.*)$/; my ($k, $x) = ($1, $2);
      if ($k =~ /^(.*)\@\d+$/) { push @{$tr{$1}}, $x } else { $m{$k} = $x } }
    exit 0 unless %m;
    my @methods = split " ", $ENV{UNDO_METHODS}; my @variants = split " ", $ENV{UNDO_VARIANTS};
    my $full = $ENV{BOAT_ROWS} == 500000;
    my $g = sub { $m{"undo.$_[0].$_[1].$_[2]"} };
    # counters must meet a target in every trial: the verdicts take the largest
    my $worst = sub { my @a = sort { $b <=> $a } @{$tr{"undo.$_[0].$_[1].$_[2]"} || []}; $a[0] };
    print "\nundo workload: seed 003 second script on tidal (medians over trials; heap = tidal heap, same run)\n";
    print "  set = SET default_table_access_method = undo, then the script; using = CREATE TABLE boat (...) USING undo\n\n";
    my @cols = (["dirtied", "update.dirtied"], ["records", "update.wal_records"], ["fpi", "update.wal_fpi"], ["wal bytes", "update.wal_bytes"],
                ["seq hit", "update.seqscan_hit"], ["table", "table_pages"], ["idx1", "idx1_pages"], ["idx2", "idx2_pages"], ["exec ms", "update.execution_ms"]);
    printf "  %-6s %-6s", "method", "table"; printf " %10s", $_->[0] for @cols; printf "  %-8s %s\n", "x heap", "exec ms trials";
    for my $me (@methods) { for my $v (@variants) {
      printf "  %-6s %-6s", $me, $v; printf " %10s", $g->($v, $me, $_->[1]) // "-" for @cols;
      my ($u, $h) = ($g->($v, $me, "update.execution_ms"), $g->("heap", $me, "update.execution_ms"));
      printf "  %-8s %s\n", ($v ne "heap" && $u && $h) ? sprintf("%.2fx", $u / $h) : "", join(" ", @{$tr{"undo.$v.$me.update.execution_ms"} || []}) } }
    my ($pass, $fail, $na) = (0, 0, 0);
    print "\nVerdict: issue 9 targets for the undo UPDATE (counters: the largest trial; time: medians)", ($full ? "" : " (N/A: BOAT_ROWS is not 500000)"), "\n";
    my $vd = sub { my ($name, $got, $lim, $ok) = @_;
      $ok = undef unless $full && defined $got;
      my $res = !defined $ok ? "N/A" : $ok ? "PASS" : "FAIL"; defined $ok ? ($ok ? $pass++ : $fail++) : $na++;
      printf "  %-44s %12s %14s  %s\n", $name, $got // "-", $lim, $res };
    for my $me (@methods) { for my $v (grep { $_ ne "heap" } @variants) {
      my $p = "$v $me:";
      for (["dirtied", "update.dirtied", 520], ["WAL records", "update.wal_records", 520], ["WAL fpi", "update.wal_fpi", 510], ["table pages", "table_pages", 3750]) {
        my $x = $worst->($v, $me, $_->[1]); $vd->("$p $_->[0]", $x, "<= $_->[2]", defined $x && $x <= $_->[2]) }
      my %wl = (off => 4200000, zstd => 2500000);
      if (my $lim = $wl{$me}) { my $x = $worst->($v, $me, "update.wal_bytes"); $vd->("$p WAL bytes", $x, "<= $lim", defined $x && $x <= $lim) }
      for my $i ("idx1", "idx2") { my $x = $worst->($v, $me, "${i}_pages"); $vd->("$p boat_$i pages", $x, "= 1374", defined $x && $x == 1374) }
      my ($u, $h) = ($g->($v, $me, "update.execution_ms"), $g->("heap", $me, "update.execution_ms"));
      $vd->("$p Execution Time / heap", ($u && $h) ? sprintf("%.2fx", $u / $h) : undef, "<= 0.5x", $u && $h && $u <= 0.5 * $h) } }
    # tidal heap stays as it was: the figures of main at 8f0cbe3 (PostgreSQL 15 dirties
    # 1509, not 1507: the boat workload compares the heap with it, within 5%)
    for my $me (grep { $_ eq "off" } @methods) { next unless grep { $_ eq "heap" } @variants;
      for (["dirtied", "update.dirtied", 1507], ["WAL records", "update.wal_records", 2000], ["WAL fpi", "update.wal_fpi", 1501], ["table pages", "table_pages", 4677]) {
        my $x = $g->("heap", $me, $_->[1]); $vd->("heap $me: $_->[0] unchanged", $x, "= $_->[2]", defined $x && $x == $_->[2]) } }
    printf "\n  %d PASS, %d FAIL, %d N/A (of %d targets)\n", $pass, $fail, $na, $pass + $fail + $na;
  ' "$1"
}

summarize() {
  perl -e '
    my ($tf, $pf, $stf, $envf, $ntf) = @ARGV;
    sub load { my %m; my %tr; my @o; open my $fh, "<", shift or return ({}, {}, []);
      while (<$fh>) { chomp; next unless /^([^=\s]+)=(.*)$/; my ($k, $x) = ($1, $2);
        if ($k =~ /^(.*)\@(\d+)$/) { push @{$tr{$1}}, $x } else { $m{$k} = $x; push @o, $k } }
      return (\%m, \%tr, \@o) }
    my ($T, $Ttr, $To) = load($tf); my ($P, $Ptr, $Po) = load($pf);
    my $istime = sub { $_[0] =~ /(\.ms|_ms|_s)$/ };
    my $num = sub { defined $_[0] && $_[0] =~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/i };
    my $fmt = sub { my $x = shift; return "-" unless defined $x; return $x unless $num->($x);
      return $x if $x =~ /^-?\d+$/; return sprintf("%.1f", $x) if abs($x) >= 100; return sprintf("%.3f", $x) };
    my $trials = sub { my ($tr, $k) = @_; my @a = @{$tr->{$k} || []}; return "" if @a < 2;
      my %u = map { $_ => 1 } @a; return "" if keys %u == 1 && !$istime->($k); join(" ", map { $fmt->($_) } @a) };

    open my $e, "<", $envf; print while <$e>; close $e; print "\n";
    # run status
    my (%st, @so);
    if (open my $s, "<", $stf) { while (<$s>) { chomp; my ($srv, $w, $r, $status, $note) = split /\t/, $_, 5;
      my $k = "$w\t$srv"; push @so, $k unless $st{$k}; push @{$st{$k}}, [$r, $status, $note // ""] } }
    print "Runs (seeds.sh invocations; a workload that fails on one server is reported here, the run goes on)\n";
    printf "  %-9s %-6s %s\n", "workload", "server", "rounds";
    for my $k (@so) { my ($w, $srv) = split /\t/, $k;
      my @r = @{$st{$k}}; my %c; $c{$_->[1]}++ for @r;
      my $line = join(", ", map { "$c{$_} $_" } grep { $c{$_} } qw(ok partial failed));
      my (%notes, @no); for (grep { $_->[1] ne "ok" && length $_->[2] } @r) { push @no, $_->[2] unless $notes{$_->[2]}; push @{$notes{$_->[2]}}, $_->[0] }
      printf "  %-9s %-6s %s\n", $w, $srv, $line;
      for my $n (@no) { printf "  %-9s %-6s   round %s: %s\n", "", "", join(",", @{$notes{$n}}), $n }
    }
    if (open my $nf, "<", $ntf) { my (%n, @no);
      while (<$nf>) { chomp; my ($srv, $w, $r, $msg) = split /\t/, $_, 4; $msg =~ s/\s+$//; my $k = "$srv $w: $msg"; push @no, $k unless $n{$k}; push @{$n{$k}}, $r }
      print "  server notices (not counted as failures):\n" if @no;
      print "    $_ (round ", join(",", @{$n{$_}}), ")\n" for @no }
    print "\n";

    # side-by-side table
    my @keys = grep { exists $T->{$_} } @$Po;
    my %inP = map { $_ => 1 } @$Po;
    my @onlyT = grep { !$inP{$_} && !/^undo\./ } @$To;   # undo.*: its own section below my @onlyP = grep { !exists $T->{$_} } @$Po;
    my $kw = 12; for (@keys) { $kw = length if length > $kw }
    print "Medians over trials; ratio = tidal/pg15 for time keys (*.ms, *_ms, *_s), diff = (tidal-pg15)/pg15 for other figures.\n";
    print "trials columns: every trial for time keys, and for other keys only when the trials disagree.\n\n";
    my $hdr = sprintf "%-${kw}s %12s %12s %8s %8s  %-28s %s", "key", "tidal", "pg15", "ratio", "diff", "tidal trials", "pg15 trials";
    print "$hdr\n", "-" x length($hdr), "\n";
    for my $k (@keys) {
      my ($t, $p) = ($T->{$k}, $P->{$k}); my ($ratio, $diff) = ("", "");
      if ($num->($t) && $num->($p)) {
        if ($istime->($k)) { $ratio = $p > 0 ? sprintf("%.2fx", $t / $p) : "n/a" }
        elsif ($p == 0) { $diff = $t == 0 ? "=" : "n/a" }
        else { $diff = $t == $p ? "=" : sprintf("%+.1f%%", 100 * ($t - $p) / $p) }
      } else { $diff = $t eq $p ? "=" : "differs" }
      printf "%-${kw}s %12s %12s %8s %8s  %-28s %s\n", $k, $fmt->($t), $fmt->($p), $ratio, $diff, $trials->($Ttr, $k), $trials->($Ptr, $k);
    }
    print "(no key was produced by both servers)\n" unless @keys;
    print "\nonly tidal produced: ", join(" ", @onlyT), "\n" if @onlyT;
    print "\nonly pg15 produced (" . scalar(@onlyP) . "): ", join(" ", @onlyP), "\n" if @onlyP;

    # verdicts (boat)
    exit 0 unless grep { /^boat\./ } (@$Po, @$To);
    print "\nVerdict: boat targets (medians; PG15 measured in this same run)\n";
    my @cnt = (
      ["Seq Scan node: Buffers shared hit",   "boat.update.seqscan_hit",    0.05],
      ["Update: Buffers shared dirtied",      "boat.update.dirtied",        0.05],
      ["Update: WAL records",                 "boat.update.wal_records",    0.05],
      ["Update: WAL fpi",                     "boat.update.wal_fpi",        0.05],
      ["Update: WAL bytes",                   "boat.update.wal_bytes",      0.25],
      ["heap pages after the UPDATE",         "boat.heap_pages_after",      0.01],
      ["boat_idx1 pages after the UPDATE",    "boat.idx1_pages_after",      0.10],
      ["boat_idx2 pages after the UPDATE",    "boat.idx2_pages_after",      0.10],
    );
    my @tim = (
      ["INSERT (psql \\timing)",              "boat.insert.ms"],
      ["CREATE INDEX boat_idx1 (psql \\timing)", "boat.create_idx1.ms"],
      ["CREATE INDEX boat_idx2 (psql \\timing)", "boat.create_idx2.ms"],
      ["UPDATE (EXPLAIN Execution Time)",     "boat.update.execution_ms"],
    );
    my ($pass, $fail, $na) = (0, 0, 0);
    my $vh = sprintf "  %-40s %12s %12s %9s %8s  %s", "target", "tidal", "pg15", "got", "limit", "result";
    print "$vh\n  ", "-" x (length($vh) - 2), "\n";
    my $verdict = sub { my ($name, $k, $got, $lim, $ok, $why) = @_;
      my $res = !defined $ok ? "N/A" : $ok ? "PASS" : "FAIL"; $res .= " ($why)" if $why;
      defined $ok ? ($ok ? $pass++ : $fail++) : $na++;
      printf "  %-40s %12s %12s %9s %8s  %s\n", $name, $fmt->($T->{$k}), $fmt->($P->{$k}), $got, $lim, $res };
    for (@cnt) { my ($name, $k, $tol) = @$_; my ($t, $p) = ($T->{$k}, $P->{$k}); my $lim = sprintf("+-%g%%", 100 * $tol);
      if (!$num->($p)) { $verdict->($name, $k, "", $lim, undef, "no pg15 figure"); next }
      if (!$num->($t)) { $verdict->($name, $k, "", $lim, 0, "no tidal figure"); next }
      my $d = $p == 0 ? ($t == 0 ? 0 : 1e9) : ($t - $p) / $p;
      my @tt = @{$Ttr->{$k} || []}; my %u = map { $_ => 1 } @tt;
      my $why = keys %u > 1 ? "tidal trials vary: " . join(" ", @tt) : "";
      $verdict->($name, $k, sprintf("%+.1f%%", 100 * $d), $lim, abs($d) <= $tol + 1e-12, $why) }
    for (@tim) { my ($name, $k) = @$_; my ($t, $p) = ($T->{$k}, $P->{$k});
      if (!$num->($p) || $p <= 0) { $verdict->($name, $k, "", "<=1.5x", undef, "no pg15 figure"); next }
      if (!$num->($t)) { $verdict->($name, $k, "", "<=1.5x", 0, "no tidal figure"); next }
      $verdict->($name, $k, sprintf("%.2fx", $t / $p), "<=1.5x", $t / $p <= 1.5) }
    for (["(info) UPDATE round trip (psql \\timing)", "boat.update.client_ms"], ["(info) Seq Scan rows (500 expected)", "boat.update.seqscan_rows"]) {
      my ($name, $k) = @$_; my ($t, $p) = ($T->{$k}, $P->{$k}); next unless defined $t || defined $p;
      my $got = ($num->($t) && $num->($p) && $p > 0 && $istime->($k)) ? sprintf("%.2fx", $t / $p) : "";
      printf "  %-40s %12s %12s %9s %8s  %s\n", $name, $fmt->($t), $fmt->($p), $got, "", "info" }
    printf "\n  %d PASS, %d FAIL, %d N/A (of %d targets)\n", $pass, $fail, $na, $pass + $fail + $na;
  ' "$RES/tidal/figures.txt" "$RES/pg15/figures.txt" "$RES/status.tsv" "$RES/env.txt" "$RES/notices.tsv"
  case " $WORKLOADS " in *" undo "*) undo_summary "$RES/tidal/figures.txt";; esac
}
log "stopping servers"
cleanup
trap - EXIT
{
  echo "==== bench/compare.sh: tidal vs PostgreSQL 15 ===="
  summarize
  echo
  echo "results: $RES  (per-run raw output: <server>/<workload>/r<N>/raw, merged figures: <server>/figures.txt)"
  [ -s "$RES/incidents.txt" ] && { echo "incidents:"; sed 's/^/  /' "$RES/incidents.txt"; }
} | tee "$RES/summary.txt"
exit 0
