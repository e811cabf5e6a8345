# INSERT … ON CONFLICT (PostgreSQL 15 semantics): conflict targets by column
# list, by constraint name or none; DO NOTHING; DO UPDATE with EXCLUDED, the
# target's alias, WHERE and RETURNING; the errors.

statement ok
CREATE TABLE upsert_kv (k int PRIMARY KEY, v text, n int NOT NULL DEFAULT 0)

statement ok
CREATE TABLE upsert_two (a int, b int, c text, UNIQUE (a, b))

statement ok
CREATE UNIQUE INDEX upsert_two_c ON upsert_two (c)

query
INSERT INTO upsert_kv VALUES (1, 'one'), (2, 'two') ON CONFLICT DO NOTHING RETURNING k, v
----
1|one
2|two

query
INSERT INTO upsert_kv VALUES (1, 'uno'), (3, 'three') ON CONFLICT DO NOTHING RETURNING k, v
----
3|three

query
INSERT INTO upsert_kv VALUES (2, 'dos') ON CONFLICT (k) DO NOTHING RETURNING k
----

query
INSERT INTO upsert_kv VALUES (2, 'dos') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = upsert_kv.n + 1 RETURNING *
----
2|dos|1

query
INSERT INTO upsert_kv AS t VALUES (2, 'zwei'), (4, 'vier') ON CONFLICT (k) DO UPDATE SET v = t.v || '/' || excluded.v, n = t.n + 1 RETURNING t.k, t.v, t.n
----
2|dos/zwei|2
4|vier|0

query
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT ON CONSTRAINT upsert_kv_pkey DO UPDATE SET n = 10 RETURNING k, v, n
----
1|one|10

# The WHERE of DO UPDATE: a row that fails it is neither updated nor returned.
query
INSERT INTO upsert_kv AS t VALUES (1, 'w'), (3, 'w') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE t.n >= 10 RETURNING k, v
----
1|w

query
SELECT k, v, n FROM upsert_kv ORDER BY k
----
1|w|10
2|dos/zwei|2
3|three|0
4|vier|0

# Rows proposed twice in one statement: DO NOTHING keeps the first,
# DO UPDATE refuses.
query
INSERT INTO upsert_kv VALUES (5, 'a'), (5, 'b') ON CONFLICT DO NOTHING RETURNING k, v
----
5|a

error 21000
INSERT INTO upsert_kv VALUES (6, 'a'), (6, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v

query
SELECT count(*) FROM upsert_kv WHERE k = 6
----
0

# A column-list target is matched against unique indexes as a set.
query
INSERT INTO upsert_two VALUES (1, 2, 'x') ON CONFLICT (b, a) DO UPDATE SET c = excluded.c RETURNING *
----
1|2|x

query
INSERT INTO upsert_two VALUES (1, 2, 'y') ON CONFLICT (a, b) DO UPDATE SET c = excluded.c RETURNING *
----
1|2|y

query
INSERT INTO upsert_two VALUES (7, 8, 'y') ON CONFLICT (c) DO UPDATE SET a = excluded.a, b = excluded.b RETURNING *
----
7|8|y

query
INSERT INTO upsert_two VALUES (7, 8, 'z') ON CONFLICT ON CONSTRAINT upsert_two_a_b_key DO NOTHING RETURNING *
----

# NULLs never conflict.
query
INSERT INTO upsert_two VALUES (NULL, 1, 'n1'), (NULL, 1, 'n2') ON CONFLICT (a, b) DO NOTHING RETURNING c
----
n1
n2

# A conflict in a unique index that is not an arbiter is an error.
error 23505
INSERT INTO upsert_two VALUES (9, 9, 'y') ON CONFLICT (a, b) DO NOTHING

# DO NOTHING without a target handles every unique index.
query
INSERT INTO upsert_two VALUES (9, 9, 'y') ON CONFLICT DO NOTHING RETURNING *
----

# No unique index matches; not a constraint; DO UPDATE needs a target;
# unknown columns; EXCLUDED and the table both have the column; the
# table's name is hidden by its alias.
error 42P10
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (v) DO NOTHING

error 42P10
INSERT INTO upsert_two VALUES (1, 2, 'x') ON CONFLICT (a) DO NOTHING

error 42704
INSERT INTO upsert_two VALUES (1, 2, 'x') ON CONFLICT ON CONSTRAINT upsert_two_c DO NOTHING

error 42704
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT ON CONSTRAINT no_such DO NOTHING

error 42601
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT DO UPDATE SET v = 'y'

error 42703
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (nope) DO NOTHING

error 42703
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET nope = 1

error 42703
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.nope

error 42702
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = v

error 42P01
INSERT INTO upsert_kv AS t VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = upsert_kv.v

# The updated row must satisfy NOT NULL and the unique indexes.
error 23502
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET n = NULL

error 23505
INSERT INTO upsert_kv VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET k = 2

# INSERT … SELECT with upsert.
query
INSERT INTO upsert_kv SELECT g, 'g' || g FROM generate_series(3, 8) g ON CONFLICT (k) DO UPDATE SET n = upsert_kv.n + 100 WHERE upsert_kv.k < 5 RETURNING k, v, n
----
3|three|100
4|vier|100
6|g6|0
7|g7|0
8|g8|0

# In a transaction: a row inserted by an earlier command may be upserted.
statement ok
BEGIN

statement ok
INSERT INTO upsert_kv VALUES (20, 'a')

query
INSERT INTO upsert_kv VALUES (20, 'b') ON CONFLICT (k) DO UPDATE SET v = upsert_kv.v || excluded.v RETURNING k, v
----
20|ab

query
INSERT INTO upsert_kv VALUES (20, 'c') ON CONFLICT (k) DO UPDATE SET v = upsert_kv.v || excluded.v RETURNING k, v
----
20|abc

statement ok
ROLLBACK

query
SELECT count(*) FROM upsert_kv WHERE k = 20
----
0

query
SELECT k, v, n FROM upsert_kv ORDER BY k
----
1|w|10
2|dos/zwei|2
3|three|100
4|vier|100
5|a|0
6|g6|0
7|g7|0
8|g8|0

# EXPLAIN shows the conflict resolution, the arbiter indexes and the filter.
query
EXPLAIN (COSTS OFF) INSERT INTO upsert_kv SELECT 1, 'a' ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE upsert_kv.v <> 'z'
----
Insert on upsert_kv
  Conflict Resolution: UPDATE
  Conflict Arbiter Indexes: upsert_kv_pkey
  Conflict Filter: (upsert_kv.v <> 'z'::text)
  ->  Result

query
EXPLAIN (COSTS OFF) INSERT INTO upsert_two AS t SELECT g, g, 'x' FROM generate_series(1, 3) g ON CONFLICT (a, b) DO UPDATE SET c = t.c || excluded.c
----
Insert on upsert_two t
  Conflict Resolution: UPDATE
  Conflict Arbiter Indexes: upsert_two_a_b_key
  ->  Function Scan on generate_series g

query
EXPLAIN (COSTS OFF) INSERT INTO upsert_two SELECT 1, 1, 'x' ON CONFLICT DO NOTHING
----
Insert on upsert_two
  Conflict Resolution: NOTHING
  ->  Result
