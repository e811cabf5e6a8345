# SQL cursors: DECLARE, FETCH and MOVE in every direction, WITH HOLD,
# CLOSE, pg_cursors, WHERE CURRENT OF. Expected output is PostgreSQL 15's
# (checked with TIDAL_SQLTEST_PG).

statement ok
CREATE TABLE cur_t (a int, b text)

statement ok
INSERT INTO cur_t SELECT i, 'r' || i FROM generate_series(1, 10) i

# A cursor outside a transaction block has nothing to live in.
error 25P01
DECLARE c CURSOR FOR SELECT * FROM cur_t

error 34000
FETCH c

error 34000
CLOSE c

statement ok
BEGIN

statement ok
DECLARE c SCROLL CURSOR FOR SELECT a, b FROM cur_t ORDER BY a

query
FETCH 3 FROM c
----
1|r1
2|r2
3|r3

query
FETCH NEXT FROM c
----
4|r4

query
FETCH PRIOR FROM c
----
3|r3

query
FETCH FIRST FROM c
----
1|r1

query
FETCH LAST FROM c
----
10|r10

query
FETCH ABSOLUTE 5 FROM c
----
5|r5

query
FETCH ABSOLUTE -2 FROM c
----
9|r9

query
FETCH RELATIVE -3 FROM c
----
6|r6

query
FETCH RELATIVE 0 FROM c
----
6|r6

query
FETCH 0 FROM c
----
6|r6

query
FETCH FORWARD 2 FROM c
----
7|r7
8|r8

query
FETCH BACKWARD 2 FROM c
----
7|r7
6|r6

query
FETCH -1 FROM c
----
5|r5

query
FETCH FORWARD ALL FROM c
----
6|r6
7|r7
8|r8
9|r9
10|r10

# Past the end: nothing, and FETCH 0 has no current row.
query
FETCH NEXT FROM c
----

query
FETCH 0 FROM c
----

query
FETCH BACKWARD 1 FROM c
----
10|r10

statement ok
MOVE BACKWARD ALL IN c

query
FETCH 2 IN c
----
1|r1
2|r2

statement ok
MOVE 5 IN c

query
FETCH c
----
8|r8

query
FETCH ABSOLUTE 0 FROM c
----

query
FETCH RELATIVE 2 FROM c
----
2|r2

query
FETCH ALL FROM c
----
3|r3
4|r4
5|r5
6|r6
7|r7
8|r8
9|r9
10|r10

query
FETCH BACKWARD ALL FROM c
----
10|r10
9|r9
8|r8
7|r7
6|r6
5|r5
4|r4
3|r3
2|r2
1|r1

# Cursors and their options in pg_cursors.
statement ok
DECLARE d NO SCROLL CURSOR FOR SELECT 1

statement ok
DECLARE e CURSOR FOR SELECT * FROM cur_t

statement ok
DECLARE f CURSOR FOR SELECT 1

statement ok
DECLARE g BINARY CURSOR WITH HOLD FOR SELECT b FROM cur_t WHERE a = 1

query
SELECT name, statement, is_holdable, is_binary, is_scrollable FROM pg_cursors ORDER BY name
----
c|DECLARE c SCROLL CURSOR FOR SELECT a, b FROM cur_t ORDER BY a|f|f|t
d|DECLARE d NO SCROLL CURSOR FOR SELECT 1|f|f|f
e|DECLARE e CURSOR FOR SELECT * FROM cur_t|f|f|t
f|DECLARE f CURSOR FOR SELECT 1|f|f|f
g|DECLARE g BINARY CURSOR WITH HOLD FOR SELECT b FROM cur_t WHERE a = 1|t|t|t

error 42P03
DECLARE c CURSOR FOR SELECT 2

statement ok
ROLLBACK

# ROLLBACK closed them all, the WITH HOLD one included.
query
SELECT count(*) FROM pg_cursors
----
0

# NO SCROLL refuses to go back, and the error aborts the block.
statement ok
BEGIN

statement ok
DECLARE n NO SCROLL CURSOR FOR SELECT a FROM cur_t ORDER BY a

query
FETCH 2 FROM n
----
1
2

query
FETCH ABSOLUTE 3 FROM n
----
3

error 55000
FETCH ABSOLUTE 1 FROM n

error 25P02
FETCH n

statement ok
ROLLBACK

# A cursor sees the data as of its DECLARE, its own transaction's later
# changes included.
statement ok
BEGIN

statement ok
DECLARE s CURSOR FOR SELECT a FROM cur_t WHERE a > 8 ORDER BY a

statement ok
INSERT INTO cur_t VALUES (11, 'r11')

statement ok
DELETE FROM cur_t WHERE a = 10

query
FETCH ALL FROM s
----
9
10

statement ok
ROLLBACK

# WITH HOLD cursors outlive COMMIT, with their position.
statement ok
BEGIN

statement ok
DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT a FROM cur_t ORDER BY a

query
FETCH 2 FROM h
----
1
2

statement ok
COMMIT

statement ok
DELETE FROM cur_t WHERE a < 5

query
FETCH h
----
3

query
FETCH BACKWARD 2 FROM h
----
2
1

query
FETCH LAST FROM h
----
10

query
SELECT name, is_holdable FROM pg_cursors
----
h|t

# A held cursor survives a later ROLLBACK.
statement ok
BEGIN

query
FETCH PRIOR FROM h
----
9

statement ok
ROLLBACK

query
FETCH PRIOR FROM h
----
8

statement ok
CLOSE h

error 34000
FETCH h

# WITH HOLD outside a block: its implicit transaction commits at once.
statement ok
DECLARE w CURSOR WITH HOLD FOR SELECT a FROM cur_t ORDER BY a

query
FETCH 2 FROM w
----
5
6

# A held cursor is not positioned on a row of any transaction.
error 24000
DELETE FROM cur_t WHERE CURRENT OF w

statement ok
CLOSE ALL

query
SELECT count(*) FROM pg_cursors
----
0

# WHERE CURRENT OF acts on the row the cursor is on, in its newest version.
statement ok
BEGIN

statement ok
DECLARE u CURSOR FOR SELECT a, b FROM cur_t WHERE a >= 5

error 24000
UPDATE cur_t SET b = 'x' WHERE CURRENT OF u

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
DECLARE u CURSOR FOR SELECT a, b FROM cur_t WHERE a >= 5

query
FETCH 2 FROM u
----
5|r5
6|r6

statement ok
UPDATE cur_t SET b = 'six' WHERE CURRENT OF u

statement ok
UPDATE cur_t SET a = a * 10 WHERE CURRENT OF u

query
SELECT a, b FROM cur_t WHERE b = 'six'
----
60|six

# The cursor does not see its own updates.
query
FETCH RELATIVE 0 FROM u
----
6|r6

query
DELETE FROM cur_t WHERE CURRENT OF u RETURNING a, b
----
60|six

query
DELETE FROM cur_t WHERE CURRENT OF u RETURNING a, b
----

query
FETCH u
----
7|r7

query
DELETE FROM cur_t WHERE CURRENT OF u RETURNING a
----
7

statement ok
COMMIT

error 34000
DELETE FROM cur_t WHERE CURRENT OF nosuch

query
SELECT a FROM cur_t ORDER BY a
----
5
8
9
10

# A cursor on a join, an aggregate or another table is not an updatable
# scan of the table.
statement ok
CREATE TABLE cur_u (a int)

statement ok
BEGIN

statement ok
DECLARE j CURSOR FOR SELECT * FROM cur_t JOIN cur_u USING (a)

error 24000
DELETE FROM cur_t WHERE CURRENT OF j

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
DECLARE k CURSOR FOR SELECT a, count(*) FROM cur_t GROUP BY a

error 24000
DELETE FROM cur_t WHERE CURRENT OF k

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
DECLARE k CURSOR FOR SELECT * FROM cur_u

error 24000
DELETE FROM cur_t WHERE CURRENT OF k

statement ok
ROLLBACK

# Several statements in one message form a transaction block.
query
DECLARE m CURSOR FOR SELECT 7; FETCH m
----
7

query
SELECT count(*) FROM pg_cursors
----
0

# DECLARE options that contradict each other.
statement ok
BEGIN

error 42P11
DECLARE x SCROLL NO SCROLL CURSOR FOR SELECT 1

statement ok
ROLLBACK

# A cursor's query runs at FETCH, not at DECLARE.
statement ok
BEGIN

statement ok
DECLARE z CURSOR FOR SELECT 1 / (g - 3) FROM generate_series(1, 5) g ORDER BY 1

statement ok
DECLARE y CURSOR FOR SELECT sum(1 / (g - 3)) FROM generate_series(1, 5) g

error 22012
FETCH z

statement ok
ROLLBACK
