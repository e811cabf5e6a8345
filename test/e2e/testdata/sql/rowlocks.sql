# SELECT … FOR UPDATE | NO KEY UPDATE | SHARE | KEY SHARE [OF …]
# [NOWAIT | SKIP LOCKED] in one session: what is returned, what is
# refused (with PostgreSQL's messages' SQLSTATEs), and how a transaction's
# own locks combine with its own updates. Conflicts between sessions are
# in testdata/isolation/rowlock-conflicts.spec.

statement ok
CREATE TABLE rk (id int PRIMARY KEY, v text, n int)

statement ok
INSERT INTO rk VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)

statement ok
CREATE TABLE rk_child (id int PRIMARY KEY, pid int REFERENCES rk)

query
SELECT id, v FROM rk WHERE n > 15 ORDER BY id FOR UPDATE
----
2|b
3|c
4|d

query
SELECT id FROM rk ORDER BY id DESC FOR SHARE LIMIT 2
----
4
3

query
SELECT id FROM rk ORDER BY id FOR NO KEY UPDATE SKIP LOCKED LIMIT 1 OFFSET 1
----
2

query
SELECT a.id, b.v FROM rk a JOIN rk b ON b.id = a.id + 1 ORDER BY a.id FOR UPDATE OF a FOR KEY SHARE OF b NOWAIT
----
1|b
2|c
3|d

query
SELECT x.id FROM rk x, rk y WHERE x.id = y.id AND y.n = 30 FOR SHARE OF x, y
----
3

query
SELECT s.id FROM (SELECT id FROM rk WHERE id < 3) s ORDER BY 1 FOR UPDATE
----
1
2

query
SELECT id FROM rk WHERE id = (SELECT max(id) FROM rk) FOR KEY SHARE
----
4

query
SELECT id FROM rk WHERE id IN (SELECT id FROM rk WHERE n < 25 FOR UPDATE) ORDER BY id
----
1
2

query
SELECT a.id, b.id FROM rk a LEFT JOIN rk b ON b.id = a.id + 3 ORDER BY a.id FOR UPDATE OF a
----
1|4
2|NULL
3|NULL
4|NULL

query
WITH w AS (SELECT id FROM rk WHERE id = 2 FOR UPDATE) SELECT * FROM w
----
2

query
SELECT 1 FOR UPDATE
----
1

query
SELECT ctid, id, xmin = xmin FROM rk WHERE id = 1 FOR UPDATE
----
(0,1)|1|t

query
SELECT g FROM generate_series(1, 2) g, rk WHERE rk.id = g ORDER BY g FOR UPDATE
----
1
2

error 0A000
SELECT count(*) FROM rk FOR UPDATE

error 0A000
SELECT n, count(*) FROM rk GROUP BY n FOR SHARE

error 0A000
SELECT DISTINCT v FROM rk FOR KEY SHARE

error 0A000
SELECT 1 FROM rk HAVING true FOR UPDATE

error 0A000
SELECT id FROM rk UNION SELECT id FROM rk FOR UPDATE

error 0A000
VALUES (1) FOR UPDATE

query
SELECT * FROM (VALUES (1)) v(x) FOR UPDATE OF v
----
1

error 0A000
SELECT a.id FROM rk a LEFT JOIN rk b ON true FOR UPDATE

error 0A000
SELECT a.id FROM rk a LEFT JOIN rk b ON true FOR UPDATE OF b

error 42P01
SELECT id FROM rk FOR UPDATE OF nosuch

error 42601
SELECT id FROM rk FOR UPDATE OF public.rk

error 0A000
WITH w AS (SELECT id FROM rk) SELECT * FROM w FOR UPDATE OF w

error 0A000
SELECT * FROM generate_series(1, 2) g FOR UPDATE OF g

error 0A000
SELECT * FROM (rk JOIN rk_child c ON c.pid = rk.id) AS j FOR UPDATE OF j

error 0A000
SELECT generate_series(1, 2) FOR UPDATE

# A transaction's own locks: taken again, upgraded, then its own update
# and delete of the locked rows.
statement ok
BEGIN

query
SELECT id FROM rk WHERE id = 1 FOR KEY SHARE
----
1

query
SELECT id FROM rk WHERE id = 1 FOR UPDATE NOWAIT
----
1

query
SELECT id FROM rk WHERE id = 1 FOR SHARE SKIP LOCKED
----
1

statement ok
UPDATE rk SET v = 'A' WHERE id = 1

query
SELECT id, v FROM rk WHERE id = 1 FOR UPDATE
----
1|A

statement ok
DELETE FROM rk WHERE id = 4

query
SELECT id FROM rk ORDER BY id FOR UPDATE
----
1
2
3

statement ok
ROLLBACK

query
SELECT id, v FROM rk ORDER BY id FOR SHARE
----
1|a
2|b
3|c
4|d

# A FOR UPDATE cursor locks the rows as it fetches them; WHERE CURRENT OF
# changes the locked row. FOR UPDATE cursors cannot scroll or be held.
statement ok
BEGIN

statement ok
DECLARE c CURSOR FOR SELECT id, v FROM rk WHERE id <= 3 ORDER BY id FOR UPDATE

query
FETCH 1 FROM c
----
1|a

statement ok
UPDATE rk SET v = 'cur' WHERE CURRENT OF c

query
FETCH 1 FROM c
----
2|b

statement ok
DELETE FROM rk WHERE CURRENT OF c

query
SELECT id, v FROM rk ORDER BY id
----
1|cur
3|c
4|d

error 55000
FETCH BACKWARD 1 FROM c

statement ok
ROLLBACK

error 0A000
DECLARE h CURSOR WITH HOLD FOR SELECT id FROM rk FOR UPDATE

# Foreign keys lock the referenced row FOR KEY SHARE: our own key-share
# lock does not stop our own update of a non-key column, and the row's
# key is still protected by the constraint.
statement ok
BEGIN

statement ok
INSERT INTO rk_child VALUES (1, 2)

statement ok
UPDATE rk SET v = 'B' WHERE id = 2

query
SELECT id FROM rk WHERE id = 2 FOR NO KEY UPDATE NOWAIT
----
2

error 23503
DELETE FROM rk WHERE id = 2

statement ok
ROLLBACK

query
SELECT count(*) FROM rk_child
----
0

statement ok
DROP TABLE rk_child

statement ok
DROP TABLE rk
