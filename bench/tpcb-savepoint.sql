-- tpcb-savepoint: pgbench's built-in tpcb-like with every statement of the
-- block wrapped in a savepoint, as pgjdbc sends with autosave=always
-- (SAVEPOINT PGJDBC_AUTOSAVE before each statement, RELEASE after it with
-- cleanupSavepoints) and psql with ON_ERROR_ROLLBACK on. Same tables and
-- invariant as tpcb-like; run by bench/pgbench-modes.sh with -f and -s.
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
SAVEPOINT s;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
RELEASE SAVEPOINT s;
SAVEPOINT s;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
RELEASE SAVEPOINT s;
SAVEPOINT s;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
RELEASE SAVEPOINT s;
SAVEPOINT s;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
RELEASE SAVEPOINT s;
SAVEPOINT s;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
RELEASE SAVEPOINT s;
END;
