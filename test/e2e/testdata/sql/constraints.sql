# Table constraints as PostgreSQL 15: pg_constraint rows for primary keys,
# UNIQUE, CHECK and FOREIGN KEY constraints, their enforcement and
# pg_get_constraintdef.

statement ok
CREATE TABLE con_parent (id int PRIMARY KEY, code text UNIQUE, a int, b int, UNIQUE (a, b))

statement ok
CREATE TABLE con_child (id int PRIMARY KEY, pid int REFERENCES con_parent (id) ON DELETE CASCADE, qty int CHECK (qty > 0), note text, CONSTRAINT con_child_both CHECK (qty < 100 AND id > 0))

statement ok
CREATE TABLE con_pair (x int, y int, FOREIGN KEY (x, y) REFERENCES con_parent (a, b) ON UPDATE CASCADE ON DELETE SET NULL)

# An index on the referencing columns serves the referenced side's checks.
statement ok
CREATE INDEX con_child_pid ON con_child (pid)

statement ok
CREATE TABLE con_strict (pcode text REFERENCES con_parent (code) MATCH FULL ON DELETE RESTRICT, CHECK (pcode <> ''))

query
SELECT conname, contype, conrelid::regclass, confrelid::regclass, conindid::regclass, confupdtype, confdeltype, confmatchtype, convalidated, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid IN ('con_parent'::regclass, 'con_child'::regclass, 'con_pair'::regclass, 'con_strict'::regclass) ORDER BY conrelid::regclass::text, conname
----
con_child_both|c|con_child|-|-| | | |t|CHECK (((qty < 100) AND (id > 0)))|CHECK (qty < 100 AND id > 0)
con_child_pid_fkey|f|con_child|con_parent|con_parent_pkey|a|c|s|t|FOREIGN KEY (pid) REFERENCES con_parent(id) ON DELETE CASCADE|FOREIGN KEY (pid) REFERENCES con_parent(id) ON DELETE CASCADE
con_child_pkey|p|con_child|-|con_child_pkey| | | |t|PRIMARY KEY (id)|PRIMARY KEY (id)
con_child_qty_check|c|con_child|-|-| | | |t|CHECK ((qty > 0))|CHECK (qty > 0)
con_pair_x_y_fkey|f|con_pair|con_parent|con_parent_a_b_key|c|n|s|t|FOREIGN KEY (x, y) REFERENCES con_parent(a, b) ON UPDATE CASCADE ON DELETE SET NULL|FOREIGN KEY (x, y) REFERENCES con_parent(a, b) ON UPDATE CASCADE ON DELETE SET NULL
con_parent_a_b_key|u|con_parent|-|con_parent_a_b_key| | | |t|UNIQUE (a, b)|UNIQUE (a, b)
con_parent_code_key|u|con_parent|-|con_parent_code_key| | | |t|UNIQUE (code)|UNIQUE (code)
con_parent_pkey|p|con_parent|-|con_parent_pkey| | | |t|PRIMARY KEY (id)|PRIMARY KEY (id)
con_strict_pcode_check|c|con_strict|-|-| | | |t|CHECK ((pcode <> ''::text))|CHECK (pcode <> ''::text)
con_strict_pcode_fkey|f|con_strict|con_parent|con_parent_code_key|a|r|f|t|FOREIGN KEY (pcode) REFERENCES con_parent(code) MATCH FULL ON DELETE RESTRICT|FOREIGN KEY (pcode) REFERENCES con_parent(code) MATCH FULL ON DELETE RESTRICT

query
SELECT relname, relchecks, relhastriggers FROM pg_class WHERE relname IN ('con_parent', 'con_child', 'con_pair', 'con_strict') ORDER BY relname
----
con_child|2|t
con_pair|0|t
con_parent|0|t
con_strict|1|t

statement ok
INSERT INTO con_parent VALUES (1, 'one', 10, 11), (2, 'two', 20, 21), (3, 'three', 30, 31)

statement ok
INSERT INTO con_child VALUES (1, 1, 5, 'a'), (2, 1, 6, 'b'), (3, 2, 7, 'c'), (4, NULL, 8, 'no parent')

# Enforcement on insert and update: the referenced key must exist, the
# CHECK expressions must not be false.
error 23503
INSERT INTO con_child VALUES (5, 9, 5, 'missing parent')

error 23514
INSERT INTO con_child VALUES (5, 1, 0, 'qty')

error 23514
INSERT INTO con_child VALUES (5, 1, 100, 'both')

# NULL satisfies a CHECK.
statement ok
INSERT INTO con_child VALUES (5, 1, NULL, 'null qty')

error 23514
UPDATE con_child SET qty = -1 WHERE id = 1

error 23503
UPDATE con_child SET pid = 7 WHERE id = 1

statement ok
UPDATE con_child SET pid = 3 WHERE id = 5

# MATCH SIMPLE: a NULL in the key exempts the row; MATCH FULL: all or none.
statement ok
INSERT INTO con_pair VALUES (10, 11), (20, 21), (10, NULL), (99, NULL)

error 23503
INSERT INTO con_pair VALUES (10, 21)

statement ok
INSERT INTO con_strict VALUES ('one'), (NULL)

error 23503
INSERT INTO con_strict VALUES ('four')

error 23514
INSERT INTO con_strict VALUES ('')

# ON DELETE RESTRICT refuses.
error 23503
DELETE FROM con_parent WHERE code = 'one'

statement ok
DELETE FROM con_strict WHERE pcode = 'one'

# ON DELETE CASCADE removes the referencing rows, ON DELETE SET NULL
# clears their keys.
statement ok
DELETE FROM con_parent WHERE id = 1

query
SELECT id, pid FROM con_child ORDER BY id
----
3|2
4|NULL
5|3

# ON UPDATE CASCADE follows the key.
statement ok
UPDATE con_parent SET a = 12 WHERE id = 2

query
SELECT x, y FROM con_pair ORDER BY x NULLS LAST, y
----
10|NULL
12|21
99|NULL
NULL|NULL

# Changing a referenced key that is still referenced (NO ACTION); other
# columns may change.
error 23503
UPDATE con_parent SET id = 20 WHERE id = 2

statement ok
UPDATE con_parent SET code = 'deux' WHERE id = 2

# ON CONFLICT DO UPDATE runs the checks too.
error 23514
INSERT INTO con_child VALUES (3, 2, 7, 'c') ON CONFLICT (id) DO UPDATE SET qty = -7

error 23503
INSERT INTO con_child VALUES (3, 2, 7, 'c') ON CONFLICT (id) DO UPDATE SET pid = 42

# ALTER TABLE ADD CONSTRAINT checks the rows already there, unless NOT VALID.
error 23514
ALTER TABLE con_child ADD CONSTRAINT note_short CHECK (length(note) < 5)

statement ok
ALTER TABLE con_child ADD CONSTRAINT note_short CHECK (length(note) < 5) NOT VALID

error 23514
INSERT INTO con_child VALUES (6, 2, 1, 'too long')

statement ok
ALTER TABLE con_child ADD CHECK (id < 1000)

error 42710
ALTER TABLE con_child ADD CONSTRAINT note_short CHECK (true)

statement ok
CREATE TABLE con_late (id int, ref int)

statement ok
INSERT INTO con_late VALUES (1, 2), (2, 77)

error 23503
ALTER TABLE con_late ADD FOREIGN KEY (ref) REFERENCES con_parent

statement ok
DELETE FROM con_late WHERE ref = 77

statement ok
ALTER TABLE con_late ADD FOREIGN KEY (ref) REFERENCES con_parent

query
SELECT conname, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid IN ('con_child'::regclass, 'con_late'::regclass) AND contype IN ('c', 'f') ORDER BY conname
----
con_child_both|CHECK (qty < 100 AND id > 0)
con_child_id_check|CHECK (id < 1000)
con_child_pid_fkey|FOREIGN KEY (pid) REFERENCES con_parent(id) ON DELETE CASCADE
con_child_qty_check|CHECK (qty > 0)
con_late_ref_fkey|FOREIGN KEY (ref) REFERENCES con_parent(id)
note_short|CHECK (length(note) < 5) NOT VALID

# Foreign keys need a unique index on the referenced columns and matching
# column counts and types.
error 42830
CREATE TABLE con_bad (v int REFERENCES con_parent (b))

error 42830
CREATE TABLE con_bad (v int, FOREIGN KEY (v) REFERENCES con_parent (a, b))

error 42804
CREATE TABLE con_bad (v text REFERENCES con_parent (id))

error 42703
CREATE TABLE con_bad (v int REFERENCES con_parent (nope))

error 42P01
CREATE TABLE con_bad (v int REFERENCES no_such_table)

error 42703
CREATE TABLE con_bad (v int CHECK (nope > 0))

# Dropping constraints: a primary key or unique constraint that a foreign
# key uses, or the index of a constraint, cannot be dropped.
error 42704
ALTER TABLE con_child DROP CONSTRAINT nope

statement ok
ALTER TABLE con_child DROP CONSTRAINT IF EXISTS nope

statement ok
ALTER TABLE con_child DROP CONSTRAINT con_child_qty_check

statement ok
INSERT INTO con_child VALUES (7, 2, -3, 'neg')

error 2BP01
ALTER TABLE con_parent DROP CONSTRAINT con_parent_pkey

error 2BP01
DROP INDEX con_parent_code_key

statement ok
ALTER TABLE con_late DROP CONSTRAINT con_late_ref_fkey

statement ok
INSERT INTO con_late VALUES (3, 12345)

# TRUNCATE and DROP TABLE of a referenced table; CASCADE drops the foreign
# keys, and relhastriggers stays set as in PostgreSQL.
error 0A000
TRUNCATE con_parent

error 2BP01
DROP TABLE con_parent

statement ok
DROP TABLE con_strict

statement ok
DROP TABLE con_parent CASCADE

query
SELECT conrelid::regclass, conname FROM pg_constraint WHERE conrelid IN ('con_child'::regclass, 'con_pair'::regclass) ORDER BY 1, 2
----
con_child|con_child_both
con_child|con_child_id_check
con_child|con_child_pkey
con_child|note_short

statement ok
INSERT INTO con_child VALUES (8, 4242, 1, 'free')

query
SELECT relname, relhastriggers FROM pg_class WHERE relname IN ('con_child', 'con_pair') ORDER BY 1
----
con_child|t
con_pair|t

# NO ACTION is checked when the statement ends: a self-referencing table
# can lose a whole subtree in one statement, not its root alone.
statement ok
CREATE TABLE con_tree (id int PRIMARY KEY, parent int REFERENCES con_tree)

statement ok
INSERT INTO con_tree VALUES (1, NULL), (2, 1), (3, 2)

error 23503
DELETE FROM con_tree WHERE id = 1

statement ok
DELETE FROM con_tree WHERE id IN (2, 3)

statement ok
INSERT INTO con_tree VALUES (2, 1), (3, 2)

statement ok
UPDATE con_tree SET id = id WHERE id = 1

error 23503
UPDATE con_tree SET id = id + 10 WHERE id = 1

statement ok
DELETE FROM con_tree

query
SELECT count(*) FROM con_tree
----
0

# Automatic CHECK names use the column only when the expression has exactly
# one; subqueries, aggregates and non-boolean expressions are refused.
statement ok
CREATE TABLE con_names (a int CHECK (a > 0), b int CHECK (a < b), c text, CHECK (length(c) < 5 OR b > 2), CHECK (NOT (c = 'x')), CHECK (c IS NOT NULL))

query
SELECT conname, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'con_names'::regclass ORDER BY conname
----
con_names_a_check|CHECK (a > 0)
con_names_c_check|CHECK (NOT c = 'x'::text)
con_names_c_check1|CHECK (c IS NOT NULL)
con_names_check|CHECK (a < b)
con_names_check1|CHECK (length(c) < 5 OR b > 2)

error 0A000
CREATE TABLE con_bad (a int CHECK ((SELECT 1) > 0))

error 42803
CREATE TABLE con_bad (a int CHECK (count(*) > 0))

error 42804
CREATE TABLE con_bad (a int CHECK (a + 1))

# VALIDATE CONSTRAINT checks the rows a NOT VALID constraint skipped.
statement ok
CREATE TABLE con_val (a int, r int)

statement ok
INSERT INTO con_val VALUES (-1, 99)

statement ok
ALTER TABLE con_val ADD CONSTRAINT con_val_pos CHECK (a > 0) NOT VALID

statement ok
ALTER TABLE con_val ADD CONSTRAINT con_val_ref FOREIGN KEY (r) REFERENCES con_child NOT VALID

error 23514
ALTER TABLE con_val VALIDATE CONSTRAINT con_val_pos

error 23503
ALTER TABLE con_val VALIDATE CONSTRAINT con_val_ref

error 42704
ALTER TABLE con_val VALIDATE CONSTRAINT nope

statement ok
UPDATE con_val SET a = 1, r = NULL

statement ok
ALTER TABLE con_val VALIDATE CONSTRAINT con_val_pos

statement ok
ALTER TABLE con_val VALIDATE CONSTRAINT con_val_ref

query
SELECT conname, convalidated, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'con_val'::regclass ORDER BY conname
----
con_val_pos|t|CHECK ((a > 0))
con_val_ref|t|FOREIGN KEY (r) REFERENCES con_child(id)

statement ok
DROP TABLE con_val
