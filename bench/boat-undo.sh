#!/usr/bin/env bash
# boat-undo.sh -- seed 003's second script (Redrock's undo table) on tidal, through psql,
# beside the same script on tidal's heap, for every wal_compression method.
#
#   usage:  bench/boat-undo.sh HOST PORT        (bench/compare.sh runs it as WORKLOADS=undo)
#
# For each trial, method in $UNDO_METHODS and variant in $UNDO_VARIANTS, on a fresh boat:
#   heap   the seed script as it stands (tidal's heap, the reference for the time ratio);
#   set    SET default_table_access_method = undo; then the script verbatim;
#   using  the script with CREATE TABLE boat (...) USING undo;
# each after SET wal_compression = <method> in the same psql session. The script is
# /work/shared/seeds/003's: CREATE TABLE, INSERT 500,000 rows, CREATE INDEX boat_idx1 (id)
# and boat_idx2 (reg), VACUUM ANALYZE, CHECKPOINT, EXPLAIN (analyze, buffers, wal, costs
# false) UPDATE boat SET name = 'trade winds' WHERE mod(id, 1000) = 1; then the relation
# sizes and the access method from pg_class/pg_am (a variant whose table is not the AM it
# names fails the run).
#
# Output: key@trial=value lines (seeds.sh's format) on stdout and in $OUT/figures.txt:
#   undo.<variant>.<method>.update.{hit,read,dirtied,written,wal_records,wal_fpi,wal_bytes,
#   execution_ms,seqscan_hit}  and  undo.<variant>.<method>.{table,idx1,idx2}_pages;
# raw psql output in $OUT/raw/undo.<variant>.<method>.t<N>.{out,err}.
# Tunables (env): OUT (default ./results/undo)  BOAT_ROWS=500000  UNDO_TRIALS=1
#   UNDO_METHODS="off pglz lz4 zstd"  UNDO_VARIANTS="heap set using"  PGUSER PGDATABASE
set -uo pipefail

[ $# -ge 2 ] || { sed -n '2,4p' "$0"; exit 2; }
HOST=$1; PORT=$2
export PGUSER=${PGUSER:-postgres} PGDATABASE=${PGDATABASE:-postgres}
OUT=${OUT:-$(pwd)/results/undo}
BOAT_ROWS=${BOAT_ROWS:-500000} UNDO_TRIALS=${UNDO_TRIALS:-1}
UNDO_METHODS=${UNDO_METHODS:-"off pglz lz4 zstd"} UNDO_VARIANTS=${UNDO_VARIANTS:-"heap set using"}
RAW=$OUT/raw; FIG=$OUT/figures.txt
mkdir -p "$RAW"
PSQL=(psql -X -h "$HOST" -p "$PORT" -v ON_ERROR_STOP=1 -P pager=off)
log() { echo "# $(date -u +%T) $*" >&2; }

script() { # script VARIANT METHOD -> the psql input
  local using=""
  echo "DROP TABLE IF EXISTS boat;"
  echo "SET wal_compression = $2;"
  case $1 in
    set) echo "SET default_table_access_method = undo;" ;;
    using) using=" USING undo" ;;
    heap) echo "SET default_table_access_method = heap;" ;;
  esac
  cat <<SQL
CREATE TABLE boat (id integer, name text, reg double precision)$using;

INSERT INTO boat(id, name, reg)
  SELECT i, md5(i::text), log(i)
    FROM generate_series(1, $BOAT_ROWS) as i;

CREATE INDEX boat_idx1 ON boat(id);
CREATE INDEX boat_idx2 ON boat(reg);

VACUUM ANALYZE boat;
CHECKPOINT;

\echo @@ explain
EXPLAIN (analyze, buffers, wal, costs false)
  UPDATE boat SET name = 'trade winds'
    WHERE mod(id, 1000) = 1;
\echo @@ sizes
SELECT pg_relation_size('boat') / 8192, pg_relation_size('boat_idx1') / 8192, pg_relation_size('boat_idx2') / 8192,
       (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'boat');
SQL
}

rc=0
for t in $(seq 1 "$UNDO_TRIALS"); do
  for m in $UNDO_METHODS; do
    for v in $UNDO_VARIANTS; do
      f=$RAW/undo.$v.$m.t$t
      log "undo workload: trial $t, wal_compression=$m, $v"
      if ! script "$v" "$m" | "${PSQL[@]}" -At -f - >"$f.out" 2>"$f.err"; then
        log "ERROR: psql exited non-zero for $v/$m trial $t (see $f.err): $(grep -m1 ERROR "$f.err")"; rc=1; continue
      fi
      want=undo; [ "$v" = heap ] && want=heap
      perl -e '
        my ($pre, $t, $want) = @ARGV[1..3]; open my $fh, "<", $ARGV[0] or die;
        my ($in, $seq, $top, %k) = (0, 0, 0);
        while (<$fh>) {
          if (/^\@\@ explain/) { $in = 1; next } if (/^\@\@ sizes/) { $in = 2; next }
          if ($in == 1) {
            if (!$top && /^Update on boat/) { $top = 1 }
            if ($top == 1 && /Buffers: shared (.*)/) { my $s = $1; $k{"update.$_"} = ($s =~ /\b$_=(\d+)/ ? $1 : 0) for qw(hit read dirtied written) }
            if ($top == 1 && /WAL: (.*)/) { my $s = $1; $k{"update.wal_$_"} = ($s =~ /\b$_=(\d+)/ ? $1 : 0) for qw(records fpi bytes); $top = 2 }
            if (/->\s+Seq Scan on boat/) { $seq = 1 }
            if ($seq == 1 && /Buffers: shared (.*)/) { my $s = $1; $k{"update.seqscan_hit"} = ($s =~ /\bhit=(\d+)/ ? $1 : 0); $seq = 2 }
            if (/Execution Time: ([0-9.]+) ms/) { $k{"update.execution_ms"} = $1 }
          } elsif ($in == 2 && /^(\d+)\|(\d+)\|(\d+)\|(\w+)$/) {
            @k{qw(table_pages idx1_pages idx2_pages)} = ($1, $2, $3);
            if ($4 ne $want) { print STDERR "boat is $4, want $want\n"; exit 3 }
          }
        }
        print "$pre.$_\@$t=$k{$_}\n" for sort keys %k;
      ' "$f.out" "undo.$v.$m" "$t" "$want" | tee -a "$FIG" || { log "ERROR: $v/$m trial $t: wrong access method"; rc=1; }
    done
  done
done
exit $rc
