# User views: CREATE [OR REPLACE] VIEW, expansion in queries, pg_depend
# through DROP, pg_get_viewdef, auto-updatable views with CHECK OPTION,
# materialized views.

statement ok
CREATE TABLE vt (a int, b text, c numeric)

statement ok
INSERT INTO vt VALUES (1, 'x', 1.5), (2, 'y', 2.5), (3, 'z', 3.5)

statement ok
CREATE VIEW vv AS SELECT a, b AS bb, 'k' AS k, a + 1 AS s FROM vt WHERE a > 1 AND b <> 'z' ORDER BY a

query
SELECT * FROM vv
----
2|y|k|3

query
SELECT pg_get_viewdef('vv'::regclass)
----
 SELECT vt.a,
    vt.b AS bb,
    'k'::text AS k,
    (vt.a + 1) AS s
   FROM vt
  WHERE ((vt.a > 1) AND (vt.b <> 'z'::text))
  ORDER BY vt.a;

query
SELECT pg_get_viewdef('vv', true)
----
 SELECT vt.a,
    vt.b AS bb,
    'k'::text AS k,
    vt.a + 1 AS s
   FROM vt
  WHERE vt.a > 1 AND vt.b <> 'z'::text
  ORDER BY vt.a;

query
SELECT relkind, relhasrules FROM pg_class WHERE relname = 'vv'
----
v|t

query
SELECT attname, atttypid::regtype FROM pg_attribute WHERE attrelid = 'vv'::regclass ORDER BY attnum
----
a|integer
bb|text
k|text
s|integer

# A star means the columns the table had at CREATE VIEW.
statement ok
CREATE VIEW vstar AS SELECT * FROM vt

statement ok
ALTER TABLE vt ADD COLUMN d int

query
SELECT * FROM vstar ORDER BY a
----
1|x|1.5
2|y|2.5
3|z|3.5

query
SELECT v.a, w.s FROM vstar v JOIN vv w ON v.a = w.a
----
2|3

statement ok
CREATE VIEW vagg AS SELECT vt.a, count(*) FROM vt JOIN vv ON vt.a = vv.a GROUP BY vt.a HAVING count(*) > 0

query
SELECT pg_get_viewdef('vagg')
----
 SELECT vt.a,
    count(*) AS count
   FROM (vt
     JOIN vv ON ((vt.a = vv.a)))
  GROUP BY vt.a
 HAVING (count(*) > 0);

error 2BP01
DROP TABLE vt

error 2BP01
DROP VIEW vv

error 42809
DROP TABLE vv

error 42601
CREATE VIEW vbad (x, y) AS SELECT 1

# OR REPLACE may only add columns at the end.
error 42P16
CREATE OR REPLACE VIEW vstar AS SELECT a, b FROM vt

error 42P16
CREATE OR REPLACE VIEW vstar AS SELECT a, c AS b, b AS c FROM vt

error 42P16
CREATE OR REPLACE VIEW vstar AS SELECT a, b, c::int AS c FROM vt

statement ok
CREATE OR REPLACE VIEW vstar AS SELECT a, b, c, d FROM vt

query
SELECT count(*) FROM pg_attribute WHERE attrelid = 'vstar'::regclass
----
4

error 22023
CREATE VIEW vopt WITH (invalid_option) AS SELECT 1

statement ok
CREATE VIEW vopt WITH (security_barrier) AS SELECT 1 AS one

query
SELECT reloptions FROM pg_class WHERE relname = 'vopt'
----
{security_barrier=true}

query
SELECT viewname FROM pg_views WHERE schemaname = current_schema() ORDER BY 1
----
vagg
vopt
vstar
vv

statement ok
DROP VIEW IF EXISTS nosuchview

statement ok
DROP TABLE vt CASCADE

query
SELECT count(*) FROM pg_class WHERE relname IN ('vv', 'vstar', 'vagg')
----
0

# Auto-updatable views.
statement ok
CREATE TABLE base (a int PRIMARY KEY, b text)

statement ok
CREATE VIEW rw AS SELECT b AS bee, a FROM base WHERE a < 10 WITH CHECK OPTION

statement ok
INSERT INTO rw VALUES ('one', 1), ('two', 2)

statement ok
INSERT INTO rw (a) VALUES (3)

error 44000
INSERT INTO rw VALUES ('fifty', 50)

error 44000
UPDATE rw SET a = a + 100 WHERE a = 1

query
UPDATE rw SET bee = 'TWO' WHERE a = 2 RETURNING *
----
TWO|2

query
DELETE FROM rw WHERE bee IS NULL RETURNING a
----
3

query
SELECT * FROM base ORDER BY a
----
1|one
2|TWO

statement ok
CREATE VIEW ro AS SELECT a, count(*) AS n FROM base GROUP BY a

error 55000
INSERT INTO ro VALUES (5)

error 55000
DELETE FROM ro

statement ok
CREATE VIEW rwexpr AS SELECT a, upper(b) AS ub FROM base

error 0A000
UPDATE rwexpr SET ub = 'x'

statement ok
UPDATE rwexpr SET a = 20 WHERE ub = 'TWO'

query
SELECT * FROM base ORDER BY a
----
1|one
20|TWO

error 0A000
CREATE VIEW badcheck AS SELECT DISTINCT a FROM base WITH CHECK OPTION

# Materialized views.
statement ok
CREATE MATERIALIZED VIEW mv AS SELECT a, b FROM base

statement ok
INSERT INTO base VALUES (7, 'seven')

query
SELECT * FROM mv ORDER BY a
----
1|one
20|TWO

statement ok
REFRESH MATERIALIZED VIEW mv

query
SELECT * FROM mv ORDER BY a
----
1|one
7|seven
20|TWO

error 42809
INSERT INTO mv VALUES (9, 'nine')

statement ok
CREATE MATERIALIZED VIEW mvempty AS SELECT a FROM base WITH NO DATA

error 55000
SELECT * FROM mvempty

error 0A000
REFRESH MATERIALIZED VIEW CONCURRENTLY mvempty

statement ok
REFRESH MATERIALIZED VIEW mvempty

query
SELECT count(*) FROM mvempty
----
3

error 55000
REFRESH MATERIALIZED VIEW CONCURRENTLY mv

statement ok
CREATE UNIQUE INDEX mv_a ON mv (a)

statement ok
REFRESH MATERIALIZED VIEW CONCURRENTLY mv

query
SELECT relname, relkind, relispopulated FROM pg_class WHERE relname LIKE 'mv%' AND relkind = 'm' ORDER BY 1
----
mv|m|t
mvempty|m|t

error 42809
DROP VIEW mv

statement ok
DROP MATERIALIZED VIEW mv, mvempty

statement ok
DROP TABLE base CASCADE

error 22023
CREATE VIEW vbadopt WITH (security_barrier=100) AS SELECT 1

# Renames: the stored query follows the table and its columns.
statement ok
CREATE TABLE rt1 (f1 int, f2 int)

statement ok
CREATE TABLE rx1 (x1 int, x2 int)

statement ok
INSERT INTO rt1 VALUES (1, 2), (3, 4)

statement ok
INSERT INTO rx1 VALUES (1, 5)

statement ok
CREATE VIEW rv AS SELECT * FROM rt1 a1 WHERE EXISTS (SELECT 1 FROM rx1 WHERE a1.f1 = rx1.x1)

statement ok
ALTER TABLE rx1 RENAME TO a1

statement ok
ALTER TABLE a1 RENAME COLUMN x1 TO y1

statement ok
ALTER TABLE rt1 RENAME COLUMN f2 TO g2

query
SELECT * FROM rv
----
1|2

query
SELECT pg_get_viewdef('rv', true)
----
 SELECT a1.f1,
    a1.g2 AS f2
   FROM rt1 a1
  WHERE (EXISTS ( SELECT 1
           FROM a1 a1_1
          WHERE a1.f1 = a1_1.y1));

statement ok
ALTER VIEW rv RENAME COLUMN f2 TO ff2

statement ok
ALTER VIEW rv RENAME TO rv2

statement ok
ALTER VIEW rv2 ALTER COLUMN ff2 SET DEFAULT 42

statement ok
INSERT INTO rv2 (f1) VALUES (7)

query
SELECT * FROM rt1 ORDER BY f1
----
1|2
3|4
7|42

error 42809
ALTER VIEW rt1 RENAME TO rt9

# A materialized view may be made from one not yet populated.
statement ok
CREATE MATERIALIZED VIEW mvn AS SELECT f1 FROM rt1 WITH NO DATA

statement ok
CREATE MATERIALIZED VIEW mvn2 AS SELECT * FROM mvn WITH NO DATA

statement ok
DROP TABLE rt1, a1 CASCADE

# Column-level dependencies.
statement ok
CREATE TABLE ct (f1 text, f2 text, f3 text)

statement ok
CREATE VIEW ctv AS SELECT t.* FROM ct t

statement ok
CREATE VIEW ctcount AS SELECT count(*) FROM ct

error 2BP01
ALTER TABLE ct DROP COLUMN f3

error 0A000
ALTER TABLE ct ALTER COLUMN f2 TYPE integer USING 1

statement ok
ALTER TABLE ct ADD COLUMN f4 int

statement ok
ALTER TABLE ct DROP COLUMN f4

statement ok
ALTER TABLE ct DROP COLUMN f2 CASCADE

query
SELECT relname FROM pg_class WHERE relname IN ('ctv', 'ctcount')
----
ctcount

statement ok
DROP TABLE ct CASCADE

# What views and materialized views refuse.
statement ok
CREATE TABLE rf (a int)

statement ok
CREATE VIEW rfv AS SELECT * FROM rf

statement ok
CREATE MATERIALIZED VIEW rfm AS SELECT * FROM rf

error 42809
TRUNCATE rfm

error 42809
TRUNCATE rfv

error 42809
SELECT * FROM rfm FOR SHARE

statement ok
SELECT * FROM rfv FOR UPDATE

error 42809
ALTER TABLE rfv ADD COLUMN b int

error 42809
ALTER TABLE rfm ADD COLUMN b int

error 42809
CREATE INDEX ON rfv (a)

statement ok
CREATE INDEX ON rfm (a)

query
SELECT pg_get_viewdef('rfv'::regclass::oid)
----
 SELECT rf.a
   FROM rf;

statement ok
DROP TABLE rf CASCADE

# A view over a view depends on that view, not on what it reads.
statement ok
CREATE TABLE dt (a int, b int)

statement ok
CREATE VIEW dv1 AS SELECT a, b FROM dt

statement ok
CREATE VIEW dv2 AS SELECT a FROM dv1

statement ok
ALTER TABLE dt RENAME COLUMN b TO c

query
SELECT * FROM dv2
----

query
SELECT count(*) FROM pg_depend d JOIN pg_rewrite r ON d.objid = r.oid
WHERE r.ev_class = 'dv2'::regclass AND d.refobjid = 'dt'::regclass
----
0

statement ok
DROP VIEW dv1 CASCADE

statement ok
DROP TABLE dt

# A star over a USING join: PostgreSQL's column order, kept through
# column additions and renames.
statement ok
CREATE TABLE uj2 (a int, b int, c int)

statement ok
CREATE TABLE uj3 (ax int, b int, c int)

statement ok
INSERT INTO uj2 VALUES (1, 2, 3)

statement ok
INSERT INTO uj3 VALUES (4, 2, 3)

statement ok
CREATE VIEW ujv AS SELECT * FROM uj2 JOIN uj3 USING (b, c)

statement ok
ALTER TABLE uj2 ADD COLUMN d int

statement ok
ALTER TABLE uj3 RENAME c TO cc

query
SELECT * FROM ujv
----
2|3|1|4

query
SELECT pg_get_viewdef('ujv', true)
----
 SELECT uj2.b,
    uj2.c,
    uj2.a,
    uj3.ax
   FROM uj2
     JOIN uj3 uj3(ax, b, c) USING (b, c);

statement ok
DROP TABLE uj2, uj3 CASCADE

# View defaults take precedence over the table's; DEFAULT means the view's.
statement ok
CREATE TABLE bd (a int, b text DEFAULT 'Table default', c text DEFAULT 'Table default', d text)

statement ok
CREATE VIEW bdv AS SELECT * FROM bd

statement ok
ALTER VIEW bdv ALTER b SET DEFAULT 'View default'

statement ok
INSERT INTO bdv VALUES (1)

statement ok
INSERT INTO bdv VALUES (2, DEFAULT, DEFAULT, 'x')

query
SELECT * FROM bd ORDER BY a
----
1|View default|Table default|NULL
2|View default|Table default|x

statement ok
CREATE VIEW bdv2 AS SELECT a, b, a AS aa, ctid FROM bd

error 42601
INSERT INTO bdv2 VALUES (3, 'y', 3)

error 42601
UPDATE bdv2 SET a = 1, aa = 2

statement ok
DROP TABLE bd CASCADE

# pg_relation_is_updatable / pg_column_is_updatable.
statement ok
CREATE TABLE ub (a int, b text)

statement ok
CREATE VIEW uv1 AS SELECT a, b, upper(b) AS u FROM ub

statement ok
CREATE VIEW uv2 AS SELECT count(*) FROM ub

statement ok
CREATE VIEW uv3 AS SELECT u FROM uv1

query
SELECT c.relname, pg_relation_is_updatable(c.oid, false) FROM pg_class c
WHERE relname IN ('ub', 'uv1', 'uv2', 'uv3') ORDER BY 1
----
ub|28
uv1|28
uv2|0
uv3|16

query
SELECT pg_column_is_updatable('uv1'::regclass, 1::smallint, false), pg_column_is_updatable('uv1'::regclass, 3::smallint, false)
----
t|f

statement ok
DROP TABLE ub CASCADE
