# Savepoints (subtransactions): nesting, RELEASE, ROLLBACK TO after an
# error, reused names, writes inside them, what they undo (rows, catalog
# changes, settings) and what they do not (sequences), the errors of
# misuse, read-only transactions and COMMIT/ROLLBACK AND CHAIN. Expected
# results are PostgreSQL 15's.

statement ok
CREATE TABLE sp (a int PRIMARY KEY, b text)

# The issue's sequence: rows 1 and 3 only.
statement ok
BEGIN

statement ok
INSERT INTO sp VALUES (1, 'one')

statement ok
SAVEPOINT s

statement ok
INSERT INTO sp VALUES (2, 'two')

statement ok
ROLLBACK TO s

statement ok
INSERT INTO sp VALUES (3, 'three')

statement ok
COMMIT

query
SELECT a, b FROM sp ORDER BY a
----
1|one
3|three

# Nesting: an inner savepoint released into an outer one that is rolled
# back takes the inner rows with it.
statement ok
BEGIN

statement ok
SAVEPOINT outer_sp

statement ok
INSERT INTO sp VALUES (10, 'ten')

statement ok
SAVEPOINT inner_sp

statement ok
INSERT INTO sp VALUES (11, 'eleven')

statement ok
RELEASE inner_sp

query
SELECT count(*) FROM sp WHERE a >= 10
----
2

statement ok
ROLLBACK TO SAVEPOINT outer_sp

query
SELECT count(*) FROM sp WHERE a >= 10
----
0

statement ok
INSERT INTO sp VALUES (12, 'twelve')

statement ok
COMMIT

query
SELECT a FROM sp WHERE a >= 10 ORDER BY a
----
12

# An error inside a savepoint fails the block until ROLLBACK TO; the
# duplicate key can then be inserted again with another value.
statement ok
BEGIN

statement ok
INSERT INTO sp VALUES (20, 'twenty')

statement ok
SAVEPOINT s1

error 23505
INSERT INTO sp VALUES (20, 'again')

error 25P02
SELECT 1

error 25P02
SAVEPOINT s2

error 25P02
RELEASE s1

statement ok
ROLLBACK TO s1

query
SELECT b FROM sp WHERE a = 20
----
twenty

statement ok
UPDATE sp SET b = 'twenty, updated' WHERE a = 20

statement ok
COMMIT

query
SELECT b FROM sp WHERE a = 20
----
twenty, updated

# ROLLBACK TO keeps the savepoint: it can be rolled back to again, and
# then released.
statement ok
BEGIN

statement ok
SAVEPOINT again

statement ok
INSERT INTO sp VALUES (30, 'x')

statement ok
ROLLBACK TO again

statement ok
INSERT INTO sp VALUES (31, 'y')

statement ok
ROLLBACK TO again

statement ok
INSERT INTO sp VALUES (32, 'z')

statement ok
RELEASE again

statement ok
COMMIT

query
SELECT a FROM sp WHERE a BETWEEN 30 AND 39 ORDER BY a
----
32

# A reused name shadows the older savepoint until it is released.
statement ok
BEGIN

statement ok
SAVEPOINT dup

statement ok
INSERT INTO sp VALUES (40, 'first')

statement ok
SAVEPOINT dup

statement ok
INSERT INTO sp VALUES (41, 'second')

statement ok
ROLLBACK TO dup

query
SELECT a FROM sp WHERE a >= 40 ORDER BY a
----
40

statement ok
RELEASE dup

statement ok
ROLLBACK TO dup

query
SELECT count(*) FROM sp WHERE a >= 40
----
0

statement ok
COMMIT

# Updates and deletes inside savepoints, undone and kept.
statement ok
BEGIN

statement ok
SAVEPOINT u

statement ok
UPDATE sp SET b = 'changed' WHERE a = 1

statement ok
DELETE FROM sp WHERE a = 3

statement ok
ROLLBACK TO u

query
SELECT a, b FROM sp WHERE a < 10 ORDER BY a
----
1|one
3|three

statement ok
UPDATE sp SET b = 'kept' WHERE a = 1

statement ok
SAVEPOINT v

statement ok
UPDATE sp SET b = 'kept twice' WHERE a = 1

statement ok
RELEASE v

statement ok
COMMIT

query
SELECT b FROM sp WHERE a = 1
----
kept twice

# Catalog changes: a table created in a rolled-back savepoint is gone, one
# dropped in it is back.
statement ok
BEGIN

statement ok
SAVEPOINT ddl

statement ok
CREATE TABLE sp_gone (x int)

statement ok
INSERT INTO sp_gone VALUES (1)

statement ok
DROP TABLE sp

statement ok
ROLLBACK TO ddl

error 42P01
SELECT * FROM sp_gone

statement ok
ROLLBACK TO ddl

query
SELECT count(*) FROM sp
----
5

statement ok
CREATE TABLE sp_kept (x int)

statement ok
COMMIT

query
SELECT count(*) FROM sp_kept
----
0

error 42P01
SELECT * FROM sp_gone

# Sequences are not transactional: nextval inside a rolled-back savepoint
# still counts.
statement ok
CREATE SEQUENCE sp_seq

statement ok
BEGIN

statement ok
SAVEPOINT q

query
SELECT nextval('sp_seq')
----
1

statement ok
ROLLBACK TO q

query
SELECT nextval('sp_seq')
----
2

statement ok
COMMIT

# Settings: SET inside a rolled-back savepoint is undone, inside a released
# one kept; SET LOCAL ends with the transaction; a rolled-back transaction
# undoes SET.
statement ok
BEGIN

statement ok
SET work_mem = '5MB'

statement ok
SAVEPOINT g

statement ok
SET work_mem = '6MB'

statement ok
ROLLBACK TO g

query
SHOW work_mem
----
5MB

statement ok
SET work_mem = '7MB'

statement ok
RELEASE g

statement ok
SET LOCAL statement_timeout = '3s'

statement ok
COMMIT

query
SHOW work_mem
----
7MB

query
SHOW statement_timeout
----
0

statement ok
BEGIN

statement ok
SET work_mem = '9MB'

statement ok
ROLLBACK

query
SHOW work_mem
----
7MB

statement ok
BEGIN

statement ok
SET work_mem = '10MB'

statement ok
SET LOCAL work_mem = '11MB'

query
SHOW work_mem
----
11MB

statement ok
COMMIT

query
SHOW work_mem
----
10MB

statement ok
RESET work_mem

# Misuse: outside a block, unknown names.
error 25P01
SAVEPOINT nope

error 25P01
RELEASE SAVEPOINT nope

error 25P01
ROLLBACK TO SAVEPOINT nope

statement ok
BEGIN

error 3B001
RELEASE nope

error 25P02
SELECT 1

statement ok
ROLLBACK

statement ok
BEGIN

error 3B001
ROLLBACK TO nope

statement ok
ROLLBACK

# An error outside every savepoint leaves nothing to roll back to.
statement ok
BEGIN

statement ok
SAVEPOINT before

statement ok
RELEASE before

error 22012
SELECT 1/0

error 3B001
ROLLBACK TO before

statement ok
ROLLBACK

# COMMIT of a failed block is a ROLLBACK: nothing of it stays.
statement ok
BEGIN

statement ok
INSERT INTO sp VALUES (50, 'lost')

statement ok
SAVEPOINT f

error 22012
SELECT 1/0

statement ok
COMMIT

query
SELECT count(*) FROM sp WHERE a = 50
----
0

# COMMIT with savepoints still open commits them.
statement ok
BEGIN

statement ok
SAVEPOINT open1

statement ok
INSERT INTO sp VALUES (60, 'open')

statement ok
SAVEPOINT open2

statement ok
INSERT INTO sp VALUES (61, 'open')

statement ok
COMMIT

query
SELECT count(*) FROM sp WHERE a IN (60, 61)
----
2

# Read-only transactions.
statement ok
START TRANSACTION READ ONLY

query
SHOW transaction_read_only
----
on

error 25006
INSERT INTO sp VALUES (70, 'ro')

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
SET TRANSACTION READ ONLY

error 25006
UPDATE sp SET b = 'ro' WHERE a = 1

statement ok
ROLLBACK

statement ok
BEGIN READ ONLY

error 25006
CREATE TABLE sp_ro (x int)

statement ok
ROLLBACK

statement ok
BEGIN READ ONLY

error 25006
SELECT nextval('sp_seq')

statement ok
ROLLBACK

statement ok
BEGIN

query
SELECT count(*) FROM sp
----
7

error 25001
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
SAVEPOINT ro

statement ok
SET TRANSACTION READ ONLY

error 25001
SET TRANSACTION READ WRITE

statement ok
ROLLBACK TO ro

query
SHOW transaction_read_only
----
off

statement ok
ROLLBACK

statement ok
SET default_transaction_read_only = on

error 25006
INSERT INTO sp VALUES (71, 'ro')

statement ok
START TRANSACTION READ WRITE

statement ok
INSERT INTO sp VALUES (71, 'rw')

statement ok
COMMIT

statement ok
RESET default_transaction_read_only

# AND CHAIN keeps the transaction's modes.
statement ok
START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY

statement ok
COMMIT AND CHAIN

query
SHOW transaction_isolation
----
repeatable read

query
SHOW transaction_read_only
----
on

statement ok
ROLLBACK AND CHAIN

query
SHOW transaction_isolation
----
repeatable read

statement ok
COMMIT

error 25P01
COMMIT AND CHAIN

error 25P01
ROLLBACK AND CHAIN

# PREPARE TRANSACTION, with PostgreSQL's default max_prepared_transactions = 0.
statement ok
BEGIN

statement ok
INSERT INTO sp VALUES (80, 'prepared')

error 55000
PREPARE TRANSACTION 'gid1'

query
SELECT count(*) FROM sp WHERE a = 80
----
0

error 42704
COMMIT PREPARED 'gid1'

statement ok
DROP TABLE sp

statement ok
DROP TABLE sp_kept

statement ok
DROP SEQUENCE sp_seq
