#!/usr/bin/env bash
# snapshot-bloat.sh -- zheap's headline benchmark: pgbench tpcb-like while another session
# holds a REPEATABLE READ snapshot open, heap against undo in one run, PostgreSQL 15's heap
# beside them.
#
#   usage:  bench/snapshot-bloat.sh                       # scale 10, 5 minutes per target
#           PGB_TIME=30 bench/snapshot-bloat.sh           # a quick look
#           TARGETS="tidal-undo" PGB_TIME=60 bench/snapshot-bloat.sh
#
# What it does, for each target in $TARGETS (tidal-heap tidal-undo pg15-heap, in that order):
#   1. pgbench -i -s $PGB_SCALE (tidal-undo: PGOPTIONS='-c default_table_access_method=undo',
#      then checks through pg_class/pg_am that all four pgbench tables really are undo, and
#      that the heap targets' are heap); CHECKPOINT;
#   2. sizes before: pg_relation_size of pgbench_accounts, pgbench_accounts_pkey,
#      pgbench_branches, pgbench_tellers and their pkeys, in pages;
#   3. a second psql session runs BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1; and keeps
#      the transaction (and so its snapshot) open through a FIFO;
#   4. pgbench -c $PGB_CLIENTS -j $PGB_JOBS -T $PGB_TIME (builtin tpcb-like, -M $PGB_MODE);
#   5. sizes after, while the snapshot is still held; then the holder commits; checks that
#      sum(abalance), sum(bbalance) and sum(tbalance) each grew by sum(delta) of the run's
#      pgbench_history rows (OK / MISMATCH in the summary).
# Tidal and PostgreSQL run with the compare.sh settings (shared_buffers=128MB, fsync,
# synchronous_commit, full_page_writes on, autovacuum off) on fresh data directories.
# Verdicts (issue 9): the undo pgbench_accounts and pgbench_accounts_pkey grow <= 10%;
# the heap ones grow several-fold (reported as the factor); undo TPS >= tidal heap TPS.
#
# Tunables (env): TARGETS="tidal-heap tidal-undo pg15-heap"  PGB_SCALE=10 PGB_TIME=300
#   PGB_CLIENTS=8 PGB_JOBS=2 PGB_MODE=simple  TIDAL_BIN= (prebuilt)  TIDAL_ARGS=
#   TIDAL_PORT= PG15_PORT= (default: free ports)  BENCH_DIR=/work/shared/bench
#   PGBIN=/usr/lib/postgresql/15/bin  KEEP_TMP=0
# Output: bench/results/snapshot-bloat-<UTC timestamp>/summary.txt (also on stdout).
# Must run as root or postgres (PostgreSQL is started as postgres via runuser).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/work/shared/bench}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
TARGETS=${TARGETS:-"tidal-heap tidal-undo pg15-heap"}
PGB_SCALE=${PGB_SCALE:-10} PGB_TIME=${PGB_TIME:-300} PGB_CLIENTS=${PGB_CLIENTS:-8} PGB_JOBS=${PGB_JOBS:-2}
PGB_MODE=${PGB_MODE:-simple}
TIDAL_BIN=${TIDAL_BIN:-} TIDAL_ARGS=${TIDAL_ARGS:-} KEEP_TMP=${KEEP_TMP:-0}
TIDAL_PORT=${TIDAL_PORT:-} PG_PORT=${PG15_PORT:-}
export PGUSER=postgres PGDATABASE=postgres PGCONNECT_TIMEOUT=10
RES=${RESULTS_DIR:-$HERE/results/snapshot-bloat-$(date -u +%Y%m%dT%H%M%SZ)}
RELS="pgbench_accounts pgbench_accounts_pkey pgbench_branches pgbench_branches_pkey pgbench_tellers pgbench_tellers_pkey"

log() { echo "# snapshot-bloat $(date -u +%T) $*" >&2; }
die() { echo "snapshot-bloat.sh: ERROR: $*" >&2; exit 1; }

mkdir -p "$RES" || die "cannot create $RES"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tidal-bloat.XXXXXX") || die "mktemp failed"
PG_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/tidal-bloat-pg15.XXXXXX") || die "mktemp failed"
TIDAL_PID=""; PG_STARTED=0; HOLDER_PID=""
cleanup() {
  [ -n "$HOLDER_PID" ] && kill "$HOLDER_PID" 2>/dev/null
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
need_tidal=0; need_pg=0
for t in $TARGETS; do
  case $t in tidal-heap|tidal-undo) need_tidal=1;; pg15-heap) need_pg=1;; *) die "unknown target $t";; esac
done

if [ "$need_tidal" = 1 ]; then
  if [ -z "$TIDAL_BIN" ]; then
    TIDAL_BIN=$TMP/tidal
    log "building tidal"
    (cd "$REPO" && go build -o "$TIDAL_BIN" ./cmd/tidal) || die "go build failed"
  fi
  TIDAL_PORT=${TIDAL_PORT:-$(free_port)} || die "no free port"
  # shellcheck disable=SC2086
  setsid "$TIDAL_BIN" serve -D "$TMP/tidal-data" -p "$TIDAL_PORT" -c shared_buffers=128MB -c fsync=on \
    -c full_page_writes=on -c synchronous_commit=on -c autovacuum=off $TIDAL_ARGS >"$TMP/tidal.log" 2>&1 </dev/null &
  TIDAL_PID=$!
  wait_ready "$TIDAL_PORT" || die "tidal did not start (see $TMP/tidal.log)"
fi
if [ "$need_pg" = 1 ]; then
  PG_PORT=${PG_PORT:-$(free_port "$TIDAL_PORT")} || die "no free port"
  PG_STARTED=1
  PG15_ROOT=$PG_ROOT PG15_PORT=$PG_PORT AUTOVACUUM=off PGBIN=$PGBIN "$BENCH_DIR/pg15-start.sh" >>"$RES/pg15.log" 2>&1 \
    || die "pg15-start.sh failed (see $RES/pg15.log)"
  wait_ready "$PG_PORT" || die "PostgreSQL 15 did not start"
fi
port_of() { case $1 in tidal-*) echo "$TIDAL_PORT";; *) echo "$PG_PORT";; esac; }
{
  echo "date: $(date -u +%FT%TZ)  cpus: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "tidal: $(git -C "$REPO" rev-parse --short HEAD)$( [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ] && echo ' (+ uncommitted changes)') port ${TIDAL_PORT:--} args: $TIDAL_ARGS"
  echo "pg15: port ${PG_PORT:--}"
  echo "pgbench tpcb-like -c $PGB_CLIENTS -j $PGB_JOBS -T $PGB_TIME -M $PGB_MODE, scale $PGB_SCALE, one REPEATABLE READ snapshot held throughout"
} >"$RES/env.txt"
cat "$RES/env.txt" >&2

sizes() { # sizes TARGET -> "rel=pages ..." of $RELS
  local q="" r
  for r in $RELS; do q+="${q:+ || ' ' || }'$r=' || pg_relation_size('$r') / 8192"; done
  psql -X -h 127.0.0.1 -p "$(port_of "$1")" -Atqc "SELECT $q"
}
undo_bytes() { # undo_bytes TARGET -> bytes of tidal's undo log files, "-" for PostgreSQL
  case $1 in tidal-*) du -sb "$TMP/tidal-data/undo" 2>/dev/null | cut -f1 || echo 0;; *) echo -;; esac
}
ams() { # ams TARGET -> "rel=am ..." of the four pgbench tables
  psql -X -h 127.0.0.1 -p "$(port_of "$1")" -Atqc "SELECT string_agg(c.relname || '=' || a.amname, ' ' ORDER BY c.relname) FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname IN ('pgbench_accounts', 'pgbench_branches', 'pgbench_tellers', 'pgbench_history')"
}

# pgbench truncates pgbench_history before a run, so sum(abalance), sum(bbalance) and
# sum(tbalance) must each grow by exactly sum(delta) of the run's history rows.
balances() { # balances TARGET -> "a|b|t|delta|history rows"
  psql -X -h 127.0.0.1 -p "$(port_of "$1")" -Atqc \
    "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches), (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT coalesce(sum(delta), 0) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)" 2>&1
}
check_balances() { # check_balances TARGET BEFORE AFTER
  local a0 b0 t0 a b t d n ok
  IFS='|' read -r a0 b0 t0 _ _ <<<"$2"; IFS='|' read -r a b t d n <<<"$3"
  if [ -n "$n" ] && [ $((a - a0)) = "$d" ] && [ $((b - b0)) = "$d" ] && [ $((t - t0)) = "$d" ]; then ok=OK; else ok=MISMATCH; fi
  echo "$1: change of sum(abalance)=$((a - a0)) sum(bbalance)=$((b - b0)) sum(tbalance)=$((t - t0)); sum(delta)=$d over $n history rows  $ok" >>"$RES/consistency.txt"
  [ "$ok" = OK ] || log "$1: balance invariant broken: before $2, after $3"
}
: >"$RES/consistency.txt"
: >"$RES/figures.tsv"
for t in $TARGETS; do
  port=$(port_of "$t"); am=${t#*-}
  opts=""; [ "$t" = tidal-undo ] && opts="-c default_table_access_method=undo"
  log "$t: pgbench -i -s $PGB_SCALE ${opts:+(PGOPTIONS=$opts)}"
  PGOPTIONS=$opts pgbench -h 127.0.0.1 -p "$port" -i -s "$PGB_SCALE" >"$RES/$t.init.log" 2>&1 || die "pgbench -i failed on $t (see $RES/$t.init.log)"
  got=$(ams "$t")
  want="pgbench_accounts=$am pgbench_branches=$am pgbench_history=$am pgbench_tellers=$am"
  [ "$got" = "$want" ] || die "$t: the pgbench tables are [$got], want [$want]"
  psql -X -h 127.0.0.1 -p "$port" -Atqc "CHECKPOINT" >/dev/null || die "CHECKPOINT failed on $t"
  before=$(sizes "$t") || die "sizes failed on $t"
  undo_before=$(undo_bytes "$t")
  log "$t: tables $got; before: $before"

  fifo=$TMP/holder.$t; mkfifo "$fifo"
  psql -X -h 127.0.0.1 -p "$port" -v ON_ERROR_STOP=1 -At <"$fifo" >"$RES/$t.holder.log" 2>&1 &
  HOLDER_PID=$!
  exec 3>"$fifo"
  echo "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1 AS holding_snapshot;" >&3
  for _ in $(seq 1 50); do grep -q '^1$' "$RES/$t.holder.log" && break; sleep 0.1; done
  grep -q '^1$' "$RES/$t.holder.log" || die "$t: the snapshot holder did not start (see $RES/$t.holder.log)"

  bal0=$(balances "$t")
  log "$t: pgbench -T $PGB_TIME while the snapshot is held"
  pgbench -h 127.0.0.1 -p "$port" -c "$PGB_CLIENTS" -j "$PGB_JOBS" -T "$PGB_TIME" -M "$PGB_MODE" -b tpcb-like >"$RES/$t.run.log" 2>&1
  tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$RES/$t.run.log")
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$RES/$t.run.log")
  after=$(sizes "$t") || die "sizes failed on $t"
  undo_held=$(undo_bytes "$t")
  check_balances "$t" "$bal0" "$(balances "$t")"
  # the holder is still in its transaction: its snapshot was held through the whole run
  echo "SELECT 'still holding ' || count(*) FROM pgbench_branches; COMMIT;" >&3
  exec 3>&-
  wait "$HOLDER_PID"; HOLDER_PID=""
  # the snapshot is gone: undo up to the newest commit can be discarded
  psql -X -h 127.0.0.1 -p "$port" -Atqc "SELECT count(*) FROM pgbench_branches" >/dev/null
  undo_released=$(undo_bytes "$t")
  grep -q '^still holding' "$RES/$t.holder.log" || log "$t: WARNING: the snapshot holder did not finish cleanly (see $RES/$t.holder.log)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${tps:-0}" "${failed:-?}" "$before" "$after" "$undo_before $undo_held $undo_released" >>"$RES/figures.tsv"
  log "$t: tps=${tps:-FAILED} failed=${failed:-?}; after: $after"
done

{
  cat "$RES/env.txt"; echo
  perl -e '
    my (%f, @order);
    open my $fh, "<", shift or die; while (<$fh>) { chomp; my ($t, $tps, $fl, $b, $a, $ub) = split /\t/;
      push @order, $t; $f{$t} = { tps => $tps, failed => $fl, undo => $ub, map { my ($k, $v) = split /=/; ("b:$k" => $v) } split / /, $b };
      for (split / /, $a) { my ($k, $v) = split /=/; $f{$t}{"a:$k"} = $v } }
    my @rels = qw(pgbench_accounts pgbench_accounts_pkey pgbench_branches pgbench_branches_pkey pgbench_tellers pgbench_tellers_pkey);
    printf "%-24s", "pages before -> after"; printf " %26s", $_ for @order; print "\n";
    for my $r (@rels) { printf "%-24s", $r;
      for my $t (@order) { my ($b, $a) = ($f{$t}{"b:$r"}, $f{$t}{"a:$r"}); printf " %26s", sprintf("%d -> %d (%.2fx)", $b, $a, $b ? $a / $b : 0) } print "\n" }
    printf "%-24s", "undo log MB (*)"; printf " %26s", join(" -> ", map { /^\d+$/ ? sprintf("%.1f", $_ / 1048576) : $_ } split / /, $f{$_}{undo} // "") for @order; print "\n";
    printf "%-24s", "TPS (failed)"; printf " %26s", sprintf("%.1f (%s)", $f{$_}{tps}, $f{$_}{failed}) for @order; print "\n\n";
    my ($pass, $fail) = (0, 0);
    my $v = sub { my ($name, $ok, $got) = @_; printf "  %-58s %-28s %s\n", $name, $got, $ok ? "PASS" : "FAIL"; $ok ? $pass++ : $fail++ };
    print "Verdict (issue 9):\n";
    if (my $u = $f{"tidal-undo"}) {
      for my $r (qw(pgbench_accounts pgbench_accounts_pkey)) { my $g = $u->{"b:$r"} ? $u->{"a:$r"} / $u->{"b:$r"} - 1 : 9e9;
        $v->("undo $r grows <= 10%", $g <= 0.10 + 1e-12, sprintf("%+.1f%%", 100 * $g)) }
      if (my $h = $f{"tidal-heap"}) { $v->("undo TPS >= tidal heap TPS", $u->{tps} >= $h->{tps}, sprintf("%.1f vs %.1f (%.2fx)", $u->{tps}, $h->{tps}, $h->{tps} ? $u->{tps} / $h->{tps} : 0)) }
    }
    for my $t (grep { /heap/ } @order) { for my $r (qw(pgbench_accounts pgbench_accounts_pkey)) { my $h = $f{$t};
      printf "  %-58s %-28s info\n", "$t $r growth factor", sprintf("%.2fx", $h->{"b:$r"} ? $h->{"a:$r"} / $h->{"b:$r"} : 0) } }
    printf "\n  %d PASS, %d FAIL\n", $pass, $fail;
    print "\n(*) the files under tidal-data/undo: before the run, at its end with the snapshot held, after the holder committed\n";
  ' "$RES/figures.tsv"
  echo; echo "pgbench invariant (balances grew by the run's history deltas):"; sed 's/^/  /' "$RES/consistency.txt"
  echo; echo "results: $RES"
} | tee "$RES/summary.txt"
