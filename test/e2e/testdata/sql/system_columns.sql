# System columns: ctid, xmin, cmin, xmax, cmax and tableoid on any table,
# in select lists, WHERE clauses and joins, never in *; their types (tid,
# xid, cid, oid) with the operators and casts PostgreSQL has for them; xmin
# telling apart the rows of different transactions and savepoints; the
# names reserved. Expected results are PostgreSQL 15's.

# The tables are heap tables whatever the default AM (the suite also runs
# with TIDAL_TEST_TABLE_AM=undo): what xmin, xmax and ctid show below is
# the heap's, PostgreSQL's only table format. An undo table keeps no xmin
# once its undo is discarded (it shows FrozenXid), has no xmax, and
# updates rows in place (same ctid); test/e2e/undo_test.go covers that.
statement ok
CREATE TABLE sc (a int, b text) USING heap

statement ok
INSERT INTO sc VALUES (1, 'one'), (2, 'two'), (3, 'three')

query
SELECT ctid, xmax, cmin, cmax, tableoid = 'sc'::regclass, tableoid::regclass, a FROM sc ORDER BY a
----
(0,1)|0|0|0|t|sc|1
(0,2)|0|0|0|t|sc|2
(0,3)|0|0|0|t|sc|3

query
SELECT pg_typeof(ctid), pg_typeof(xmin), pg_typeof(cmin), pg_typeof(xmax), pg_typeof(cmax), pg_typeof(tableoid) FROM sc LIMIT 1
----
tid|xid|cid|xid|cid|oid

# * leaves them out, qualified or not.
query
SELECT * FROM sc WHERE a = 1
----
1|one

query
SELECT s.* FROM sc s WHERE a = 1
----
1|one

# In WHERE: fetch by TID, compare TIDs.
query
SELECT a, b FROM sc WHERE ctid = '(0,2)'
----
2|two

query
SELECT a FROM sc WHERE ctid > '(0,1)' AND ctid <= '(0,3)' ORDER BY ctid DESC
----
3
2

query
SELECT ctid::text, '(5,7)'::tid, '(0,1)'::tid < '(1,0)'::tid FROM sc WHERE a = 1
----
(0,1)|(5,7)|t

error 22P02
SELECT '(1,x)'::tid

# Rows of one statement share an xmin.
query
SELECT count(DISTINCT xmin::text) FROM sc
----
1

query
SELECT a.xmin = b.xmin, a.xmin <> b.xmin FROM sc a, sc b WHERE a.a = 1 AND b.a = 3
----
t|f

query
SELECT count(*) FROM sc WHERE xmin = xmin AND xmin::text::bigint > 2
----
3

query
SELECT xmin = 1 FROM sc WHERE a = 1
----
f

error 42883
SELECT xmin < xmin FROM sc

error 42883
SELECT ctid + 1 FROM sc

# Rows written by different savepoints of a transaction have different
# xmins; rows of one subtransaction share one.
statement ok
BEGIN

statement ok
INSERT INTO sc VALUES (10, 'top')

statement ok
SAVEPOINT s1

statement ok
INSERT INTO sc VALUES (11, 's1'), (12, 's1')

statement ok
SAVEPOINT s2

statement ok
INSERT INTO sc VALUES (13, 's2')

statement ok
RELEASE s2

statement ok
COMMIT

query
SELECT a.a, b.a, a.xmin = b.xmin FROM sc a JOIN sc b ON a.a < b.a WHERE a.a >= 10 AND b.a >= 10 ORDER BY 1, 2
----
10|11|f
10|12|f
10|13|f
11|12|t
11|13|f
12|13|f

# cmin counts the commands of the inserting transaction.
statement ok
BEGIN

statement ok
INSERT INTO sc VALUES (20, 'c0')

statement ok
INSERT INTO sc VALUES (21, 'c1')

query
SELECT a, cmin, cmax FROM sc WHERE a >= 20 ORDER BY a
----
20|0|0
21|1|1

statement ok
COMMIT

# xmax: a deleting transaction that rolled back leaves its xid behind.
statement ok
BEGIN

statement ok
DELETE FROM sc WHERE a = 1

statement ok
ROLLBACK

query
SELECT xmax <> 0 FROM sc WHERE a = 1
----
t

# Updated rows move: a new ctid and xmin.
statement ok
CREATE TABLE sc_before AS SELECT ctid AS c, xmin::text AS x, a FROM sc WHERE a = 2

statement ok
UPDATE sc SET b = 'TWO' WHERE a = 2

query
SELECT s.ctid = o.c, s.xmin::text = o.x FROM sc s, sc_before o WHERE s.a = o.a
----
f|f

statement ok
DROP TABLE sc_before

# Joins on system columns, and tableoid telling tables apart.
statement ok
CREATE TABLE sc2 (a int)

statement ok
INSERT INTO sc2 VALUES (1)

query
SELECT x.tableoid::regclass, y.tableoid::regclass, x.tableoid = y.tableoid FROM sc x JOIN sc2 y ON x.a = y.a
----
sc|sc2|f

query
SELECT count(*) FROM sc x JOIN sc y ON x.ctid = y.ctid
----
9

# System columns of a subquery's output are its own columns.
query
SELECT ctid FROM (SELECT 5 AS ctid) s
----
5

# WHERE ctid = constant fetches the row by its TID (a Tid Scan); a TID
# whose version was updated away, or past the table's end, finds nothing.
statement ok
CREATE TABLE sc_tid (a int, b text) USING heap

statement ok
INSERT INTO sc_tid VALUES (1, 'x'), (2, 'y')

query
EXPLAIN (COSTS OFF) SELECT * FROM sc_tid WHERE ctid = '(0,1)' AND a > 0
----
Tid Scan on sc_tid
  TID Cond: (ctid = '(0,1)'::tid)
  Filter: (a > 0)

query
EXPLAIN (COSTS OFF) UPDATE sc_tid SET a = 1 WHERE ctid = '(0,1)'
----
Update on sc_tid
  ->  Tid Scan on sc_tid
        TID Cond: (ctid = '(0,1)'::tid)

query
UPDATE sc_tid SET b = 'z' WHERE ctid = '(0,1)' RETURNING ctid, a, b
----
(0,3)|1|z

query
SELECT count(*) FROM sc_tid WHERE ctid = '(0,1)'
----
0

query
SELECT a, b FROM sc_tid WHERE ctid = '(0,3)'
----
1|z

query
SELECT count(*) FROM sc_tid WHERE ctid = '(9,1)'
----
0

statement ok
DROP TABLE sc_tid

# UPDATE and DELETE by ctid, RETURNING system columns.
query
UPDATE sc SET b = 'ONE' WHERE ctid = (SELECT ctid FROM sc WHERE a = 1) RETURNING a, b, tableoid::regclass, xmax
----
1|ONE|sc|0

query
DELETE FROM sc WHERE ctid IN (SELECT ctid FROM sc WHERE a >= 20) RETURNING a, tableoid::regclass
----
20|sc
21|sc

# No column may take a system column's name.
error 42701
CREATE TABLE sc_bad (xmin int)

error 42701
ALTER TABLE sc ADD COLUMN cmax int

error 42701
ALTER TABLE sc RENAME COLUMN b TO ctid

error 42701
CREATE TABLE sc_bad AS SELECT 1 AS tableoid

statement ok
DROP TABLE sc, sc2
