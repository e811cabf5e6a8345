# Enum types as PostgreSQL 15: CREATE TYPE … AS ENUM, pg_enum,
# ALTER TYPE ADD VALUE [BEFORE | AFTER] / RENAME VALUE, input errors,
# ordering by sort order (ORDER BY, comparisons, a unique B-tree index),
# casts to and from text, enum_first / enum_last / enum_range.

statement ok
CREATE TYPE en_color AS ENUM ('red', 'green', 'blue')

query
SELECT t.typtype, t.typcategory, a.typname, a.typelem::regtype FROM pg_type t JOIN pg_type a ON a.oid = t.typarray WHERE t.typname = 'en_color'
----
e|E|_en_color|en_color

query
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'en_color'::regtype ORDER BY enumsortorder
----
red|1
green|2
blue|3

# Sort orders of new labels fall between their neighbours'.
statement ok
ALTER TYPE en_color ADD VALUE 'crimson' BEFORE 'red'

statement ok
ALTER TYPE en_color ADD VALUE 'lime' AFTER 'green'

statement ok
ALTER TYPE en_color ADD VALUE 'teal' BEFORE 'blue'

statement ok
ALTER TYPE en_color ADD VALUE 'navy'

query
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'en_color'::regtype ORDER BY enumlabel::en_color
----
crimson|0
red|1
green|2
lime|2.5
teal|2.75
blue|3
navy|4

error 42710
ALTER TYPE en_color ADD VALUE 'navy'

statement ok
ALTER TYPE en_color ADD VALUE IF NOT EXISTS 'navy'

error 22023
ALTER TYPE en_color ADD VALUE 'pink' AFTER 'nosuch'

error 22P02
SELECT 'mauve'::en_color

statement ok
CREATE TABLE en_t (id int, c en_color)

statement ok
INSERT INTO en_t VALUES (1, 'blue'), (2, 'crimson'), (3, 'lime'), (4, 'red'), (5, NULL)

error 22P02
INSERT INTO en_t VALUES (6, 'purple')

query
SELECT id, c FROM en_t ORDER BY c, id
----
2|crimson
4|red
3|lime
1|blue
5|NULL

query
SELECT id FROM en_t WHERE c > 'red' AND c <= 'blue' ORDER BY id
----
1
3

query
SELECT c, count(*) FROM en_t WHERE c IS NOT NULL GROUP BY c ORDER BY c DESC
----
blue|1
lime|1
red|1
crimson|1

statement ok
CREATE UNIQUE INDEX en_t_c ON en_t (c)

error 23505
INSERT INTO en_t VALUES (7, 'red')

query
SELECT c::text || '!', 'green'::text::en_color, 'teal'::en_color < 'blue'::en_color FROM en_t WHERE id = 1
----
blue!|green|t

query
SELECT enum_first(NULL::en_color), enum_last(NULL::en_color), enum_range('red'::en_color, 'teal'::en_color)
----
crimson|navy|{red,green,lime,teal}

# RENAME VALUE renames the stored values too.
statement ok
ALTER TYPE en_color RENAME VALUE 'red' TO 'scarlet'

query
SELECT id, c FROM en_t WHERE id = 4
----
4|scarlet

error 22023
ALTER TYPE en_color RENAME VALUE 'red' TO 'ruby'

error 42710
ALTER TYPE en_color RENAME VALUE 'scarlet' TO 'blue'

# A domain over an enum.
statement ok
CREATE DOMAIN en_warm AS en_color CHECK (VALUE IN ('crimson', 'scarlet'))

query
SELECT 'crimson'::en_warm
----
crimson

error 23514
SELECT 'blue'::en_warm

error 2BP01
DROP TYPE en_color

statement ok
DROP DOMAIN en_warm

statement ok
DROP TABLE en_t

statement ok
DROP TYPE en_color

query
SELECT count(*) FROM pg_enum e LEFT JOIN pg_type t ON t.oid = e.enumtypid WHERE t.oid IS NULL
----
0
