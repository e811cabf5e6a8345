#!/usr/bin/env bash
# pgbench-modes.sh -- pgbench on tidal and PostgreSQL 15 side by side, per script and
# query mode, with TPS ratios.
#
#   usage:  bench/pgbench-modes.sh
#           PGB_TIME=10 TRIALS=1 MODES=simple SCRIPTS=select-only bench/pgbench-modes.sh
#
# What it does:
#   1. builds ./cmd/tidal (unless TIDAL_BIN is set) and starts it on a fresh temp data dir
#      with shared_buffers=128MB fsync=on full_page_writes=on synchronous_commit=on
#      autovacuum=off; starts a private PostgreSQL 15 through /work/shared/bench/pg15-start.sh
#      (fresh PG15_ROOT, free port, the same settings) -- never the shared reference server;
#   2. pgbench -i -s $PGB_SCALE on both;
#   3. for each trial, script and mode: pgbench -c $PGB_CLIENTS -j $PGB_JOBS -T $PGB_TIME
#      -M mode -b script on both servers, alternating which goes first; a script name
#      with a file bench/<name>.sql beside this one runs that file instead
#      (-f bench/<name>.sql -s $PGB_SCALE), e.g. tpcb-savepoint: tpcb-like with each
#      statement wrapped in SAVEPOINT/RELEASE, as pgjdbc autosave and psql
#      ON_ERROR_ROLLBACK send;
#   4. checks after every run on both servers that sum(abalance), sum(bbalance) and
#      sum(tbalance) grew by sum(delta) of the run's pgbench_history rows (pgbench
#      truncates the history before it starts), and counts failed transactions;
#   5. prints a table: script, mode, median TPS of each server, ratio tidal/pg15, every trial.
#
# Tunables (env): SCRIPTS="tpcb-like select-only" (builtin names or bench/<name>.sql)
#   MODES="simple extended prepared"
#   TRIALS=2  PGB_SCALE=10 PGB_CLIENTS=8 PGB_JOBS=2 PGB_TIME=30  PAUSE=2
#   PGB_ARGS= (extra pgbench options for the runs, e.g. "--max-tries=10": pgbench then
#   retries serialization failures and reports how many it retried)
#   TIDAL_REV= (build this git revision via read-only `git archive`, e.g. a baseline
#   commit, instead of the working tree)  TIDAL_BIN= (prebuilt binary)  TIDAL_ARGS= (extra args for `tidal serve`, e.g.
#   "-cpuprofile /tmp/t.prof": the profile then covers the whole server lifetime)
#   BENCH_DIR=/work/shared/bench  PGBIN=/usr/lib/postgresql/15/bin  KEEP_TMP=0
# Output: bench/results/pgbench-<UTC timestamp>/ (summary.txt, one log per pgbench run).
# Must run as root or postgres (PostgreSQL is started as postgres via runuser).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/work/shared/bench}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
SCRIPTS=${SCRIPTS:-"tpcb-like select-only"}
MODES=${MODES:-"simple extended prepared"}
TRIALS=${TRIALS:-2}
PGB_SCALE=${PGB_SCALE:-10} PGB_CLIENTS=${PGB_CLIENTS:-8} PGB_JOBS=${PGB_JOBS:-2} PGB_TIME=${PGB_TIME:-30}
PAUSE=${PAUSE:-2}
PGB_ARGS=${PGB_ARGS:-}
TIDAL_BIN=${TIDAL_BIN:-}
TIDAL_REV=${TIDAL_REV:-}
TIDAL_ARGS=${TIDAL_ARGS:-}
KEEP_TMP=${KEEP_TMP:-0}
export PGUSER=postgres PGDATABASE=postgres PGCONNECT_TIMEOUT=10
RES=${RESULTS_DIR:-$HERE/results/pgbench-$(date -u +%Y%m%dT%H%M%SZ)}

log() { echo "# pgbench-modes $(date -u +%T) $*" >&2; }
die() { echo "pgbench-modes.sh: ERROR: $*" >&2; exit 1; }

mkdir -p "$RES" || die "cannot create $RES"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tidal-pgb.XXXXXX") || die "mktemp failed"
PG_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/tidal-pgb-pg15.XXXXXX") || die "mktemp failed"  # pg15-start.sh chowns it to postgres
TIDAL_PID=""; PG_STARTED=0
cleanup() {
  if [ -n "$TIDAL_PID" ] && kill -0 "$TIDAL_PID" 2>/dev/null; then
    kill -TERM "$TIDAL_PID"
    for _ in $(seq 1 100); do kill -0 "$TIDAL_PID" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$TIDAL_PID" 2>/dev/null && kill -KILL "$TIDAL_PID"
    wait "$TIDAL_PID" 2>/dev/null
  fi
  [ "$PG_STARTED" = 1 ] && PG15_ROOT=$PG_ROOT PGBIN=$PGBIN "$BENCH_DIR/pg15-stop.sh" >>"$RES/pg15.log" 2>&1
  cp "$TMP/tidal.log" "$RES/tidal-server.log" 2>/dev/null
  [ "$KEEP_TMP" = 1 ] || rm -rf -- "$TMP" "$PG_ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [ "$p" = "${1:-}" ] && continue
    [ -z "$(ss -Htln "( sport = :$p )" 2>/dev/null)" ] && { echo "$p"; return 0; }
  done
  return 1
}
wait_ready() {
  for _ in $(seq 1 300); do
    psql -X -h 127.0.0.1 -p "$1" -Atqc 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

TIDAL_DESC=
if [ -z "$TIDAL_BIN" ]; then
  TIDAL_BIN=$TMP/tidal
  SRC=$REPO
  if [ -n "$TIDAL_REV" ]; then
    rev=$(git -C "$REPO" rev-parse --verify --short "$TIDAL_REV^{commit}" 2>/dev/null) || die "TIDAL_REV=$TIDAL_REV is not a commit"
    SRC=$TMP/src; mkdir -p "$SRC"
    git -C "$REPO" archive --format=tar "$rev" | tar -x -C "$SRC" || die "git archive $rev failed"
    TIDAL_DESC=$rev
  fi
  log "building tidal${TIDAL_DESC:+ $TIDAL_DESC}"
  (cd "$SRC" && go build -o "$TIDAL_BIN" ./cmd/tidal) || die "go build failed"
else
  TIDAL_DESC="binary $TIDAL_BIN"
fi
TIDAL_PORT=$(free_port) || die "no free port"
PG_PORT=$(free_port "$TIDAL_PORT") || die "no free port"
# shellcheck disable=SC2086
setsid "$TIDAL_BIN" serve -D "$TMP/tidal-data" -p "$TIDAL_PORT" -c shared_buffers=128MB -c fsync=on \
  -c full_page_writes=on -c synchronous_commit=on -c autovacuum=off $TIDAL_ARGS >"$TMP/tidal.log" 2>&1 </dev/null &
TIDAL_PID=$!
wait_ready "$TIDAL_PORT" || die "tidal did not start (see $TMP/tidal.log)"
PG_STARTED=1
PG15_ROOT=$PG_ROOT PG15_PORT=$PG_PORT AUTOVACUUM=off PGBIN=$PGBIN "$BENCH_DIR/pg15-start.sh" >>"$RES/pg15.log" 2>&1 \
  || die "pg15-start.sh failed (see $RES/pg15.log)"
wait_ready "$PG_PORT" || die "PostgreSQL 15 did not start"
log "tidal on $TIDAL_PORT (pid $TIDAL_PID), pg15 on $PG_PORT"
port_of() { [ "$1" = tidal ] && echo "$TIDAL_PORT" || echo "$PG_PORT"; }

{
  echo "date: $(date -u +%FT%TZ)  cpus: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "$TIDAL_DESC" ]; then
    echo "tidal: $TIDAL_DESC args: $TIDAL_ARGS"
  else
    echo "tidal: $(git -C "$REPO" rev-parse --short HEAD)$( [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ] && echo ' (+ uncommitted changes)') args: $TIDAL_ARGS"
  fi
  for s in tidal pg15; do
    printf '%s settings:' "$s"
    for n in shared_buffers fsync synchronous_commit full_page_writes; do
      printf ' %s=%s' "$n" "$(psql -X -h 127.0.0.1 -p "$(port_of $s)" -Atqc "SHOW $n")"
    done
    echo
  done
  echo "pgbench -c $PGB_CLIENTS -j $PGB_JOBS -T $PGB_TIME, scale $PGB_SCALE, trials $TRIALS"
} >"$RES/env.txt"
cat "$RES/env.txt" >&2

for s in tidal pg15; do
  log "$s: pgbench -i -s $PGB_SCALE"
  pgbench -h 127.0.0.1 -p "$(port_of $s)" -i -s "$PGB_SCALE" >"$RES/$s.init.log" 2>&1 || die "pgbench -i failed on $s (see $RES/$s.init.log)"
done

# The builtin scripts truncate pgbench_history before they start (unless -n), so a run keeps
# the invariant as: the growth of sum(abalance), sum(bbalance) and sum(tbalance) during
# the run each equal sum(delta) of the history rows it inserted.
balances() { # balances SERVER -> "a|b|t|delta|history rows"
  psql -X -h 127.0.0.1 -p "$(port_of "$1")" -Atqc \
    "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches), (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT coalesce(sum(delta), 0) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)" 2>&1
}
check_balances() { # check_balances SERVER WHAT BEFORE AFTER
  local a0 b0 t0 a b t d n ok
  IFS='|' read -r a0 b0 t0 _ _ <<<"$3"; IFS='|' read -r a b t d n <<<"$4"
  if [ -n "$n" ] && [ $((a - a0)) = "$d" ] && [ $((b - b0)) = "$d" ] && [ $((t - t0)) = "$d" ]; then ok=OK; else ok=MISMATCH; fi
  echo "$1 $2: change of sum(abalance)=$((a - a0)) sum(bbalance)=$((b - b0)) sum(tbalance)=$((t - t0)); sum(delta)=$d over $n history rows  $ok" >>"$RES/consistency.txt"
  [ "$ok" = OK ] || log "$1 $2: balance invariant broken: before $3, after $4"
}
: >"$RES/consistency.txt"
: >"$RES/runs.tsv"
run=0
for t in $(seq 1 "$TRIALS"); do
  for sc in $SCRIPTS; do
    # A builtin script, or bench/$sc.sql (whose :scale pgbench takes from -s:
    # it detects the scale itself only for builtin scripts).
    if [ -f "$HERE/$sc.sql" ]; then sargs=(-f "$HERE/$sc.sql" -s "$PGB_SCALE"); else sargs=(-b "$sc"); fi
    for m in $MODES; do
      run=$((run + 1))
      if [ $((run % 2)) = 1 ]; then order="tidal pg15"; else order="pg15 tidal"; fi
      for s in $order; do
        f=$RES/$s.$sc.$m.t$t.log
        sync; sleep "$PAUSE"
        before=$(balances "$s")
        log "$s: $sc -M $m (trial $t)"
        pgbench -h 127.0.0.1 -p "$(port_of $s)" -c "$PGB_CLIENTS" -j "$PGB_JOBS" -T "$PGB_TIME" -M "$m" "${sargs[@]}" $PGB_ARGS >"$f" 2>&1
        tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$f")
        failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$f")
        errs=$(grep -c -i 'error' "$f")
        retried=$(sed -n 's/^number of transactions retried: \([0-9]*\).*/\1/p' "$f")
        [ -n "$retried" ] && errs="$errs,retried=$retried"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$sc" "$m" "$t" "${tps:-0}" "${failed:-?}/$errs" >>"$RES/runs.tsv"
        check_balances "$s" "$sc -M $m trial $t" "$before" "$(balances "$s")"
        log "$s: $sc -M $m: tps=${tps:-FAILED} failed=${failed:-?} error lines[,retried]=$errs"
      done
    done
  done
done


{
  cat "$RES/env.txt"; echo
  perl -e '
    my (%v, %f, @order, %seen);
    open my $fh, "<", shift; while (<$fh>) { chomp; my ($s, $sc, $m, $t, $tps, $fl) = split /\t/;
      my $k = "$sc\t$m"; push @order, $k unless $seen{$k}++; push @{$v{$k}{$s}}, $tps; push @{$f{$k}{$s}}, $fl }
    sub med { my @a = sort { $a <=> $b } @_; my $n = @a; return 0 unless $n; $n % 2 ? $a[$n/2] : ($a[$n/2-1] + $a[$n/2]) / 2 }
    printf "%-12s %-9s %10s %10s %7s  %-24s %-24s %s\n", "script", "mode", "tidal", "pg15", "ratio", "tidal trials", "pg15 trials", "failed/error lines (tidal; pg15)";
    for my $k (@order) { my ($sc, $m) = split /\t/, $k; my ($t, $p) = (med(@{$v{$k}{tidal}}), med(@{$v{$k}{pg15}}));
      printf "%-12s %-9s %10.1f %10.1f %7s  %-24s %-24s %s; %s\n", $sc, $m, $t, $p, $p > 0 ? sprintf("%.2fx", $t / $p) : "n/a",
        join(" ", map { sprintf "%.0f", $_ } @{$v{$k}{tidal}}), join(" ", map { sprintf "%.0f", $_ } @{$v{$k}{pg15}}),
        join(" ", @{$f{$k}{tidal}}), join(" ", @{$f{$k}{pg15}}) }
  ' "$RES/runs.tsv"
  echo; cat "$RES/consistency.txt"
  echo; echo "results: $RES"
} | tee "$RES/summary.txt"
