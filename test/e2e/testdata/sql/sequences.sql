# Sequences, serial and identity columns; expected output is PostgreSQL
# 15's (checked with TIDAL_SQLTEST_PG).

statement ok
CREATE SEQUENCE s

query
SELECT nextval('s'), nextval('s'::regclass), currval('s'), lastval()
----
1|2|2|2

query
SELECT last_value, log_cnt, is_called FROM s
----
2|31|t

query
SELECT * FROM s
----
2|31|t

query
SELECT setval('s', 100), nextval('s'), currval('s')
----
100|101|101

query
SELECT setval('s', 5, false), currval('s'), nextval('s'), nextval('s')
----
5|101|5|6

query
SELECT * FROM s
----
6|31|t

query
SELECT setval('s', 42, true), nextval('s')
----
42|43

# nextval is not rolled back.
statement ok
BEGIN

query
SELECT nextval('s')
----
44

statement ok
ROLLBACK

query
SELECT nextval('s'), currval('s')
----
45|45

# Parameters.
statement ok
CREATE SEQUENCE d INCREMENT BY -1 MINVALUE -3 MAXVALUE 0 START 0

query
SELECT nextval('d'), nextval('d'), nextval('d'), nextval('d')
----
0|-1|-2|-3

error 2200H
SELECT nextval('d')

statement ok
CREATE SEQUENCE c AS smallint INCREMENT 10 MINVALUE 5 MAXVALUE 30 CYCLE

query
SELECT nextval('c'), nextval('c'), nextval('c'), nextval('c'), nextval('c')
----
5|15|25|5|15

statement ok
CREATE SEQUENCE up MAXVALUE 2

query
SELECT nextval('up'), nextval('up')
----
1|2

error 2200H
SELECT nextval('up')

statement ok
CREATE SEQUENCE big START 9223372036854775806

query
SELECT nextval('big'), nextval('big')
----
9223372036854775806|9223372036854775807

error 2200H
SELECT nextval('big')

statement ok
CREATE SEQUENCE cached CACHE 10

query
SELECT nextval('cached'), nextval('cached')
----
1|2

query
SELECT last_value, is_called FROM cached
----
10|t

query
SELECT seqtypid::int, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle FROM pg_sequence WHERE seqrelid = 'c'::regclass
----
21|5|10|30|5|1|t

query
SELECT seqtypid::int, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle FROM pg_sequence WHERE seqrelid = 'd'::regclass
----
20|0|-1|0|-3|1|f

query
SELECT relkind, relnatts FROM pg_class WHERE relname = 's'
----
S|3

query
SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute WHERE attrelid = 's'::regclass AND attnum > 0 ORDER BY attnum
----
last_value|bigint|t
log_cnt|bigint|t
is_called|boolean|t

# Errors.
error 42P07
CREATE SEQUENCE s

statement ok
CREATE SEQUENCE IF NOT EXISTS s

error 22023
CREATE SEQUENCE bad INCREMENT 0

error 22023
CREATE SEQUENCE bad MINVALUE 10 MAXVALUE 5

error 22023
CREATE SEQUENCE bad START 0

error 22023
CREATE SEQUENCE bad AS smallint MAXVALUE 100000

error 22023
CREATE SEQUENCE bad CACHE 0

error 22023
CREATE SEQUENCE bad AS text

error 42601
CREATE SEQUENCE bad START 1 START 2

statement ok
CREATE SEQUENCE fresh

error 55000
SELECT currval('fresh')

error 42P01
SELECT nextval('no_such_seq')

error 22003
SELECT setval('up', 3)

error 22003
SELECT setval('up', 0)

# ALTER SEQUENCE.
statement ok
ALTER SEQUENCE s RESTART WITH 7

query
SELECT nextval('s'), nextval('s')
----
7|8

statement ok
ALTER SEQUENCE s INCREMENT BY 5

query
SELECT nextval('s')
----
13

statement ok
ALTER SEQUENCE s START 100 RESTART

query
SELECT nextval('s'), currval('s')
----
100|100

statement ok
ALTER SEQUENCE up MAXVALUE 4

query
SELECT nextval('up'), nextval('up')
----
3|4

statement ok
ALTER SEQUENCE c AS integer

query
SELECT seqtypid::int, seqmax FROM pg_sequence WHERE seqrelid = 'c'::regclass
----
23|30

statement ok
CREATE SEQUENCE wide AS smallint

statement ok
ALTER SEQUENCE wide AS bigint

query
SELECT seqtypid::int, seqmax FROM pg_sequence WHERE seqrelid = 'wide'::regclass
----
20|9223372036854775807

error 22023
ALTER SEQUENCE s MINVALUE 1000

statement ok
ALTER SEQUENCE IF EXISTS no_such_seq RESTART

error 42P01
ALTER SEQUENCE no_such_seq RESTART

# serial columns.
statement ok
CREATE TABLE t (id serial PRIMARY KEY, v text)

query
INSERT INTO t (v) VALUES ('a'), ('b') RETURNING id, v
----
1|a
2|b

query
INSERT INTO t VALUES (DEFAULT, 'c') RETURNING id
----
3

statement ok
INSERT INTO t VALUES (10, 'explicit')

query
INSERT INTO t (v) VALUES ('d') RETURNING id
----
4

query
SELECT currval('t_id_seq'), split_part(pg_get_serial_sequence('t', 'id'), '.', 2), pg_get_serial_sequence('t', 'v')
----
4|t_id_seq|NULL

query
SELECT adnum, pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 't'::regclass
----
1|nextval('t_id_seq'::regclass)

query
SELECT attname, attnotnull, atthasdef, attidentity = '' FROM pg_attribute WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum
----
id|t|t|t
v|f|f|t

query
SELECT d.deptype, d.refobjsubid FROM pg_depend d JOIN pg_class c ON c.oid = d.objid WHERE c.relname = 't_id_seq' AND d.refobjid = 't'::regclass
----
a|1

query
SELECT seqtypid::int, seqmax FROM pg_sequence WHERE seqrelid = 't_id_seq'::regclass
----
23|2147483647

error 23502
INSERT INTO t VALUES (NULL, 'null id')

statement ok
CREATE TABLE sizes (a smallserial, b bigserial, c serial8, d serial4)

query
SELECT c.relname, s.seqtypid::int FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relname LIKE 'sizes%' ORDER BY 1
----
sizes_a_seq|21
sizes_b_seq|20
sizes_c_seq|20
sizes_d_seq|23

statement ok
INSERT INTO sizes DEFAULT VALUES

query
SELECT * FROM sizes
----
1|1|1|1

# The sequence name avoids existing relations.
statement ok
CREATE SEQUENCE clash_id_seq

statement ok
CREATE TABLE clash (id serial)

query
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'clash'::regclass
----
nextval('clash_id_seq1'::regclass)

# A default that the sequence's column still uses keeps it alive.
error 2BP01
DROP SEQUENCE t_id_seq

# DROP TABLE drops the sequences its columns own.
statement ok
DROP TABLE t

query
SELECT count(*) FROM pg_class WHERE relname = 't_id_seq'
----
0

query
SELECT count(*) FROM pg_class WHERE relname = 'clash_id_seq'
----
1

# OWNED BY.
statement ok
CREATE TABLE owner_t (k int)

statement ok
CREATE SEQUENCE owned OWNED BY owner_t.k

statement ok
CREATE SEQUENCE unowned

statement ok
ALTER SEQUENCE unowned OWNED BY owner_t.k

statement ok
ALTER SEQUENCE unowned OWNED BY NONE

error 42703
ALTER SEQUENCE unowned OWNED BY owner_t.nope

error 42809
SELECT nextval('owner_t')

statement ok
DROP TABLE owner_t

query
SELECT relname FROM pg_class WHERE relname IN ('owned', 'unowned')
----
unowned

# Identity columns.
statement ok
CREATE TABLE ia (id int GENERATED ALWAYS AS IDENTITY, v text)

query
INSERT INTO ia (v) VALUES ('x'), ('y') RETURNING *
----
1|x
2|y

error 428C9
INSERT INTO ia VALUES (5, 'z')

error 428C9
INSERT INTO ia (id, v) SELECT 6, 'z'

query
INSERT INTO ia VALUES (DEFAULT, 'z') RETURNING id
----
3

query
INSERT INTO ia OVERRIDING SYSTEM VALUE VALUES (50, 'over') RETURNING id
----
50

query
INSERT INTO ia OVERRIDING USER VALUE VALUES (60, 'user') RETURNING id
----
4

error 428C9
UPDATE ia SET id = 7 WHERE v = 'x'

statement ok
UPDATE ia SET id = DEFAULT WHERE v = 'x'

query
SELECT id, v FROM ia ORDER BY v
----
50|over
4|user
5|x
2|y
3|z

query
SELECT attname, attidentity, attnotnull, atthasdef FROM pg_attribute WHERE attrelid = 'ia'::regclass AND attnum = 1
----
id|a|t|f

query
SELECT d.deptype FROM pg_depend d JOIN pg_class c ON c.oid = d.objid WHERE c.relname = 'ia_id_seq' AND d.refobjid = 'ia'::regclass
----
i

error 2BP01
DROP SEQUENCE ia_id_seq

statement ok
CREATE TABLE ib (id bigint GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY 10), v text)

query
INSERT INTO ib (v) VALUES ('a') RETURNING id
----
10

query
INSERT INTO ib VALUES (3, 'b') RETURNING id
----
3

query
INSERT INTO ib (v) VALUES ('c') RETURNING id
----
20

query
SELECT attidentity FROM pg_attribute WHERE attrelid = 'ib'::regclass AND attnum = 1
----
d

query
SELECT seqstart, seqincrement, seqtypid::int FROM pg_sequence WHERE seqrelid = 'ib_id_seq'::regclass
----
10|10|20

statement ok
CREATE TABLE ic (id int GENERATED BY DEFAULT AS IDENTITY (SEQUENCE NAME ic_custom CACHE 3), v text)

query
SELECT nextval('ic_custom'), split_part(pg_get_serial_sequence('ic', 'id'), '.', 2)
----
1|ic_custom

error 22023
CREATE TABLE bad (id text GENERATED ALWAYS AS IDENTITY)

error 42601
CREATE TABLE bad (id int DEFAULT 1 GENERATED ALWAYS AS IDENTITY)

error 42601
CREATE TABLE bad (id serial DEFAULT 1)

statement ok
DROP TABLE ia, ib, ic

query
SELECT count(*) FROM pg_class WHERE relname IN ('ia_id_seq', 'ib_id_seq', 'ic_custom')
----
0

# DROP SEQUENCE.
error 42809
DROP SEQUENCE clash

error 42809
DROP TABLE s

statement ok
DROP SEQUENCE s, d

statement ok
DROP SEQUENCE IF EXISTS s

error 42P01
DROP SEQUENCE s

error 42809
INSERT INTO up VALUES (1, 1, true)

# lastval follows nextval, not setval.
query
SELECT nextval('fresh'), setval('up', 1), lastval()
----
1|1|1

# pg_sequences.
statement ok
CREATE SEQUENCE listed AS integer START 3 INCREMENT 2 CACHE 4

query
SELECT sequencename, sequenceowner, data_type, start_value, min_value, max_value, increment_by, cycle, cache_size, last_value FROM pg_sequences WHERE sequencename IN ('listed', 'cached', 'c') ORDER BY 1
----
c|postgres|integer|5|5|30|10|t|1|15
cached|postgres|bigint|1|1|9223372036854775807|1|f|10|10
listed|postgres|integer|3|1|2147483647|2|f|4|NULL

query
SELECT nextval('listed'), last_value FROM pg_sequences WHERE sequencename = 'listed'
----
3|NULL

query
SELECT last_value FROM pg_sequences WHERE sequencename = 'listed'
----
9

# regclass names fold to lower case unless quoted.
statement ok
CREATE SEQUENCE "MixedCase"

query
SELECT nextval('"MixedCase"'), nextval('LISTED'), nextval('"listed"')
----
1|5|7

error 42P01
SELECT nextval('MixedCase')

error 3F000
SELECT nextval('no_such_schema.x')

# RESTART is transactional: ROLLBACK brings the old position back.
statement ok
CREATE SEQUENCE tx_seq

query
SELECT nextval('tx_seq'), nextval('tx_seq')
----
1|2

statement ok
BEGIN

statement ok
ALTER SEQUENCE tx_seq RESTART WITH 50

query
SELECT nextval('tx_seq'), nextval('tx_seq')
----
50|51

statement ok
ROLLBACK

query
SELECT nextval('tx_seq')
----
3

statement ok
BEGIN

statement ok
ALTER SEQUENCE tx_seq RESTART WITH 70

statement ok
COMMIT

query
SELECT nextval('tx_seq'), currval('tx_seq')
----
70|70

# TRUNCATE … RESTART IDENTITY.
statement ok
CREATE TABLE tr (id serial, g int GENERATED ALWAYS AS IDENTITY (START 100), v text)

statement ok
INSERT INTO tr (v) VALUES ('a'), ('b')

statement ok
TRUNCATE tr

query
INSERT INTO tr (v) VALUES ('c') RETURNING id, g
----
3|102

statement ok
TRUNCATE tr RESTART IDENTITY

query
INSERT INTO tr (v) VALUES ('d') RETURNING id, g
----
1|100

statement ok
BEGIN

statement ok
TRUNCATE tr RESTART IDENTITY

statement ok
ROLLBACK

query
INSERT INTO tr (v) VALUES ('e') RETURNING id, g
----
2|101

# Defaults that call a sequence keep it from being dropped; CASCADE drops
# the defaults.
statement ok
CREATE SEQUENCE shared_seq

statement ok
CREATE TABLE uses1 (a int DEFAULT nextval('shared_seq'), b bigint DEFAULT nextval('shared_seq'::regclass), c int)

query
SELECT adnum, pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'uses1'::regclass ORDER BY adnum
----
1|nextval('shared_seq'::regclass)
2|nextval('shared_seq'::regclass)

query
INSERT INTO uses1 (c) VALUES (0) RETURNING a, b
----
1|2

error 2BP01
DROP SEQUENCE shared_seq

statement ok
DROP SEQUENCE shared_seq CASCADE

query
SELECT count(*) FROM pg_attrdef WHERE adrelid = 'uses1'::regclass
----
0

query
SELECT attname, atthasdef FROM pg_attribute WHERE attrelid = 'uses1'::regclass AND attnum > 0 ORDER BY attnum
----
a|f
b|f
c|f

query
INSERT INTO uses1 (c) VALUES (1) RETURNING a, b
----
NULL|NULL

statement ok
CREATE TABLE owns_cascade (id serial)

statement ok
DROP SEQUENCE owns_cascade_id_seq CASCADE

error 23502
INSERT INTO owns_cascade DEFAULT VALUES

# Dropping a column drops the sequences it owns.
statement ok
CREATE TABLE dropcol (id serial, g int GENERATED BY DEFAULT AS IDENTITY, v text)

statement ok
CREATE SEQUENCE dropcol_v_owned OWNED BY dropcol.v

statement ok
ALTER TABLE dropcol DROP COLUMN id

statement ok
ALTER TABLE dropcol DROP COLUMN v

query
SELECT relname FROM pg_class WHERE relname LIKE 'dropcol%' ORDER BY 1
----
dropcol
dropcol_g_seq

query
INSERT INTO dropcol DEFAULT VALUES RETURNING g
----
1

statement ok
ALTER TABLE dropcol DROP COLUMN g

query
SELECT relname FROM pg_class WHERE relname LIKE 'dropcol%' ORDER BY 1
----
dropcol

# Renaming a sequence keeps the defaults that use it working.
statement ok
CREATE TABLE ren (id serial, v text)

statement ok
INSERT INTO ren (v) VALUES ('a')

statement ok
ALTER SEQUENCE ren_id_seq RENAME TO ren_renamed

statement ok
ALTER TABLE ren_renamed RENAME TO "Ren_Renamed"

query
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'ren'::regclass
----
nextval('"Ren_Renamed"'::regclass)

query
INSERT INTO ren (v) VALUES ('b') RETURNING id
----
2

error 42809
ALTER SEQUENCE ren RENAME TO ren2

# ALTER TABLE … ALTER COLUMN identity forms.
statement ok
CREATE TABLE it (a int, b int NOT NULL, c int NOT NULL DEFAULT 1, d int GENERATED ALWAYS AS IDENTITY, e text NOT NULL)

error 55000
ALTER TABLE it ALTER COLUMN a ADD GENERATED ALWAYS AS IDENTITY

error 55000
ALTER TABLE it ALTER COLUMN c ADD GENERATED ALWAYS AS IDENTITY

error 55000
ALTER TABLE it ALTER COLUMN d ADD GENERATED ALWAYS AS IDENTITY

error 22023
ALTER TABLE it ALTER COLUMN e ADD GENERATED ALWAYS AS IDENTITY

statement ok
ALTER TABLE it ALTER COLUMN b ADD GENERATED BY DEFAULT AS IDENTITY (START 10 SEQUENCE NAME it_b_custom)

query
SELECT attname, attidentity FROM pg_attribute WHERE attrelid = 'it'::regclass AND attnum > 0 ORDER BY attnum
----
a|
b|d
c|
d|a
e|

error 55000
ALTER TABLE it ALTER COLUMN a SET GENERATED ALWAYS

error 55000
ALTER TABLE it ALTER COLUMN a DROP IDENTITY

statement ok
ALTER TABLE it ALTER COLUMN a DROP IDENTITY IF EXISTS

statement ok
ALTER TABLE it ALTER COLUMN b SET GENERATED ALWAYS SET INCREMENT BY 5 RESTART WITH 100

query
INSERT INTO it (c, e) VALUES (1, 'x'), (1, 'y') RETURNING b, d
----
100|1
105|2

error 428C9
INSERT INTO it (b, c, e) VALUES (1, 1, 'z')

statement ok
ALTER TABLE it ALTER COLUMN d RESTART

query
INSERT INTO it (c, e) VALUES (1, 'z') RETURNING d
----
1

error 42601
ALTER TABLE it ALTER COLUMN d SET DEFAULT 5

error 42601
ALTER TABLE it ALTER COLUMN d DROP DEFAULT

error 42601
ALTER TABLE it ALTER COLUMN d DROP NOT NULL

statement ok
ALTER TABLE it ALTER COLUMN d TYPE bigint

query
SELECT seqtypid::int, seqmax FROM pg_sequence WHERE seqrelid = 'it_d_seq'::regclass
----
20|9223372036854775807

statement ok
ALTER TABLE it ALTER COLUMN b DROP IDENTITY

query
SELECT relname FROM pg_class WHERE relname LIKE 'it\_%' ORDER BY 1
----
it_d_seq

query
INSERT INTO it (b, c, e) VALUES (7, 1, 'w') RETURNING b, d
----
7|2

# Other commands on a sequence.
statement ok
CREATE SEQUENCE other_cmds

error 42809
COPY other_cmds TO STDOUT

error 42809
TRUNCATE other_cmds

error 42809
UPDATE other_cmds SET log_cnt = 0

error 42809
DELETE FROM other_cmds

# Leave no free-standing sequences behind for later scripts (the tables,
# and the sequences they own, are dropped after the script).
statement ok
DROP SEQUENCE c, up, big, cached, fresh, wide, clash_id_seq, unowned, listed, "MixedCase", tx_seq, other_cmds

query
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'S' AND n.nspname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')) ORDER BY 1
----

# A default written schema-qualified (as pg_dump writes it) still keeps
# its sequence from being dropped, and follows a rename.
statement ok
CREATE SEQUENCE public.dumped_seq

statement ok
CREATE TABLE dumped (id int DEFAULT nextval('public.dumped_seq'::regclass))

error 2BP01
DROP SEQUENCE dumped_seq

statement ok
ALTER SEQUENCE dumped_seq RENAME TO dumped_seq2

query
INSERT INTO dumped DEFAULT VALUES RETURNING id
----
1

statement ok
DROP SEQUENCE dumped_seq2 CASCADE

# VACUUM and ANALYZE skip a sequence with a warning.
statement ok
CREATE SEQUENCE vacuumed

statement ok
VACUUM vacuumed

statement ok
ANALYZE vacuumed

statement ok
DROP SEQUENCE vacuumed

query
SELECT pg_typeof(data_type), data_type FROM pg_sequences WHERE sequencename = 'it_d_seq'
----
regtype|bigint
