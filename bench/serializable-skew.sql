-- serializable-skew: a write-skew-prone variant of tpcb-like, for SERIALIZABLE runs
-- (PGOPTIONS='-c default_transaction_isolation=serializable', PGB_ARGS=--max-tries=N).
-- Each transaction reads the sum of its branch's teller balances (a check in the style of
-- "the branch must stay solvent") and then moves one teller; two transactions on one
-- branch read what the other writes, so SSI must fail one of them when they overlap. The
-- tellers are read by key range (an index scan) rather than by bid (a sequential scan).
-- The rest is tpcb-like's, so the balance invariant pgbench-modes.sh checks still holds.
\set bid random(1, 1 * :scale)
\set tid1 (:bid - 1) * 10 + 1
\set tid2 :bid * 10
\set tid :tid1 + random(0, 9)
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
SELECT sum(tbalance) FROM pgbench_tellers WHERE tid BETWEEN :tid1 AND :tid2;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
