# CREATE DOMAIN as PostgreSQL 15: pg_type rows (typtype 'd', typbasetype,
# typnotnull, typdefault) with their array types, CHECK constraints in
# pg_constraint, enforcement where a value becomes the domain's (casts,
# INSERT, UPDATE, defaults), ALTER DOMAIN and DROP with dependents.

statement ok
CREATE DOMAIN dom_short AS varchar(5)

statement ok
CREATE DOMAIN dom_pos AS int CONSTRAINT dom_pos_positive CHECK (VALUE > 0)

statement ok
CREATE DOMAIN dom_tag AS text NOT NULL DEFAULT 'none' CHECK (length(VALUE) < 10)

statement ok
CREATE DOMAIN dom_small AS dom_pos CHECK (VALUE < 100)

query
SELECT t.typname, t.typtype, t.typbasetype::regtype, t.typnotnull, t.typdefault, a.typname, a.typelem::regtype FROM pg_type t JOIN pg_type a ON a.oid = t.typarray WHERE t.typname LIKE 'dom\_%' ORDER BY 1
----
dom_pos|d|integer|f|NULL|_dom_pos|dom_pos
dom_short|d|character varying|f|NULL|_dom_short|dom_short
dom_small|d|dom_pos|f|NULL|_dom_small|dom_small
dom_tag|d|text|t|'none'::text|_dom_tag|dom_tag

query
SELECT conname, contype, contypid::regtype, conrelid, convalidated, pg_get_constraintdef(oid) FROM pg_constraint WHERE contypid IN ('dom_pos'::regtype, 'dom_tag'::regtype) ORDER BY 1
----
dom_pos_positive|c|dom_pos|0|t|CHECK ((VALUE > 0))
dom_tag_check|c|dom_tag|0|t|CHECK ((length(VALUE) < 10))

# An explicit cast truncates to the base type's length, then checks.
query
SELECT CAST('abcdefg' AS dom_short), 5::dom_pos, 50::dom_small
----
abcde|5|50

error 23514
SELECT 0::dom_pos

# The domain over a domain checks both levels.
error 23514
SELECT 0::dom_small

error 23514
SELECT 500::dom_small

error 23502
SELECT NULL::dom_tag

statement ok
CREATE TABLE dom_t (id int, s dom_short, p dom_small, tag dom_tag)

# A column without a default gets the domain's.
statement ok
INSERT INTO dom_t (id, s, p) VALUES (1, 'ab', 7)

error 22001
INSERT INTO dom_t (id, s) VALUES (2, 'toolong')

error 23514
INSERT INTO dom_t (id, p) VALUES (3, -1)

error 23502
INSERT INTO dom_t VALUES (4, 'x', 1, NULL)

query
SELECT id, s, p, tag FROM dom_t ORDER BY id
----
1|ab|7|none

error 23514
UPDATE dom_t SET p = p * 100

statement ok
UPDATE dom_t SET p = p + 1, tag = 'set'

query
SELECT id, p + 1, tag || '!' FROM dom_t
----
1|9|set!

# ALTER DOMAIN checks the values columns of the domain hold.
error 23514
ALTER DOMAIN dom_pos ADD CONSTRAINT dom_pos_tiny CHECK (VALUE < 5)

statement ok
ALTER DOMAIN dom_pos ADD CONSTRAINT dom_pos_tiny CHECK (VALUE < 5) NOT VALID

query
SELECT conname, convalidated FROM pg_constraint WHERE contypid = 'dom_pos'::regtype ORDER BY 1
----
dom_pos_positive|t
dom_pos_tiny|f

error 23514
ALTER DOMAIN dom_pos VALIDATE CONSTRAINT dom_pos_tiny

error 23514
SELECT 6::dom_small

statement ok
ALTER DOMAIN dom_pos DROP CONSTRAINT dom_pos_tiny

error 42704
ALTER DOMAIN dom_pos DROP CONSTRAINT dom_pos_tiny

statement ok
ALTER DOMAIN dom_pos DROP CONSTRAINT IF EXISTS dom_pos_tiny

statement ok
ALTER DOMAIN dom_tag DROP NOT NULL

statement ok
INSERT INTO dom_t (id, tag) VALUES (5, NULL)

error 23502
ALTER DOMAIN dom_tag SET NOT NULL

statement ok
ALTER DOMAIN dom_tag SET DEFAULT 'other'

statement ok
INSERT INTO dom_t (id) VALUES (6)

query
SELECT id, tag FROM dom_t WHERE id > 4 ORDER BY id
----
5|NULL
6|other

# A DDL error rolls back with its transaction.
statement ok
BEGIN

statement ok
ALTER DOMAIN dom_short RENAME TO dom_renamed

statement ok
ROLLBACK

query
SELECT count(*) FROM pg_type WHERE typname = 'dom_renamed'
----
0

error 42710
CREATE DOMAIN dom_pos AS int

error 42704
CREATE DOMAIN dom_bad AS no_such_type

# Columns and domains over a domain keep it from being dropped.
error 2BP01
DROP DOMAIN dom_pos

statement ok
DROP DOMAIN dom_pos CASCADE

query
SELECT attname FROM pg_attribute WHERE attrelid = 'dom_t'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum
----
id
s
tag

query
SELECT count(*) FROM pg_type WHERE typname IN ('dom_pos', 'dom_small', '_dom_pos', '_dom_small')
----
0

statement ok
DROP TABLE dom_t

statement ok
DROP DOMAIN dom_short, dom_tag

error 42704
DROP DOMAIN dom_short

statement ok
DROP DOMAIN IF EXISTS dom_short
