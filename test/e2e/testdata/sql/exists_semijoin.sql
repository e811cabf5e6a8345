# EXISTS and NOT EXISTS run as hashed semi joins when the subquery is correlated
# only through equalities (and conditions on the outer row alone), and as
# SubPlans otherwise: the same rows either way, NULL keys matching nothing.
# Checked against PostgreSQL 15.

statement ok
CREATE TABLE xo (id int, k int, s text, g int8)

statement ok
CREATE TABLE xi (id int, k int, s varchar, g int4, f int)

statement ok
INSERT INTO xo VALUES (1, 1, 'a', 1), (2, 2, 'b', 2), (3, NULL, NULL, 3), (4, 4, 'd', NULL), (5, 5, 'e', 5)

statement ok
INSERT INTO xi VALUES (10, 1, 'a', 1, 0), (11, 1, 'a', 1, 1), (12, 2, 'x', 2, 0), (13, NULL, 'd', NULL, 0), (14, 5, 'e', 9, 1)

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k) ORDER BY id
----
1
2
5

query
SELECT id FROM xo WHERE NOT EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k) ORDER BY id
----
3
4

query
SELECT id, EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k), NOT EXISTS (SELECT * FROM xi WHERE xo.k = xi.k) FROM xo ORDER BY id
----
1|t|f
2|t|f
3|f|t
4|f|t
5|t|f

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.s = xo.s) ORDER BY id
----
1
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.s = xo.s) ORDER BY id
----
1
4
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.g = xo.g) ORDER BY id
----
1
2

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.f = 1) ORDER BY id
----
1
5

query
SELECT id FROM xo WHERE NOT EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.f = 1) ORDER BY id
----
2
3
4

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xo.id > 1) ORDER BY id
----
2
5

query
SELECT id, EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xo.k > 1) FROM xo ORDER BY id
----
1|f
2|t
3|f
4|f
5|t

query
SELECT id, NOT EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xo.g > 1) FROM xo ORDER BY id
----
1|t
2|f
3|t
4|t
5|f

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xo.id > 2) ORDER BY id
----
3
4
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k < xo.k) ORDER BY id
----
2
4
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k + 1 = xo.k + 1) ORDER BY id
----
1
2
5

query
SELECT id FROM xo WHERE EXISTS (SELECT count(*) FROM xi WHERE xi.k = xo.k AND false) ORDER BY id
----
1
2
3
4
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k LIMIT 0) ORDER BY id
----


query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND random() < 2) ORDER BY id
----
1
2
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi, xo x2 WHERE xi.k = xo.k AND x2.id = xi.k) ORDER BY id
----
1
2
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND EXISTS (SELECT 1 FROM xo x3 WHERE x3.id = xi.id - 9)) ORDER BY id
----
1
2
5

query
SELECT a.id FROM xo a, xo b WHERE a.k = b.k AND EXISTS (SELECT 1 FROM xi c WHERE b.id = c.k AND NOT EXISTS (SELECT 1 FROM xi d WHERE a.k = d.k)) ORDER BY 1
----


query
SELECT a.id FROM xo a, xo b WHERE a.k = b.k AND EXISTS (SELECT 1 FROM xi c WHERE b.id = c.k AND EXISTS (SELECT 1 FROM xi d WHERE a.k = d.k)) ORDER BY 1
----
1
2
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.id = (SELECT max(id) FROM xi)) ORDER BY id
----
5

query
SELECT id FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.id IN (SELECT id FROM xi WHERE f = 1)) ORDER BY id
----
1
5

query
SELECT id FROM xo WHERE xo.k IN (1, 5) AND NOT EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.g <> xo.g) ORDER BY id
----
1

query
SELECT k, count(*) FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k) GROUP BY k ORDER BY k
----
1|1
2|1
5|1

query
SELECT id FROM xo o WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = o.k) AND o.s IS NOT NULL ORDER BY id
----
1
2
5

query
SELECT (SELECT count(*) FROM xo WHERE EXISTS (SELECT 1 FROM xi WHERE xi.k = xo.k AND xi.id = t.n)) FROM (VALUES (10), (12), (14), (99)) t(n) ORDER BY 1
----
0
1
1
1
