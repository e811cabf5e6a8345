# UPDATEs that change indexed columns, read back through the indexes:
# unique and non-unique, multi-column and NULL keys, keys swapped within
# one statement, changed back to an earlier value, rolled back (also to a
# savepoint), re-used by later inserts, ON CONFLICT on a changed key,
# foreign keys to a changed key, and VACUUM in between. On an undo table
# (TIDAL_TEST_TABLE_AM=undo) these updates stay in place and delete-mark
# the old keys' entries; the results must be heap's (PostgreSQL 15's).

statement ok
CREATE TABLE ku (id int PRIMARY KEY, k int, a int, b text, note text)

statement ok
CREATE INDEX ku_k ON ku (k)

statement ok
CREATE UNIQUE INDEX ku_ab ON ku (a, b)

statement ok
INSERT INTO ku SELECT i, i % 10, i, 'b' || i, 'n' || i FROM generate_series(1, 200) i

query
UPDATE ku SET k = k + 100 WHERE id <= 20 RETURNING id, k
----
1|101
2|102
3|103
4|104
5|105
6|106
7|107
8|108
9|109
10|100
11|101
12|102
13|103
14|104
15|105
16|106
17|107
18|108
19|109
20|100

query
SELECT count(*) FROM ku WHERE k = 1
----
18

query
SELECT id FROM ku WHERE k = 101 ORDER BY id
----
1
11

query
SELECT count(*) FROM ku WHERE k BETWEEN 0 AND 9
----
180

# The primary key changes: the old ids are free again, the new ones taken.
statement ok
UPDATE ku SET id = id + 1000 WHERE id BETWEEN 1 AND 5

query
SELECT id, k FROM ku WHERE id IN (1, 2, 1001, 1005) ORDER BY id
----
1001|101
1005|105

statement ok
INSERT INTO ku VALUES (1, 1, -1, 'x', 'reused id')

error 23505
INSERT INTO ku VALUES (1001, 1, -2, 'y', 'taken')

query
SELECT id, note FROM ku WHERE id = 1
----
1|reused id

# Back to the key it had before.
statement ok
UPDATE ku SET id = id - 1000 WHERE id = 1002

query
SELECT id, k FROM ku WHERE id = 2
----
2|102

query
SELECT count(*) FROM ku WHERE id = 1002
----
0

# Two rows cannot swap keys of a (non-deferrable) unique index in one
# statement; a key that is free can be taken.
error 23505
UPDATE ku SET a = CASE a WHEN 100 THEN 101 ELSE 100 END, b = CASE b WHEN 'b100' THEN 'b101' ELSE 'b100' END WHERE id IN (100, 101)

statement ok
UPDATE ku SET a = 100, b = 'b101' WHERE id = 102

query
SELECT id, a, b FROM ku WHERE (a, b) IN ((100, 'b101'), (101, 'b100'), (100, 'b100')) ORDER BY id
----
100|100|b100
102|100|b101

# NULL keys.
statement ok
UPDATE ku SET k = NULL WHERE id BETWEEN 30 AND 34

query
SELECT count(*) FROM ku WHERE k IS NULL
----
5

query
SELECT id FROM ku WHERE k = 0 AND id BETWEEN 25 AND 45 ORDER BY id
----
40

statement ok
UPDATE ku SET k = 7 WHERE id = 30

query
SELECT id FROM ku WHERE k = 7 AND id < 50 ORDER BY id
----
27
30
37
47

# Rolled back: the old keys find the rows, the new ones do not.
statement ok
BEGIN

statement ok
UPDATE ku SET k = 555, id = id + 5000 WHERE id BETWEEN 50 AND 59

query
SELECT count(*) FROM ku WHERE k = 555
----
10

statement ok
ROLLBACK

query
SELECT count(*) FROM ku WHERE k = 555
----
0

query
SELECT count(*) FROM ku WHERE id BETWEEN 5050 AND 5059
----
0

query
SELECT id, k FROM ku WHERE id BETWEEN 50 AND 53 ORDER BY id
----
50|0
51|1
52|2
53|3

statement ok
INSERT INTO ku VALUES (5050, 555, -3, 'z', 'after rollback')

query
SELECT id FROM ku WHERE k = 555
----
5050

# ROLLBACK TO SAVEPOINT keeps the changes before it.
statement ok
BEGIN

statement ok
UPDATE ku SET k = 600 WHERE id = 60

statement ok
SAVEPOINT s

statement ok
UPDATE ku SET k = 601 WHERE id IN (60, 61)

statement ok
UPDATE ku SET id = 6100 WHERE id = 61

statement ok
ROLLBACK TO s

query
SELECT id, k FROM ku WHERE k IN (600, 601) OR id IN (60, 61, 6100) ORDER BY id
----
60|600
61|1

statement ok
COMMIT

query
SELECT id FROM ku WHERE k = 0 AND id BETWEEN 55 AND 75 ORDER BY id
----
70

# A failed statement rolls its key changes back.
error 23505
UPDATE ku SET id = 200 WHERE id BETWEEN 195 AND 199

query
SELECT count(*) FROM ku WHERE id BETWEEN 195 AND 200
----
6

# ON CONFLICT on a key a row left, and on one it took.
query
INSERT INTO ku VALUES (3, 3, -4, 'w', 'new 3') ON CONFLICT (id) DO UPDATE SET note = 'upd' RETURNING id, note
----
3|new 3

query
INSERT INTO ku VALUES (1003, 3, -5, 'v', 'x') ON CONFLICT (id) DO UPDATE SET note = 'upd ' || ku.note RETURNING id, note
----
1003|upd n3

# Foreign keys follow the referenced key as it changes.
statement ok
CREATE TABLE ku_child (c int PRIMARY KEY, pid int REFERENCES ku (id) ON UPDATE CASCADE)

statement ok
INSERT INTO ku_child VALUES (1, 150), (2, 151)

statement ok
UPDATE ku SET id = 1150 WHERE id = 150

query
SELECT c, pid FROM ku_child ORDER BY c
----
1|1150
2|151

error 23503
INSERT INTO ku_child VALUES (3, 150)

statement ok
INSERT INTO ku_child VALUES (3, 1150)

# VACUUM between changes: the indexes keep finding what they should.
statement ok
VACUUM ku

query
SELECT count(*) FROM ku WHERE k = 101
----
2

statement ok
UPDATE ku SET k = k - 100 WHERE k >= 100 AND k < 200

statement ok
VACUUM ku

query
SELECT k, count(*) FROM ku WHERE k BETWEEN 0 AND 9 GROUP BY k ORDER BY k
----
0|18
1|20
2|19
3|20
4|19
5|20
6|20
7|21
8|20
9|20

query
SELECT count(*), sum(id) FROM ku WHERE id >= 0
----
203|30154
