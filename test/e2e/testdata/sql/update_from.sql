# UPDATE … FROM and DELETE … USING (joins in UPDATE and DELETE), WITH
# before them, multiple-column SET (a, b) = (…), and RETURNING over the
# joined rows. A target row joined to several source rows is changed once.
# Expected results are PostgreSQL 15's.

statement ok
CREATE TABLE uf (id int PRIMARY KEY, v text, n int)

statement ok
INSERT INTO uf VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0), (4, 'd', 0)

statement ok
CREATE TABLE src (id int, v text)

statement ok
INSERT INTO src VALUES (1, 'one'), (2, 'two'), (2, 'deux'), (5, 'five')

# Each matched target row is updated once, even when it joins two source
# rows (which one wins is unspecified, so only the count is checked).
query
UPDATE uf SET n = n + 1 FROM src WHERE uf.id = src.id RETURNING uf.id, uf.n
----
1|1
2|1

query
SELECT id, n FROM uf ORDER BY id
----
1|1
2|1
3|0
4|0

statement ok
UPDATE uf SET v = src.v FROM src WHERE uf.id = src.id AND src.id = 1

query
SELECT v FROM uf WHERE id = 1
----
one

# An alias for the target, several FROM items, a subquery and VALUES.
statement ok
UPDATE uf AS t SET v = s.v || '/' || x.w FROM src s, (VALUES (3, 'x'), (4, 'y')) AS x(id, w) WHERE t.id = x.id AND s.id = 5

query
SELECT id, v FROM uf WHERE id >= 3 ORDER BY id
----
3|five/x
4|five/y

query
UPDATE uf SET n = 10 FROM (SELECT id FROM src WHERE v LIKE 't%') AS q WHERE uf.id = q.id RETURNING *
----
2|b|10|2

# FROM with an explicit join.
query
UPDATE uf SET n = 20 FROM src a JOIN src b ON a.id = b.id AND a.v < b.v WHERE uf.id = a.id RETURNING uf.id, a.v, b.v
----
2|deux|two

# A target that names itself again without an alias is an error.
error 42712
UPDATE uf SET n = 0 FROM uf WHERE uf.id = 1

# A self-join with an alias works.
query
UPDATE uf SET n = o.n + 100 FROM uf o WHERE o.id = uf.id - 1 AND uf.id = 2 RETURNING uf.id, uf.n
----
2|101

# WITH before UPDATE.
query
WITH w AS (SELECT 4 AS id, 'with' AS v) UPDATE uf SET v = w.v FROM w WHERE uf.id = w.id RETURNING uf.id, uf.v
----
4|with

# Multiple-column assignment from a row and from a sub-SELECT.
statement ok
UPDATE uf SET (v, n) = ('row', n + 1) WHERE id = 1

query
SELECT v, n FROM uf WHERE id = 1
----
row|2

statement ok
UPDATE uf SET (n, v) = (SELECT count(*), max(v) FROM src WHERE src.id = uf.id) WHERE id IN (1, 2)

query
SELECT id, v, n FROM uf WHERE id IN (1, 2) ORDER BY id
----
1|one|1
2|two|2

# A sub-SELECT with no row sets the columns to NULL; more than one row is
# an error.
statement ok
UPDATE uf SET (v, n) = (SELECT v, 7 FROM src WHERE id = 99) WHERE id = 3

query
SELECT v IS NULL, n IS NULL FROM uf WHERE id = 3
----
t|t

error 21000
UPDATE uf SET (v, n) = (SELECT v, 1 FROM src) WHERE id = 3

error 42601
UPDATE uf SET (v, n) = ('x', 1), n = 2 WHERE id = 3

# DELETE … USING deletes each matched row once (the order of the rows
# RETURNING gives depends on where the updates above put them).
statement ok
DELETE FROM uf USING src WHERE uf.id = src.id

query
SELECT id FROM uf ORDER BY id
----
3
4

statement ok
INSERT INTO uf VALUES (1, 'a', 0), (2, 'b', 0)

statement ok
DELETE FROM uf u USING src s, (VALUES (2)) AS x(k) WHERE u.id = s.id AND s.id = x.k

query
SELECT id FROM uf ORDER BY id
----
1
3
4

query
WITH gone AS (SELECT 1 AS id) DELETE FROM uf USING gone WHERE uf.id = gone.id RETURNING uf.*, gone.id
----
1|a|0|1

# In a transaction, the updates of one statement are seen by the next.
statement ok
BEGIN

statement ok
UPDATE uf SET n = 1 FROM src WHERE src.id = 5 AND uf.id = 3

statement ok
UPDATE uf SET n = uf.n + o.n FROM uf o WHERE o.id = 3 AND uf.id = 4

statement ok
COMMIT

query
SELECT id, n FROM uf ORDER BY id
----
3|1
4|1

statement ok
DROP TABLE uf, src
