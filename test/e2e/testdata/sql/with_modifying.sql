# Data-modifying statements in WITH: each runs once and to completion,
# none sees the others' changes, an unread one runs after the main query.

statement ok
CREATE TABLE dm_a (id int PRIMARY KEY, v text)

statement ok
CREATE TABLE dm_b (id int, v text)

statement ok
INSERT INTO dm_a SELECT g, 'v' || g FROM generate_series(1, 10) g

statement ok
WITH moved AS (DELETE FROM dm_a WHERE id <= 3 RETURNING *) INSERT INTO dm_b SELECT * FROM moved

query
SELECT id FROM dm_a ORDER BY id
----
4
5
6
7
8
9
10

query
SELECT * FROM dm_b ORDER BY id
----
1|v1
2|v2
3|v3

query
WITH ins AS (INSERT INTO dm_b VALUES (100, 'x'), (101, 'y') RETURNING id) SELECT count(*), sum(id) FROM ins
----
2|201

query
WITH ins AS (INSERT INTO dm_b VALUES (200, 'z')) SELECT 1
----
1

query
SELECT count(*) FROM dm_b WHERE id = 200
----
1

query
WITH upd AS (UPDATE dm_a SET v = v || '!' WHERE id > 8 RETURNING id, v) SELECT * FROM upd ORDER BY id
----
9|v9!
10|v10!

query
WITH d AS (DELETE FROM dm_b WHERE id >= 100 RETURNING id) SELECT (SELECT count(*) FROM dm_b) AS visible_before, (SELECT count(*) FROM d) AS deleted
----
6|3

query
SELECT count(*) FROM dm_b
----
3

query
WITH i AS (INSERT INTO dm_a VALUES (50, 'fifty') RETURNING *) SELECT * FROM dm_a WHERE id = 50
----

query
SELECT * FROM dm_a WHERE id = 50
----
50|fifty

error 0A000
WITH x AS (INSERT INTO dm_b VALUES (1, 'a')) SELECT * FROM x

error 0A000
SELECT * FROM (WITH x AS (INSERT INTO dm_b VALUES (1, 'a') RETURNING *) SELECT * FROM x) s

error 42P10
WITH x(a, b, c) AS (DELETE FROM dm_b RETURNING id, v) SELECT * FROM x

query
WITH a AS (UPDATE dm_a SET v = 'A' WHERE id = 4 RETURNING *), b AS (DELETE FROM dm_b WHERE id = 1 RETURNING *) SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b)
----
1|1

query
WITH t AS (UPDATE dm_a SET v = 'T' WHERE id = 5 RETURNING id) UPDATE dm_b SET v = 'from t' FROM t WHERE dm_b.id = t.id - 3 RETURNING dm_b.*
----
2|from t

statement ok
BEGIN

query
WITH d AS (DELETE FROM dm_a RETURNING *) SELECT count(*) FROM d
----
8

statement ok
ROLLBACK

query
SELECT count(*) FROM dm_a
----
8

query
WITH d AS (DELETE FROM dm_a WHERE id = 6 RETURNING *) SELECT * FROM d LIMIT 0
----

query
SELECT count(*) FROM dm_a WHERE id = 6
----
0

query
WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3), ins AS (INSERT INTO dm_b SELECT n, 'r' FROM r RETURNING *) SELECT count(*) FROM ins
----
3

query
WITH d AS (DELETE FROM dm_a WHERE id = 7 RETURNING *) DELETE FROM dm_a WHERE id = 7 RETURNING *
----
7|v7

query
SELECT count(*) FROM dm_a WHERE id = 7
----
0

query
WITH d AS (DELETE FROM dm_a WHERE id = 8 RETURNING id), e AS (SELECT id FROM d) SELECT (SELECT count(*) FROM e), (SELECT count(*) FROM e)
----
1|1

error 42P10
WITH x(n, b) AS (SELECT 1) SELECT * FROM x
