#!/usr/bin/env bash
# autovacuum.sh -- seed 002's parallel-autovacuum experiment, tidal beside PostgreSQL 15.
#
#   usage: bench/autovacuum.sh                   # 400,000 rows, 3 trials
#          ROWS=50000 TRIALS=1 bench/autovacuum.sh
#
# A table with six indexes and ROWS rows, every row updated twice (2 × ROWS dead tuples),
# autovacuum_enabled turned on at the end; real autovacuum cleans it with
# log_autovacuum_min_duration = 0, autovacuum_naptime = 1s and no cost delay (seed 002's
# figures are not throttled). Variants, each on a fresh server per trial:
#   pg15         PostgreSQL 15, serial (it has no parallel autovacuum)
#   serial       tidal, autovacuum_max_parallel_workers = 0 (the default)
#   par4         tidal, autovacuum_max_parallel_workers = 4, max_parallel_maintenance_workers = 0
#   pool0        tidal, autovacuum_max_parallel_workers = 4, max_parallel_workers = 0
# From each run's "automatic vacuum of table" log entry: elapsed (wall), the leader's CPU
# (tidal: its thread clock; PostgreSQL: the worker process's user + system), WAL records,
# buffers dirtied, dead-TID store bytes (tidal's "dead item storage" line) and the
# "parallel workers" line. Medians over the trials; summary in bench/results/<ts>/autovacuum.txt.
#
# Env: ROWS TRIALS PGBIN=/usr/lib/postgresql/15/bin BENCH_DIR=/work/shared/bench
#      PG15_ROOT (default a temp dir) KEEP_TMP=0
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ROWS=${ROWS:-400000} TRIALS=${TRIALS:-3}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
BENCH_DIR=${BENCH_DIR:-/work/shared/bench}
TMP=$(mktemp -d /tmp/tidal-avbench.XXXXXX); chmod 755 "$TMP" # PostgreSQL runs as postgres
PG_ROOT=${PG15_ROOT:-$TMP/pg15}
RES=$REPO/bench/results/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$RES"
TIDAL_PID=""
log() { echo "# autovacuum.sh $(date -u +%T) $*" >&2; }
free_port() { local p; while :; do p=$((20000 + RANDOM % 40000)); [ -z "$(ss -Htln "( sport = :$p )")" ] && { echo "$p"; return; }; done; }
cleanup() {
  [ -n "$TIDAL_PID" ] && kill "$TIDAL_PID" 2>/dev/null && wait "$TIDAL_PID" 2>/dev/null
  [ -f "$PG_ROOT/data/postmaster.pid" ] && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_ROOT/data" -m fast stop >/dev/null 2>&1
  [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap "exit 1" INT TERM

log "building tidal"
(cd "$REPO" && go build -o "$TMP/tidal" ./cmd/tidal) || { echo "build failed" >&2; exit 1; }
PG_PORT=$(free_port)
log "starting PostgreSQL 15 on $PG_PORT"
PG15_ROOT=$PG_ROOT PG15_PORT=$PG_PORT AUTOVACUUM=on PGBIN=$PGBIN PG15_EXTRA_CONF="fsync = off
log_autovacuum_min_duration = 0
autovacuum_naptime = 1s
autovacuum_vacuum_cost_delay = 0" bash "$BENCH_DIR/pg15-start.sh" >"$RES/pg15-start.log" 2>&1 || { cat "$RES/pg15-start.log" >&2; exit 1; }

load() { # load PORT: the six-index table, 2 × ROWS dead tuples, then autovacuum enabled
  psql -X -q -h 127.0.0.1 -p "$1" -U postgres postgres -v ON_ERROR_STOP=1 <<SQL
DROP TABLE IF EXISTS par6;
CREATE TABLE par6 (id int, a int, b int, c int, d int, e int) WITH (autovacuum_enabled = off);
CREATE INDEX ON par6 (id); CREATE INDEX ON par6 (a); CREATE INDEX ON par6 (b);
CREATE INDEX ON par6 (c); CREATE INDEX ON par6 (d); CREATE INDEX ON par6 (e);
INSERT INTO par6 SELECT g, g, g, g, g, g FROM generate_series(1, $ROWS) g;
UPDATE par6 SET a = a + 1, b = b + 1, c = c + 1, d = d + 1, e = e + 1;
UPDATE par6 SET a = a + 1, b = b + 1, c = c + 1, d = d + 1, e = e + 1;
ALTER TABLE par6 SET (autovacuum_enabled = on);
SQL
}
wait_autovacuum() { # wait_autovacuum PORT: until par6 was autovacuumed (at most 30 min)
  local i
  for i in $(seq 1 1800); do
    [ "$(psql -X -At -h 127.0.0.1 -p "$1" -U postgres postgres -c "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relname = 'par6'" 2>/dev/null)" -ge 1 ] 2>/dev/null && return 0
    sleep 1
  done
  return 1
}
entry() { # entry LOGFILE: the last autovacuum log entry of par6, one line
  awk '/automatic vacuum of table "postgres.public.par6"/ {e=$0; on=1; next}
       on && /^[[:space:]]/ {e=e " | " $0; next} {on=0} END {print e}' "$1" | tail -1
}
figures() { # figures SERVER ENTRY -> "elapsed leadercpu walrec dirtied storebytes parallel"
  local e=$2 el cpu wal dirt store par
  el=$(grep -o 'elapsed: [0-9.]*' <<<"$e" | awk '{print $2}')
  if [ "$1" = pg15 ]; then
    cpu=$(grep -o 'CPU: user: [0-9.]* s, system: [0-9.]*' <<<"$e" | awk '{print $3 + $6}')
  else
    cpu=$(grep -o 'leader CPU: [0-9.]*' <<<"$e" | awk '{print $3}')
  fi
  wal=$(grep -o 'WAL usage: [0-9]*' <<<"$e" | awk '{print $3}')
  dirt=$(grep -o '[0-9]* dirtied' <<<"$e" | awk '{print $1}')
  store=$(grep -o 'radix tree, [0-9]* bytes' <<<"$e" | awk '{print $3}'); store=${store:-n/a}
  par=$(grep -o 'index vacuum: [0-9]* planned, [0-9]* launched' <<<"$e" | sed 's/index vacuum: //; s/ planned,/p/; s/ launched/l/'); par=${par:-serial}
  echo "${el:-?} ${cpu:-?} ${wal:-?} ${dirt:-?} $store ${par// /}"
}
run_tidal() { # run_tidal VARIANT TRIAL
  local conf=(-c autovacuum=on -c autovacuum_naptime=1 -c log_autovacuum_min_duration=0 -c autovacuum_vacuum_cost_delay=0 -c fsync=off)
  case $1 in
    par4) conf+=(-c autovacuum_max_parallel_workers=4 -c max_parallel_maintenance_workers=0) ;;
    pool0) conf+=(-c autovacuum_max_parallel_workers=4 -c max_parallel_workers=0) ;;
  esac
  local dir=$TMP/tidal-$1-$2 port; port=$(free_port)
  "$TMP/tidal" serve -D "$dir" -p "$port" "${conf[@]}" >"$TMP/tidal-$1-$2.log" 2>&1 &
  TIDAL_PID=$!
  for _ in $(seq 1 120); do psql -X -Atq -h 127.0.0.1 -p "$port" -U postgres postgres -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
  load "$port" >/dev/null && wait_autovacuum "$port"
  kill "$TIDAL_PID"; wait "$TIDAL_PID" 2>/dev/null; TIDAL_PID=""
  cp "$TMP/tidal-$1-$2.log" "$RES/"
  figures tidal "$(entry "$TMP/tidal-$1-$2.log")"
  rm -rf "$dir"
}
run_pg() { # run_pg TRIAL
  local before; before=$(wc -l <"$PG_ROOT/pg15.log")
  load "$PG_PORT" >/dev/null && wait_autovacuum "$PG_PORT"
  sleep 1
  tail -n +"$((before + 1))" "$PG_ROOT/pg15.log" >"$RES/pg15-$1.log"
  figures pg15 "$(entry "$RES/pg15-$1.log")"
}

declare -A FIG
for t in $(seq 1 "$TRIALS"); do
  for v in pg15 serial par4 pool0; do
    log "trial $t: $v ($ROWS rows)"
    if [ "$v" = pg15 ]; then FIG[$v,$t]=$(run_pg "$t"); else FIG[$v,$t]=$(run_tidal "$v" "$t"); fi
    log "  $v: ${FIG[$v,$t]}"
  done
done
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "?"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
{
  echo "seed 002 parallel autovacuum: $ROWS rows, six indexes, $((2 * ROWS)) dead tuples; $TRIALS trials, medians"
  printf '%-8s %10s %12s %12s %10s %14s %s\n' variant wall_s leader_cpu_s wal_records dirtied tid_store_B workers
  for v in pg15 serial par4 pool0; do
    cols=()
    for i in 1 2 3 4 5; do
      cols+=("$(for t in $(seq 1 "$TRIALS"); do echo "${FIG[$v,$t]}" | awk -v i="$i" '{print $i}'; done | grep -v 'n/a' | median)")
    done
    [ "$v" = pg15 ] && cols[4]=n/a
    printf '%-8s %10s %12s %12s %10s %14s %s\n' "$v" "${cols[@]}" "$(echo "${FIG[$v,1]}" | awk '{print $6}')"
  done
  echo "per trial:"; for k in "${!FIG[@]}"; do echo "  $k: ${FIG[$k]}"; done | sort
} | tee "$RES/autovacuum.txt"
