# x IN (uncorrelated SELECT) answered by a hash set of the subquery's rows
# (as PostgreSQL's hashed SubPlan), with SQL's NULL rules.

query
SELECT 1 IN (SELECT NULL::int), 1 IN (SELECT 1 UNION ALL SELECT NULL::int), NULL::int IN (SELECT 1), NULL::int IN (SELECT 1 WHERE false), 2 IN (SELECT 1 UNION ALL SELECT NULL::int)
----
NULL|t|NULL|f|NULL

query
SELECT 'a' IN (SELECT 'a'::text), 1::int8 IN (SELECT 1::int4), 2 NOT IN (SELECT 1 UNION ALL SELECT NULL::int), 3 NOT IN (SELECT 1), 'b'::varchar IN (SELECT 'b'::varchar)
----
t|t|NULL|t|t

statement ok
CREATE TABLE hin_a (id int, grp int, name text)

statement ok
INSERT INTO hin_a SELECT g, g % 7, 'n' || (g % 13) FROM generate_series(1, 5000) g

statement ok
INSERT INTO hin_a VALUES (NULL, NULL, NULL)

query
SELECT count(*) FROM hin_a WHERE id IN (SELECT grp * 100 FROM hin_a)
----
6

query
SELECT count(*) FROM hin_a WHERE id NOT IN (SELECT grp * 100 FROM hin_a WHERE grp IS NOT NULL)
----
4994

query
SELECT count(*) FROM hin_a WHERE id NOT IN (SELECT grp FROM hin_a)
----
0

query
SELECT count(*) FROM hin_a WHERE name IN (SELECT 'n' || g FROM generate_series(1, 3) g)
----
1155

statement ok
DROP TABLE hin_a
