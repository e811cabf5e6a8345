# ALTER TABLE: adding columns without a rewrite (old rows read the stored
# missing value), dropping columns, renames, column defaults and NOT NULL,
# changing a column's type, and PostgreSQL's errors for each.

statement ok
CREATE TABLE at_items (id int PRIMARY KEY, name text)

statement ok
INSERT INTO at_items VALUES (1, 'one'), (2, 'two'), (3, NULL)

statement ok
ALTER TABLE at_items ADD COLUMN plain int

statement ok
ALTER TABLE at_items ADD COLUMN qty int DEFAULT 10, ADD COLUMN label varchar(8) NOT NULL DEFAULT 'none'

query
SELECT * FROM at_items ORDER BY id
----
1|one|NULL|10|none
2|two|NULL|10|none
3|NULL|NULL|10|none

query
SELECT attname, atthasmissing, attmissingval::text, atthasdef, attnotnull FROM pg_attribute WHERE attrelid = 'at_items'::regclass AND attnum > 0 ORDER BY attnum
----
id|f|NULL|f|t
name|f|NULL|f|f
plain|f|NULL|f|f
qty|t|{10}|t|f
label|t|{none}|t|t

statement ok
INSERT INTO at_items (id, name) VALUES (4, 'four')

statement ok
INSERT INTO at_items VALUES (5, 'five', 5, 50, 'fifty')

query
SELECT id, plain, qty, label FROM at_items ORDER BY id
----
1|NULL|10|none
2|NULL|10|none
3|NULL|10|none
4|NULL|10|none
5|5|50|fifty

statement ok
UPDATE at_items SET qty = qty + 1 WHERE id <= 2

query
SELECT id, qty, label FROM at_items WHERE qty > 10 ORDER BY id
----
1|11|none
2|11|none
5|50|fifty

statement ok
CREATE INDEX at_items_qty ON at_items (qty)

query
SELECT id FROM at_items WHERE qty = 10 ORDER BY id
----
3
4

query
SELECT count(*) FROM at_items WHERE label = 'none'
----
4

error 42701
ALTER TABLE at_items ADD COLUMN qty int

statement ok
ALTER TABLE at_items ADD COLUMN IF NOT EXISTS qty int

error 23502
ALTER TABLE at_items ADD COLUMN must int NOT NULL

error 42P01
ALTER TABLE at_missing ADD COLUMN x int

statement ok
ALTER TABLE IF EXISTS at_missing ADD COLUMN x int

statement ok
ALTER TABLE at_items ADD COLUMN noise float8 DEFAULT random()

query
SELECT count(*), count(DISTINCT noise), min(noise) >= 0 AND max(noise) < 1 FROM at_items
----
5|5|t

query
SELECT attname, atthasmissing FROM pg_attribute WHERE attrelid = 'at_items'::regclass AND attnum > 0 ORDER BY attnum
----
id|f
name|f
plain|f
qty|f
label|f
noise|f

statement ok
ALTER TABLE at_items DROP COLUMN noise, DROP COLUMN plain

query
SELECT * FROM at_items ORDER BY id
----
1|one|11|none
2|two|11|none
3|NULL|10|none
4|four|10|none
5|five|50|fifty

query
SELECT attnum, attname, atttypid, attisdropped FROM pg_attribute WHERE attrelid = 'at_items'::regclass AND attnum > 0 ORDER BY attnum
----
1|id|23|f
2|name|25|f
3|........pg.dropped.3........|0|t
4|qty|23|f
5|label|1043|f
6|........pg.dropped.6........|0|t

statement ok
INSERT INTO at_items VALUES (6, 'six', 60, 'sixty')

query
SELECT id, name, qty, label FROM at_items WHERE id >= 5 ORDER BY id
----
5|five|50|fifty
6|six|60|sixty

error 42703
SELECT plain FROM at_items

error 42703
ALTER TABLE at_items DROP COLUMN plain

statement ok
ALTER TABLE at_items DROP COLUMN IF EXISTS plain

statement ok
ALTER TABLE at_items DROP COLUMN qty

statement ok
UPDATE at_items SET label = label || '!' WHERE id = 4

statement ok
UPDATE at_items SET label = 'none' WHERE id = 4

statement ok
VACUUM at_items

query tidal
SELECT tidal_check('at_items')
----
ok

query
SELECT id, name, label FROM at_items WHERE id = 4
----
4|four|none

query
SELECT count(*), count(name), sum(id) FROM at_items
----
6|5|21

query
SELECT count(*) FROM pg_class WHERE relname = 'at_items_qty'
----
0

statement ok
ALTER TABLE at_items RENAME COLUMN name TO title

statement ok
ALTER TABLE at_items RENAME label TO tag

query
SELECT id, title, tag FROM at_items ORDER BY id
----
1|one|none
2|two|none
3|NULL|none
4|four|none
5|five|fifty
6|six|sixty

error 42703
ALTER TABLE at_items RENAME COLUMN name TO other

error 42701
ALTER TABLE at_items RENAME COLUMN title TO tag

statement ok
ALTER TABLE at_items RENAME TO at_things

error 42P01
SELECT * FROM at_items

statement ok
CREATE TABLE at_other (x int)

error 42P07
ALTER TABLE at_things RENAME TO at_other

statement ok
ALTER INDEX at_items_pkey RENAME TO at_things_pkey

query
SELECT relname FROM pg_class WHERE relname LIKE 'at\_%' ORDER BY relname
----
at_other
at_things
at_things_pkey

statement ok
ALTER TABLE at_things ALTER COLUMN tag SET DEFAULT 'x', ALTER COLUMN title SET DEFAULT 'untitled'

statement ok
INSERT INTO at_things (id) VALUES (7)

statement ok
ALTER TABLE at_things ALTER COLUMN title DROP DEFAULT

statement ok
INSERT INTO at_things (id, tag) VALUES (8, 'y')

query
SELECT id, title, tag FROM at_things WHERE id >= 7 ORDER BY id
----
7|untitled|x
8|NULL|y

error 23502
ALTER TABLE at_things ALTER COLUMN title SET NOT NULL

statement ok
UPDATE at_things SET title = 'blank' WHERE title IS NULL

statement ok
ALTER TABLE at_things ALTER COLUMN title SET NOT NULL

error 23502
INSERT INTO at_things (id) VALUES (9)

statement ok
ALTER TABLE at_things ALTER COLUMN title DROP NOT NULL

statement ok
INSERT INTO at_things (id) VALUES (9)

error 42P16
ALTER TABLE at_things ALTER COLUMN id DROP NOT NULL

error 42703
ALTER TABLE at_things ALTER COLUMN nope SET DEFAULT 1

statement ok
ALTER TABLE at_things ALTER COLUMN id TYPE bigint

error 42804
ALTER TABLE at_things ALTER COLUMN tag TYPE int USING length(tag)

statement ok
ALTER TABLE at_things ALTER COLUMN tag DROP DEFAULT, ALTER COLUMN tag TYPE int USING length(tag)

query
SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = 'at_things'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
----
id|bigint
title|text
tag|integer

query
SELECT id, title, tag FROM at_things WHERE id = 5
----
5|five|5

query
SELECT id, tag FROM at_things ORDER BY id
----
1|4
2|4
3|4
4|4
5|5
6|5
7|1
8|1
9|1

error 23505
INSERT INTO at_things VALUES (1, 'dup', 0)

query tidal
SELECT tidal_check('at_things')
----
ok

error 42804
ALTER TABLE at_things ALTER COLUMN title TYPE int

statement ok
BEGIN

statement ok
ALTER TABLE at_things ADD COLUMN extra int DEFAULT 1, DROP COLUMN title

statement ok
ALTER TABLE at_things RENAME TO at_gone

statement ok
ROLLBACK

query
SELECT id, title, tag FROM at_things WHERE id = 1
----
1|one|4

statement ok
CREATE TABLE at_single (only_col int)

statement ok
INSERT INTO at_single VALUES (1), (2)

statement ok
ALTER TABLE at_single DROP COLUMN only_col

query
SELECT count(*) FROM at_single
----
2

statement ok
ALTER TABLE at_single ADD COLUMN again text DEFAULT 'back'

query
SELECT * FROM at_single
----
back
back

statement ok
DROP TABLE at_things, at_other, at_single

statement ok
CREATE TABLE at_con (id int PRIMARY KEY, code int UNIQUE)

statement ok
ALTER TABLE at_con RENAME CONSTRAINT at_con_pkey TO at_con_pk

statement ok
ALTER TABLE at_con RENAME CONSTRAINT at_con_code_key TO at_con_ucode_key

error 42704
ALTER TABLE at_con RENAME CONSTRAINT nope TO other

query
SELECT conname, contype FROM pg_constraint WHERE conrelid = 'at_con'::regclass ORDER BY conname
----
at_con_pk|p
at_con_ucode_key|u

query
SELECT relname FROM pg_class WHERE relname LIKE 'at\_con%' ORDER BY relname
----
at_con
at_con_pk
at_con_ucode_key

statement ok
DROP TABLE at_con

error 42501
ALTER TABLE pg_class ADD COLUMN x int

error 42501
ALTER TABLE pg_attribute RENAME COLUMN attname TO n
