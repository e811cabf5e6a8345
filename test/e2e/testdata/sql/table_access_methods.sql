# Table access methods at the SQL level: CREATE TABLE … USING,
# default_table_access_method (its check: unknown, empty, an index AM),
# pg_class.relam and pg_am, CREATE TABLE AS … USING, ALTER TABLE … SET
# ACCESS METHOD (to the table's own AM: nothing to do, as PostgreSQL 15;
# on an index or sequence: 42809; unknown: 42704; an index AM: 55000).
# Expected results are PostgreSQL 15's.
#
# The script is about the built-in default (heap), so its servers keep it
# when the suite runs with another default AM (TIDAL_TEST_TABLE_AM=undo):
# server: default_table_access_method=heap

# Without USING: default_table_access_method's default, heap.
statement ok
CREATE TABLE tam_plain (a int)

query
SELECT relam FROM pg_class WHERE relname = 'tam_plain'
----
2

error 42704
CREATE TABLE tam_bad (a int) USING nosuch

error 55000
CREATE TABLE tam_bad (a int) USING btree

statement ok
CREATE TABLE tam_t (a int, b text) USING heap

statement ok
CREATE INDEX tam_t_a ON tam_t (a)

statement ok
INSERT INTO tam_t VALUES (1, 'x'), (2, 'y')

query
SELECT c.relname, c.relam, a.amname FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam WHERE c.relname IN ('tam_t', 'tam_t_a') ORDER BY c.relname
----
tam_t|2|heap
tam_t_a|403|btree

query
SELECT amname, amtype FROM pg_am WHERE amname IN ('heap', 'btree') ORDER BY oid
----
heap|t
btree|i

error 22023
SET default_table_access_method = 'nosuch'

error 22023
SET default_table_access_method = ''

error 22023
SET default_table_access_method = 'HEAP'

error 55000
SET default_table_access_method = 'btree'

query
SHOW default_table_access_method
----
heap

statement ok
SET default_table_access_method = heap

statement ok
CREATE TABLE tam_default (a int)

query
SELECT relam FROM pg_class WHERE relname = 'tam_default'
----
2

statement ok
CREATE TABLE tam_ctas USING heap AS SELECT a, b FROM tam_t

query
SELECT a.amname, (SELECT count(*) FROM tam_ctas) FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'tam_ctas'
----
heap|2

error 42704
CREATE TABLE tam_bad USING nosuch AS SELECT 1

statement ok
CREATE TEMP TABLE tam_temp (a int) USING heap

query
SELECT relam FROM pg_class WHERE relname = 'tam_temp'
----
2

# The table's own access method: nothing changes, not even its files.
statement ok
CREATE TABLE tam_node AS SELECT relfilenode AS before FROM pg_class WHERE relname = 'tam_t'

statement ok
ALTER TABLE tam_t SET ACCESS METHOD heap

statement ok
ALTER TABLE tam_t SET ACCESS METHOD heap, SET ACCESS METHOD heap

query
SELECT c.relfilenode = n.before FROM pg_class c, tam_node n WHERE c.relname = 'tam_t'
----
t

query
SELECT * FROM tam_t ORDER BY a
----
1|x
2|y

error 42704
ALTER TABLE tam_t SET ACCESS METHOD nosuch

error 55000
ALTER TABLE tam_t SET ACCESS METHOD btree

error 42809
ALTER TABLE tam_t_a SET ACCESS METHOD heap

error 42809
ALTER INDEX tam_t_a SET ACCESS METHOD heap

statement ok
CREATE SEQUENCE tam_seq

query
SELECT relam FROM pg_class WHERE relname = 'tam_seq'
----
0

error 42809
ALTER TABLE tam_seq SET ACCESS METHOD heap

# A refused ALTER aborts the block, as any error.
statement ok
BEGIN

error 42704
ALTER TABLE tam_t SET ACCESS METHOD nosuch

error 25P02
SELECT 1

statement ok
ROLLBACK

query
SELECT count(*) FROM tam_t
----
2
