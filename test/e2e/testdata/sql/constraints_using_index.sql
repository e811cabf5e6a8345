# ALTER TABLE … ADD [CONSTRAINT name] PRIMARY KEY | UNIQUE USING INDEX:
# the existing unique index becomes the constraint's index (renamed to the
# constraint's name), a primary key's columns become NOT NULL, and
# PostgreSQL's checks of the index. Checked against PostgreSQL 15.

statement ok
CREATE TABLE ui (a int, b text, c int)

statement ok
INSERT INTO ui VALUES (1, 'x', 1), (2, 'y', NULL)

statement ok
CREATE UNIQUE INDEX ui_a ON ui (a)

statement ok
CREATE INDEX ui_b ON ui (b)

statement ok
CREATE UNIQUE INDEX ui_c ON ui (c)

statement ok
CREATE UNIQUE INDEX ui_ab ON ui (a, b)

error 42704
ALTER TABLE ui ADD PRIMARY KEY USING INDEX nosuch

error 42809
ALTER TABLE ui ADD PRIMARY KEY USING INDEX ui_b

error 42809
ALTER TABLE ui ADD UNIQUE USING INDEX ui_b

# The rows must not hold NULLs in a primary key's columns.
error 23502
ALTER TABLE ui ADD PRIMARY KEY USING INDEX ui_c

statement ok
ALTER TABLE ui ADD CONSTRAINT ui_pk PRIMARY KEY USING INDEX ui_a

query
SELECT conname, contype, conindid::regclass::text, conkey FROM pg_constraint WHERE conrelid = 'ui'::regclass ORDER BY conname
----
ui_pk|p|ui_pk|{1}

query
SELECT c.relname, i.indisprimary, i.indisunique FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'ui'::regclass ORDER BY c.relname
----
ui_ab|f|t
ui_b|f|f
ui_c|f|t
ui_pk|t|t

query
SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 'ui'::regclass AND attnum > 0 ORDER BY attnum
----
a|t
b|f
c|f

error 42P16
ALTER TABLE ui ADD PRIMARY KEY USING INDEX ui_ab

error 55000
ALTER TABLE ui ADD UNIQUE USING INDEX ui_pk

# Without a constraint name, the index keeps its name.
statement ok
ALTER TABLE ui ADD UNIQUE USING INDEX ui_ab

query
SELECT conname, contype, conindid::regclass::text FROM pg_constraint WHERE conrelid = 'ui'::regclass ORDER BY conname
----
ui_ab|u|ui_ab
ui_pk|p|ui_pk

error 23502
INSERT INTO ui VALUES (NULL, 'z', 3)

error 23505
INSERT INTO ui VALUES (1, 'w', 4)

statement ok
CREATE TABLE ui2 (a int)

statement ok
CREATE UNIQUE INDEX ui2_a ON ui2 (a)

error 55000
ALTER TABLE ui ADD UNIQUE USING INDEX ui2_a

error 0A000
CREATE TABLE ui3 (a int, CONSTRAINT x PRIMARY KEY USING INDEX y)

# The rename and the constraint are transactional.
statement ok
BEGIN

statement ok
ALTER TABLE ui2 ADD CONSTRAINT ui2_u UNIQUE USING INDEX ui2_a

query
SELECT relname FROM pg_class WHERE relname LIKE 'ui2%' ORDER BY relname
----
ui2
ui2_u

statement ok
ROLLBACK

query
SELECT relname FROM pg_class WHERE relname LIKE 'ui2%' ORDER BY relname
----
ui2
ui2_a

query
SELECT count(*) FROM pg_constraint WHERE conrelid = 'ui2'::regclass
----
0

# Dropping the constraint drops its index.
statement ok
ALTER TABLE ui2 ADD CONSTRAINT ui2_u UNIQUE USING INDEX ui2_a

statement ok
ALTER TABLE ui2 DROP CONSTRAINT ui2_u

query
SELECT relname FROM pg_class WHERE relname LIKE 'ui2%' ORDER BY relname
----
ui2
