# B-tree deduplication (posting lists), deduplicate_items, and scans,
# unique checks and updates seeing through posting lists. Index sizes are
# PostgreSQL 15's for the same rows (the heap TIDs are the same; heap tables, since
# indexes of tables that update in place are not deduplicated).

statement ok
CREATE TABLE dd (a int, b int, t text) USING heap

statement ok
INSERT INTO dd SELECT i % 10, i, 'v' || (i % 7) FROM generate_series(1, 20000) AS i

statement ok
CREATE INDEX dd_a ON dd (a)

statement ok
CREATE INDEX dd_a_nodup ON dd (a) WITH (deduplicate_items = off)

statement ok
CREATE INDEX dd_b ON dd (b) WITH (deduplicate_items = OFF, fillfactor = 50)

statement ok
CREATE INDEX dd_x ON dd (a) WITH (deduplicate_items)

statement ok
CREATE INDEX dd_t ON dd (t)

query
SELECT relname, reloptions, pg_relation_size(oid) / 8192 AS pages FROM pg_class WHERE relname LIKE 'dd\_%' ORDER BY 1
----
dd_a|NULL|20
dd_a_nodup|{deduplicate_items=off}|57
dd_b|{deduplicate_items=off,fillfactor=50}|102
dd_t|NULL|19
dd_x|{deduplicate_items=true}|20

error 22023
CREATE INDEX dd_bad ON dd (a) WITH (deduplicate_items = maybe)

error 22023
CREATE INDEX dd_bad ON dd (a) WITH (deduplicate_items = 2)

error 22023
CREATE INDEX dd_bad ON dd (a) WITH (foo = 1)

error 22023
CREATE INDEX dd_bad ON dd (a) WITH (fillfactor = 5)

query
SELECT count(*), min(b), max(b) FROM dd WHERE a = 3
----
2000|3|19993

query
SELECT count(*) FROM dd WHERE a BETWEEN 2 AND 4
----
6000

query
SELECT count(*) FROM dd WHERE t = 'v5'
----
2857

# Non-HOT updates that leave a's key alone: new versions join the posting
# lists; every row is still found exactly once.
statement ok
UPDATE dd SET b = b + 100000 WHERE a = 3

query
SELECT count(*), min(b), max(b) FROM dd WHERE a = 3
----
2000|100003|119993

statement ok
DELETE FROM dd WHERE a = 4 AND b % 3 = 0

query
SELECT count(*) FROM dd WHERE a = 4
----
1334

statement ok
VACUUM dd

query
SELECT count(*) FROM dd WHERE a = 4
----
1334

# A unique index keeps versions of a key: the check sees through them.
statement ok
CREATE TABLE du (id int PRIMARY KEY, v int) USING heap

statement ok
INSERT INTO du SELECT i, 0 FROM generate_series(1, 3000) AS i

statement ok
UPDATE du SET v = v + 1

statement ok
UPDATE du SET v = v + 1

error 23505
INSERT INTO du VALUES (1234, 9)

query
SELECT count(*), sum(v) FROM du WHERE id BETWEEN 1000 AND 1999
----
1000|2000

statement ok
DROP TABLE dd, du
