#!/usr/bin/env bash
# spill.sh -- queries bigger than work_mem on tidal and PostgreSQL 15 in one run: time and
# peak resident memory of the process that ran them (issue 16: work_mem bounds every sort and
# hash, which spill to temporary files).
#
#   usage:  PG_PORT=55070 bench/spill.sh
#           ROWS=10000000 WORK_MEM=4MB TRIALS=1 QUERIES="sort hashagg" PG_PORT=... bench/spill.sh
#
# PostgreSQL 15 must be running on PG_PORT (/work/shared/bench/pg15-start.sh). tidal is built
# from this checkout (or TIDAL_BIN) and started fresh on a temporary data directory for each
# query, so its VmHWM (peak RSS since start) is that query's peak. For PostgreSQL the figure is
# the backend's VmHWM, read from /proc in the same session after the query. "after" is the
# tidal server's VmRSS 3 s after the query ended (memory returned to the OS or not).
# Prints per query and server: seconds, peak RSS MB, and tidal/PG ratios.
set -uo pipefail
: "${PG_PORT:?set PG_PORT}"
ROWS=${ROWS:-10000000}
WORK_MEM=${WORK_MEM:-4MB}
TRIALS=${TRIALS:-1}
QUERIES=${QUERIES:-"sort hashagg"}
TIDAL_PORT=${TIDAL_PORT:-$((PG_PORT + 7))}
OUT=$(mktemp -d)
TPID=
trap '[ -n "$TPID" ] && kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; rm -rf "$OUT/data"' EXIT

if [ -z "${TIDAL_BIN:-}" ]; then
  TIDAL_BIN=$OUT/tidal
  (cd "$(dirname "$0")/.." && go build -o "$TIDAL_BIN" ./cmd/tidal) || exit 1
fi

query() {
  case $1 in
  sort) echo "SELECT count(*) FROM (SELECT g FROM generate_series(1, $ROWS) g ORDER BY md5(g::text)) s" ;;
  hashagg) echo "SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, $ROWS) g GROUP BY g) s" ;;
  esac
}

kb() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$2/status"; }

# run_tidal QUERY -> "seconds peakMB afterMB"
run_tidal() {
  rm -rf "$OUT/data"
  "$TIDAL_BIN" serve -D "$OUT/data" -p "$TIDAL_PORT" -c fsync=off -c "work_mem=$WORK_MEM" >"$OUT/tidal.log" 2>&1 &
  TPID=$!
  for _ in $(seq 60); do psql -X -q -h 127.0.0.1 -p "$TIDAL_PORT" -U postgres postgres -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
  local base t0 t1 peak after
  base=$(kb VmRSS "$TPID")
  t0=$(date +%s.%N)
  psql -X -q -A -t -h 127.0.0.1 -p "$TIDAL_PORT" -U postgres postgres -c "$(query "$1")" >"$OUT/tidal.$1.out" 2>&1
  t1=$(date +%s.%N)
  peak=$(kb VmHWM "$TPID")
  sleep 3
  after=$(kb VmRSS "$TPID")
  kill "$TPID"; wait "$TPID" 2>/dev/null
  echo "$(echo "$t1 - $t0" | bc -l) $((peak / 1024)) $((after / 1024)) $((base / 1024))"
}

# run_pg QUERY -> "seconds peakMB"
run_pg() {
  local t0 t1 out
  out=$(psql -X -q -A -t -h 127.0.0.1 -p "$PG_PORT" -U postgres postgres <<EOF
SET work_mem = '$WORK_MEM';
SELECT pg_backend_pid() AS pid \gset
\setenv PGPID :pid
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
$(query "$1");
SELECT extract(epoch FROM clock_timestamp()) - :t0;
\! awk '\$1 == "VmHWM:" {print \$2}' /proc/\$PGPID/status
EOF
)
  echo "$out" >"$OUT/pg.$1.out"
  echo "$(echo "$out" | tail -2 | head -1) $(($(echo "$out" | tail -1) / 1024))"
}

printf '%-8s %-6s %9s %9s %9s %9s\n' query server seconds peak_MB after_MB base_MB
for q in $QUERIES; do
  for i in $(seq "$TRIALS"); do
    read -r ts tp ta tb <<<"$(run_tidal "$q")"
    read -r ps pp <<<"$(run_pg "$q")"
    printf '%-8s %-6s %9.1f %9s %9s %9s\n' "$q" tidal "$ts" "$tp" "$ta" "$tb"
    printf '%-8s %-6s %9.1f %9s %9s %9s\n' "$q" pg15 "$ps" "$pp" - -
    printf '%-8s %-6s %9.2f\n' "$q" ratio "$(echo "$ts / $ps" | bc -l)"
    grep -q '^[0-9]' "$OUT/tidal.$q.out" || { echo "# tidal $q failed:"; cat "$OUT/tidal.$q.out"; }
  done
done
echo "rows: $ROWS, work_mem: $WORK_MEM; outputs in $OUT"
