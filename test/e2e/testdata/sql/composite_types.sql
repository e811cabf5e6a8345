# Composite types as PostgreSQL 15: CREATE TYPE … AS (…), record_in and
# record_out (quoting, NULL fields, malformed literals), ROW(…) casts,
# field selection, composite columns, comparison and ordering, DROP TYPE.

statement ok
CREATE TYPE ct_complex AS (r float8, i float8)

statement ok
CREATE TYPE ct_name AS (first text, last text)

statement ok
CREATE TYPE ct_quad AS (c1 ct_complex, c2 ct_complex)

query
SELECT t.typtype, t.typcategory, c.relkind, a.typname FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid JOIN pg_type a ON a.oid = t.typarray WHERE t.typname = 'ct_complex'
----
c|C|c|_ct_complex

query
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = (SELECT typrelid FROM pg_type WHERE typname = 'ct_quad') ORDER BY attnum
----
c1|ct_complex
c2|ct_complex

query
SELECT (1.5,2)::ct_complex, ROW((3.3,4.4),(5.5,NULL))::ct_quad, '(Joe,"von Blow")'::ct_name, '(Joe,)'::ct_name
----
(1.5,2)|("(3.3,4.4)","(5.5,)")|(Joe,"von Blow")|(Joe,)

query
SELECT '(Joe,"a""b")'::ct_name, E'(Joe,d\\\\Blow)'::ct_name, ' (a,b) '::ct_name
----
(Joe,"a""b")|(Joe,"d\\Blow")|(a,b)

error 22P02
SELECT '(Joe)'::ct_name

error 22P02
SELECT '(Joe,Blow) /'::ct_name

error 42846
SELECT ROW(1, 2, 3)::ct_complex

statement ok
CREATE TABLE ct_t (id int, q ct_quad)

statement ok
INSERT INTO ct_t VALUES (1, ((3.3,4.4),(5.5,6.6))), (2, ((NULL,4.4),(5.5,6.6))), (3, '("(1,2)","(3,4)")'), (4, NULL)

query
SELECT id, q, (q).c1, (q).c1.i, ((q).c2).r FROM ct_t ORDER BY id
----
1|("(3.3,4.4)","(5.5,6.6)")|(3.3,4.4)|4.4|5.5
2|("(,4.4)","(5.5,6.6)")|(,4.4)|4.4|5.5
3|("(1,2)","(3,4)")|(1,2)|2|3
4|NULL|NULL|NULL|NULL

query
SELECT id FROM ct_t WHERE (q).c1 = ROW(1, 2)::ct_complex
----
3

query
SELECT id FROM ct_t WHERE q IS NOT NULL ORDER BY q DESC
----
2
1
3

query
SELECT pg_typeof(q), pg_typeof((q).c1), pg_typeof(((q).c1).r) FROM ct_t WHERE id = 1
----
ct_quad|ct_complex|double precision

error 0A000
SELECT id FROM ct_t WHERE (q).c1 = '(1,2)'

error 2BP01
DROP TYPE ct_complex

statement ok
DROP TABLE ct_t

statement ok
DROP TYPE ct_quad

statement ok
DROP TYPE ct_complex, ct_name

query
SELECT count(*) FROM pg_type WHERE typname IN ('ct_complex', 'ct_name', 'ct_quad', '_ct_complex', '_ct_name', '_ct_quad')
----
0
