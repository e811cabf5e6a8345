# Cursors and LISTEN in subtransactions: a rolled-back savepoint drops the
# cursors declared in it, a released one hands them to its parent, and a
# cursor whose FETCH failed cannot run again. Expected output is
# PostgreSQL 15's (checked with TIDAL_SQLTEST_PG).

statement ok
BEGIN

statement ok
DECLARE a CURSOR FOR SELECT g FROM generate_series(1, 5) g

query
FETCH a
----
1

statement ok
SAVEPOINT s1

statement ok
DECLARE b CURSOR FOR SELECT 1

query
FETCH 2 FROM a
----
2
3

statement ok
ROLLBACK TO s1

error 34000
FETCH b

statement ok
ROLLBACK TO s1

# The cursor's position is not part of the rolled-back state.
query
FETCH a
----
4

statement ok
DECLARE c CURSOR FOR SELECT 10 / (3 - g) FROM generate_series(1, 5) g

statement ok
SAVEPOINT s2

query
FETCH 2 FROM c
----
5
10

error 22012
FETCH c

statement ok
ROLLBACK TO s2

error 55000
FETCH c

statement ok
ROLLBACK TO s2

query
SELECT name FROM pg_cursors ORDER BY 1
----
a
c

statement ok
SAVEPOINT s3

statement ok
DECLARE d CURSOR FOR SELECT 4

statement ok
RELEASE s3

query
SELECT name FROM pg_cursors ORDER BY 1
----
a
c
d

statement ok
SAVEPOINT s4

statement ok
DECLARE e CURSOR FOR SELECT 5

statement ok
RELEASE s4

# d and e belong to s2 now: rolling it back drops them.
statement ok
ROLLBACK TO s2

query
SELECT name FROM pg_cursors ORDER BY 1
----
a
c

statement ok
SAVEPOINT s5

statement ok
LISTEN sp_x

statement ok
ROLLBACK TO s5

statement ok
SAVEPOINT s6

statement ok
LISTEN sp_y

statement ok
RELEASE s6

statement ok
COMMIT

query
SELECT * FROM pg_listening_channels()
----
sp_y

statement ok
UNLISTEN *

# A WITH HOLD cursor declared in a released savepoint is held at COMMIT.
statement ok
BEGIN

statement ok
SAVEPOINT h

statement ok
DECLARE held CURSOR WITH HOLD FOR SELECT g FROM generate_series(1, 3) g

statement ok
RELEASE h

statement ok
COMMIT

query
FETCH ALL FROM held
----
1
2
3

statement ok
CLOSE held
