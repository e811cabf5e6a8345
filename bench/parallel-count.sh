#!/usr/bin/env bash
# parallel-count.sh -- EXPLAIN (ANALYZE) SELECT count(*) over a 1M-row table with a parallel
# plan (max_parallel_workers_per_gather = 2) and a serial one (= 0), on tidal and PostgreSQL 15
# in one run, trials interleaved so the shared machine's noise hits both alike.
#
#   usage:  TIDAL_PORT=5433 PG_PORT=55441 bench/parallel-count.sh
#           TRIALS=9 ROWS=1000000 TIDAL_PORT=... PG_PORT=... bench/parallel-count.sh
#
# Both servers must be running (tidal: `tidal serve -p PORT`; PostgreSQL 15:
# /work/shared/bench/pg15-start.sh). The table pcount(a int, b int) is created and loaded on each
# if it does not hold ROWS rows yet, then VACUUMed (so both know its size and all-visible pages).
# Each trial runs the parallel and the serial query once per server and records EXPLAIN's
# "Execution Time" and the Workers Planned/Launched lines. It prints the median times, the
# parallel/serial ratio of each server, and how often the parallel plan launched all its workers.
set -uo pipefail
: "${TIDAL_PORT:?set TIDAL_PORT}" "${PG_PORT:?set PG_PORT}"
TRIALS=${TRIALS:-7}
ROWS=${ROWS:-1000000}
OUT=$(mktemp -d)

psqlc() { psql -X -q -A -t -h 127.0.0.1 -p "$1" -U postgres postgres -c "$2"; }

for srv in tidal:$TIDAL_PORT pg15:$PG_PORT; do
  port=${srv#*:}
  n=$(psqlc "$port" "SELECT count(*) FROM pcount" 2>/dev/null || echo -1)
  if [ "$n" != "$ROWS" ]; then
    echo "# loading $ROWS rows into ${srv%%:*}" >&2
    psqlc "$port" "DROP TABLE IF EXISTS pcount" >/dev/null
    psqlc "$port" "CREATE TABLE pcount (a int, b int)" >/dev/null
    psqlc "$port" "INSERT INTO pcount SELECT g, g % 100 FROM generate_series(1, $ROWS) g" >/dev/null || exit 1
  fi
  psqlc "$port" "VACUUM pcount" >/dev/null
  psqlc "$port" "SELECT count(*) FROM pcount" >/dev/null # warm the buffers
done

run() { # run SERVER PORT MODE WORKERS
  local plan
  plan=$(psqlc "$2" "SET max_parallel_workers_per_gather = $4; EXPLAIN (ANALYZE) SELECT count(*) FROM pcount")
  echo "$plan" | sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p' >>"$OUT/$1.$3"
  if [ "$3" = par ]; then
    echo "$plan" | grep -q "Workers Launched: 2" && echo 1 >>"$OUT/$1.full" || echo 0 >>"$OUT/$1.full"
    echo "$plan" | grep -q "Workers Planned: 2" || echo "# ${1}: parallel plan missing: $plan" >&2
  fi
}
for i in $(seq "$TRIALS"); do
  run tidal "$TIDAL_PORT" par 2; run pg15 "$PG_PORT" par 2
  run tidal "$TIDAL_PORT" ser 0; run pg15 "$PG_PORT" ser 0
done

median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
printf '%-6s %12s %12s %8s %14s\n' server parallel_ms serial_ms ratio launched_2_of
for s in tidal pg15; do
  p=$(median "$OUT/$s.par"); q=$(median "$OUT/$s.ser")
  printf '%-6s %12.1f %12.1f %8.2f %10s/%s\n' "$s" "$p" "$q" "$(echo "$p / $q" | bc -l)" \
    "$(paste -sd+ "$OUT/$s.full" | bc)" "$TRIALS"
done
echo "trials: $TRIALS, rows: $ROWS; per-trial times in $OUT"
