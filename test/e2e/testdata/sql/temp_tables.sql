# Temporary tables, sequences and indexes: the session's pg_temp schema
# found first by unqualified names, masking a permanent table of the same
# name; pg_temp.name; relpersistence; ON COMMIT PRESERVE ROWS, DELETE ROWS
# and DROP; transactional creation (rolled back with the transaction or a
# savepoint); writes allowed in a read-only transaction; DISCARD TEMP; the
# errors of misuse. Expected results are PostgreSQL 15's.

statement ok
CREATE TABLE tt_mask (a int)

statement ok
INSERT INTO tt_mask VALUES (1)

statement ok
CREATE INDEX tt_mask_idx ON tt_mask (a)

statement ok
CREATE TEMP TABLE tt_mask (t float8)

statement ok
INSERT INTO tt_mask VALUES (2.5)

# The temporary table masks the permanent one; qualified, both are there.
query
SELECT * FROM tt_mask
----
2.5

query
SELECT * FROM pg_temp.tt_mask
----
2.5

query
SELECT count(*) FROM pg_class WHERE relname = 'tt_mask'
----
2

query
SELECT relpersistence, relnamespace = pg_my_temp_schema(), pg_is_other_temp_schema(relnamespace) FROM pg_class WHERE relname = 'tt_mask' ORDER BY relpersistence
----
p|f|f
t|t|f

query
SELECT nspname LIKE 'pg_temp_%' FROM pg_namespace WHERE oid = pg_my_temp_schema()
----
t

# The temporary schema leads the search path.
query
SELECT (current_schemas(true))[1] = (SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()), (current_schemas(true))[2]
----
t|pg_catalog

# tableoid::regclass names the temporary table without its schema: it is
# the one an unqualified name finds.
query
SELECT tableoid::regclass, t FROM tt_mask
----
tt_mask|2.5

# An index of the same name as a permanent one: names are per schema.
statement ok
CREATE INDEX tt_mask_idx ON tt_mask (t)

query
SELECT relname, relpersistence FROM pg_class WHERE relname = 'tt_mask_idx' ORDER BY relpersistence
----
tt_mask_idx|p
tt_mask_idx|t

statement ok
DROP TABLE tt_mask

# Now the permanent table is found again.
query
SELECT * FROM tt_mask
----
1

statement ok
DROP TABLE tt_mask

# CREATE TEMPORARY, serial columns, primary keys and CREATE TEMP SEQUENCE:
# every part is temporary.
statement ok
CREATE TEMPORARY TABLE tt_serial (id serial PRIMARY KEY, v text)

statement ok
INSERT INTO tt_serial (v) VALUES ('a'), ('b')

query
SELECT id, v FROM tt_serial ORDER BY id
----
1|a
2|b

query
SELECT relname, relkind, relpersistence FROM pg_class WHERE relname LIKE 'tt_serial%' ORDER BY relname
----
tt_serial|r|t
tt_serial_id_seq|S|t
tt_serial_pkey|i|t

statement ok
CREATE TEMP SEQUENCE tt_seq START 10

query
SELECT nextval('tt_seq'), nextval('tt_seq')
----
10|11

query
SELECT relpersistence FROM pg_class WHERE relname = 'tt_seq'
----
t

# A read-only transaction may write temporary tables (and advance
# temporary sequences) but nothing else, not even temporary DDL.
statement ok
CREATE TABLE tt_perm (a int)

statement ok
BEGIN READ ONLY

statement ok
INSERT INTO tt_serial (v) VALUES ('c')

statement ok
UPDATE tt_serial SET v = 'C' WHERE v = 'c'

statement ok
DELETE FROM tt_serial WHERE v = 'a'

query
SELECT nextval('tt_seq')
----
12

error 25006
INSERT INTO tt_perm VALUES (1)

statement ok
ROLLBACK

statement ok
BEGIN READ ONLY

error 25006
CREATE TEMP TABLE tt_nope (a int)

statement ok
ROLLBACK

statement ok
BEGIN READ ONLY

error 25006
DELETE FROM tt_perm USING tt_serial WHERE tt_perm.a = tt_serial.id

statement ok
ROLLBACK

statement ok
DROP TABLE tt_perm

# Creation is transactional: rolled back with the transaction or the
# savepoint it was made in.
statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_rolled (a int)

statement ok
ROLLBACK

error 42P01
SELECT * FROM tt_rolled

statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_kept (a int)

statement ok
SAVEPOINT s

statement ok
CREATE TEMP TABLE tt_gone (a int)

statement ok
INSERT INTO tt_kept VALUES (1)

statement ok
ROLLBACK TO s

statement ok
INSERT INTO tt_kept VALUES (2)

statement ok
COMMIT

query
SELECT a FROM tt_kept
----
2

error 42P01
SELECT * FROM tt_gone

# ON COMMIT DELETE ROWS empties the table at each commit.
statement ok
CREATE TEMP TABLE tt_delrows (a int PRIMARY KEY) ON COMMIT DELETE ROWS

statement ok
BEGIN

statement ok
INSERT INTO tt_delrows VALUES (1), (2)

query
SELECT a FROM tt_delrows ORDER BY a
----
1
2

statement ok
COMMIT

query
SELECT count(*) FROM tt_delrows
----
0

# The index was emptied with it.
statement ok
INSERT INTO tt_delrows VALUES (1)

query
SELECT count(*) FROM tt_delrows
----
0

statement ok
DROP TABLE tt_delrows

# CREATE TEMP TABLE … AS with ON COMMIT DELETE ROWS.
statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_ctas (col) ON COMMIT DELETE ROWS AS SELECT 1

query
SELECT col FROM tt_ctas
----
1

statement ok
COMMIT

query
SELECT count(*) FROM tt_ctas
----
0

statement ok
DROP TABLE tt_ctas

# ON COMMIT DROP drops the table at commit; a rollback drops it too.
statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_drop (a int) ON COMMIT DROP

statement ok
INSERT INTO tt_drop VALUES (1), (2)

query
SELECT count(*) FROM tt_drop
----
2

statement ok
COMMIT

error 42P01
SELECT * FROM tt_drop

statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_drop (col) ON COMMIT DROP AS SELECT 1

statement ok
COMMIT

error 42P01
SELECT * FROM tt_drop

# ON COMMIT PRESERVE ROWS is the default behaviour.
statement ok
CREATE TEMP TABLE tt_keep (a int) ON COMMIT PRESERVE ROWS

statement ok
INSERT INTO tt_keep VALUES (1)

query
SELECT a FROM tt_keep
----
1

# Foreign keys: between temporary tables, with ON COMMIT settings that
# agree; a table emptied at commit referenced by one that is not is an
# error at COMMIT, which rolls the transaction back.
statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_fk1 (col int PRIMARY KEY)

statement ok
CREATE TEMP TABLE tt_fk2 (col int REFERENCES tt_fk1) ON COMMIT DELETE ROWS

statement ok
INSERT INTO tt_fk1 VALUES (1)

statement ok
INSERT INTO tt_fk2 VALUES (1)

statement ok
COMMIT

query
SELECT (SELECT count(*) FROM tt_fk1), (SELECT count(*) FROM tt_fk2)
----
1|0

statement ok
BEGIN

statement ok
CREATE TEMP TABLE tt_fk3 (col int PRIMARY KEY) ON COMMIT DELETE ROWS

statement ok
CREATE TEMP TABLE tt_fk4 (col int REFERENCES tt_fk3)

error 0A000
COMMIT

error 42P01
SELECT * FROM tt_fk3

statement ok
CREATE TABLE tt_permfk (a int PRIMARY KEY)

error 42P16
CREATE TABLE tt_permref (a int REFERENCES tt_fk1)

error 42P16
CREATE TEMP TABLE tt_tempref (a int REFERENCES tt_permfk)

statement ok
DROP TABLE tt_permfk

# Misuse.
error 42P16
CREATE TABLE tt_oncommit (a int) ON COMMIT DELETE ROWS

error 42P16
CREATE TABLE tt_oncommit (col) ON COMMIT DELETE ROWS AS SELECT 1

error 42P16
CREATE TEMP TABLE public.tt_wrong (a int)

error 42701
CREATE TEMP TABLE tt_sys (xmin int)

# DISCARD TEMP drops every temporary object of the session.
statement ok
DISCARD TEMP

query
SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()
----
0

error 42P01
SELECT * FROM tt_keep
