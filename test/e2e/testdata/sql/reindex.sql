# REINDEX rebuilds indexes from the table into new files: a bloated index
# shrinks, answers stay the same, ROLLBACK keeps the old index; and
# PostgreSQL 15's notices and errors.

statement ok
CREATE TABLE ri (a int PRIMARY KEY, b int)

statement ok
CREATE INDEX ri_b ON ri (b)

statement ok
INSERT INTO ri SELECT g, g % 100 FROM generate_series(1, 20000) g

statement ok
DELETE FROM ri WHERE a > 200

statement ok
VACUUM ri

statement ok
CREATE TABLE ri_size AS SELECT pg_relation_size('ri_b') AS b, pg_relation_size('ri_pkey') AS pk, pg_relation_filenode('ri_b') AS node

statement ok
REINDEX INDEX ri_b

query
SELECT pg_relation_size('ri_b') < b, pg_relation_size('ri_pkey') = pk, pg_relation_filenode('ri_b') <> node FROM ri_size
----
t|t|t

statement ok
REINDEX TABLE ri

query
SELECT pg_relation_size('ri_b') < b, pg_relation_size('ri_pkey') < pk FROM ri_size
----
t|t

statement ok
SET enable_seqscan = off

query
SELECT count(*) FROM ri WHERE b = 5
----
2

query
SELECT b FROM ri WHERE a = 150
----
50

statement ok
RESET enable_seqscan

statement ok
CREATE TABLE ri_node AS SELECT pg_relation_filenode('ri_b') AS node

statement ok
BEGIN

statement ok
REINDEX TABLE ri

statement ok
ROLLBACK

query
SELECT pg_relation_filenode('ri_b') = node FROM ri_node
----
t

error 23505
INSERT INTO ri VALUES (1, 1)

statement ok
REINDEX TABLE CONCURRENTLY ri

statement ok
REINDEX (VERBOSE) INDEX ri_pkey

statement ok
REINDEX SCHEMA public

statement ok
REINDEX DATABASE postgres

statement ok
CREATE TABLE ri_none (a int)

statement ok
REINDEX TABLE ri_none

statement ok
BEGIN

error 25001
REINDEX TABLE CONCURRENTLY ri

statement ok
ROLLBACK

statement ok
BEGIN

error 25001
REINDEX SCHEMA public

statement ok
ROLLBACK

error 42809
REINDEX INDEX ri

error 42809
REINDEX TABLE ri_b

error 42P01
REINDEX TABLE ri_nosuch

error 3F000
REINDEX SCHEMA ri_nosuch

error 0A000
REINDEX DATABASE ri_other

statement ok
DROP TABLE ri, ri_size, ri_node, ri_none
