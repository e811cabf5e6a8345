#!/usr/bin/env bash
# walcompression.sh -- the seed 003 boat UPDATE with each wal_compression method, tidal and
# PostgreSQL 15 side by side.
#
#   usage:  bench/walcompression.sh                    # off pglz lz4 zstd, 3 trials each
#           METHODS="off zstd" BOAT_TRIALS=5 bench/walcompression.sh
#
# For every method it runs bench/compare.sh with WORKLOADS=boat and WAL_COMPRESSION=METHOD, which
# gives tidal "-c wal_compression=METHOD" and PostgreSQL 15 "wal_compression = METHOD" (both
# servers fresh, same durability settings), then prints one table: the UPDATE's WAL
# records, full-page images and bytes on each server, the byte ratio tidal/pg15, each
# server's bytes against its own `off` run, and the UPDATE's execution time (EXPLAIN ANALYZE
# "Execution Time", median and fastest over trials: on this shared 2-core machine the fastest
# trial is the better estimate of CPU cost) on each. Every other compare.sh tunable passes
# through (TIDAL_BIN, TIDAL_REV, TIDAL_ARGS, PG15_EXTRA_CONF, BOAT_ROWS, PAUSE, ...).
#
# Output: bench/results/walcompression-<UTC timestamp>/summary.txt (also on stdout), with each
# method's compare.sh results in a subfolder of that name.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
METHODS=${METHODS:-"off pglz lz4 zstd"}
export BOAT_TRIALS=${BOAT_TRIALS:-3}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RES=${RESULTS_DIR:-$HERE/results/walcompression-$STAMP}
mkdir -p "$RES" || exit 1

# Build once, so every method measures the same binary.
if [ -z "${TIDAL_BIN:-}" ]; then
  export TIDAL_BIN=$RES/tidal
  if [ -n "${TIDAL_REV:-}" ]; then
    src=$(mktemp -d)
    (cd "$HERE/.." && git archive "$TIDAL_REV" | tar -x -C "$src") && (cd "$src" && go build -o "$TIDAL_BIN" ./cmd/tidal) || exit 1
    rm -rf "$src"
    unset TIDAL_REV
  else
    (cd "$HERE/.." && go build -o "$TIDAL_BIN" ./cmd/tidal) || exit 1
  fi
fi

for m in $METHODS; do
  echo "# walcompression: $m" >&2
  RESULTS_DIR=$RES/$m WORKLOADS=boat WAL_COMPRESSION=$m "$HERE/compare.sh" >"$RES/$m.out" 2>"$RES/$m.err" ||
    echo "# walcompression: compare.sh failed for $m (see $RES/$m.err)" >&2
done

fig() { # fig METHOD SERVER KEY -> the median, or "-"
  local v
  v=$(sed -n "s/^$3=//p" "$RES/$1/$2/figures.txt" 2>/dev/null | tail -1)
  echo "${v:--}"
}
figmin() { # figmin METHOD SERVER KEY -> the smallest trial's figure, or "-"
  local v
  v=$(sed -n "s/^$3@[0-9]*=//p" "$RES/$1/$2/figures.txt" 2>/dev/null | sort -g | head -1)
  echo "${v:--}"
}
{
  echo "==== wal_compression: seed 003 boat UPDATE, tidal vs PostgreSQL 15 ($BOAT_TRIALS trial(s) per method) ===="
  echo "tidal: $("$TIDAL_BIN" version 2>/dev/null), git $(cd "$HERE/.." && git describe --always --dirty 2>/dev/null)"
  printf '%-6s %6s %5s %9s  %6s %5s %9s  %6s %6s %6s  %8s %8s %6s  %8s %8s %6s  %8s %8s\n' method t.recs t.fpi t.bytes \
    p.recs p.fpi p.bytes 't/p' 't/off' 'p/off' 't.upd_ms' 'p.upd_ms' 't/p' 't.upd_min' 'p.upd_min' 't/p' 't.rt_ms' 'p.rt_ms'
  tb0=$(fig off tidal boat.update.wal_bytes); pb0=$(fig off pg15 boat.update.wal_bytes)
  for m in $METHODS; do
    tr=$(fig "$m" tidal boat.update.wal_records); tf=$(fig "$m" tidal boat.update.wal_fpi); tb=$(fig "$m" tidal boat.update.wal_bytes)
    pr=$(fig "$m" pg15 boat.update.wal_records); pf=$(fig "$m" pg15 boat.update.wal_fpi); pb=$(fig "$m" pg15 boat.update.wal_bytes)
    tm=$(fig "$m" tidal boat.update.execution_ms); pm=$(fig "$m" pg15 boat.update.execution_ms)
    tn=$(figmin "$m" tidal boat.update.execution_ms); pn=$(figmin "$m" pg15 boat.update.execution_ms)
    tc=$(fig "$m" tidal boat.update.client_ms); pc=$(fig "$m" pg15 boat.update.client_ms)
    awk -v m="$m" -v tr="$tr" -v tf="$tf" -v tb="$tb" -v pr="$pr" -v pf="$pf" -v pb="$pb" -v tm="$tm" -v pm="$pm" \
        -v tn="$tn" -v pn="$pn" -v tc="$tc" -v pc="$pc" -v tb0="$tb0" -v pb0="$pb0" \
        'function r(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.3f", a / b) : "-" }
      BEGIN { printf "%-6s %6s %5s %9s  %6s %5s %9s  %6s %6s %6s  %8s %8s %6s  %8s %8s %6s  %8s %8s\n", m, tr, tf, tb,
              pr, pf, pb, r(tb, pb), r(tb, tb0), r(pb, pb0), tm, pm, r(tm, pm), tn, pn, r(tn, pn), tc, pc }'
  done
  echo
  echo "t = tidal, p = PostgreSQL 15; records, fpi and bytes: EXPLAIN (ANALYZE, WAL) of the UPDATE (medians);"
  echo "upd_ms / upd_min: its Execution Time, median / fastest trial; rt_ms: the EXPLAIN's round trip in psql"
  echo "(\\timing, median), which includes the commit's WAL flush. Per-trial figures: $RES/<method>/summary.txt."
} | tee "$RES/summary.txt"
