# Subqueries: in FROM (with aliases, LATERAL), scalar, EXISTS, IN and
# NOT IN with NULLs, ANY/ALL, correlated at several levels.

statement ok
CREATE TABLE sa (id int, g int)

statement ok
CREATE TABLE sb (aid int, x int)

statement ok
INSERT INTO sa VALUES (1, 10), (2, 10), (3, 20), (4, NULL)

statement ok
INSERT INTO sb VALUES (1, 5), (1, 6), (3, 7), (NULL, 8)

query
SELECT s.n FROM (SELECT id * 2 AS n FROM sa) s WHERE s.n > 2 ORDER BY 1
----
4
6
8

query
SELECT q.a, q.b FROM (SELECT id, g FROM sa WHERE g IS NOT NULL) AS q(a, b) ORDER BY q.a
----
1|10
2|10
3|20

query
SELECT id, (SELECT max(x) FROM sb WHERE sb.aid = sa.id) AS mx FROM sa ORDER BY id
----
1|6
2|NULL
3|7
4|NULL

query
SELECT id, (SELECT count(*) FROM sb WHERE sb.aid = sa.id) FROM sa ORDER BY 1
----
1|2
2|0
3|1
4|0

query
SELECT (SELECT 42), (SELECT x FROM sb WHERE x > 100)
----
42|NULL

error 21000
SELECT (SELECT x FROM sb)

query
SELECT id FROM sa WHERE EXISTS (SELECT 1 FROM sb WHERE sb.aid = sa.id) ORDER BY 1
----
1
3

query
SELECT id FROM sa WHERE NOT EXISTS (SELECT 1 FROM sb WHERE sb.aid = sa.id) ORDER BY 1
----
2
4

query
SELECT id FROM sa WHERE id IN (SELECT aid FROM sb) ORDER BY 1
----
1
3

query
SELECT id FROM sa WHERE id NOT IN (SELECT aid FROM sb) ORDER BY 1
----

query
SELECT id FROM sa WHERE id NOT IN (SELECT aid FROM sb WHERE aid IS NOT NULL) ORDER BY 1
----
2
4

query
SELECT id, id IN (SELECT aid FROM sb), id NOT IN (SELECT aid FROM sb) FROM sa ORDER BY 1
----
1|t|f
2|NULL|NULL
3|t|f
4|NULL|NULL

query
SELECT g, g IN (SELECT aid * 10 FROM sb WHERE aid IS NOT NULL) FROM sa ORDER BY id
----
10|t
10|t
20|f
NULL|NULL

query
SELECT id FROM sa WHERE id = ANY (SELECT aid FROM sb) ORDER BY 1
----
1
3

query
SELECT id, id > ALL (SELECT aid FROM sb WHERE aid IS NOT NULL), id <> ALL (SELECT aid FROM sb) FROM sa ORDER BY 1
----
1|f|f
2|f|NULL
3|f|f
4|t|NULL

query
SELECT id FROM sa WHERE (id, g) IN (SELECT aid, x * 2 FROM sb) ORDER BY 1
----
1

query
SELECT id FROM sa WHERE g = (SELECT max(g) FROM sa)
----
3

query
SELECT a.id FROM sa a WHERE EXISTS (SELECT 1 FROM sb b WHERE b.aid = a.id AND EXISTS (SELECT 1 FROM sa c WHERE c.g = a.g AND c.id <> a.id)) ORDER BY 1
----
1

query
SELECT a.id, (SELECT count(*) FROM sb b WHERE b.x > (SELECT count(*) FROM sa c WHERE c.id <= a.id) + 4) FROM sa a ORDER BY 1
----
1|3
2|2
3|1
4|0

query
SELECT a.id, l.x FROM sa a, LATERAL (SELECT x FROM sb WHERE sb.aid = a.id ORDER BY x DESC LIMIT 1) l ORDER BY 1
----
1|6
3|7

query
SELECT a.id, l.x FROM sa a LEFT JOIN LATERAL (SELECT x FROM sb WHERE sb.aid = a.id) l ON true ORDER BY 1, 2
----
1|5
1|6
2|NULL
3|7
4|NULL

query
SELECT a.id, s FROM sa a CROSS JOIN LATERAL generate_series(1, a.id) s WHERE a.id <= 2 ORDER BY 1, 2
----
1|1
2|1
2|2

query
SELECT id, ARRAY(SELECT x FROM sb WHERE sb.aid = sa.id ORDER BY x) FROM sa ORDER BY id
----
1|{5,6}
2|{}
3|{7}
4|{}

query
SELECT g, (SELECT count(*) FROM sb WHERE sb.aid <= sa.g / 10) FROM sa WHERE g IS NOT NULL GROUP BY g ORDER BY g
----
10|2
20|2

statement ok
UPDATE sb SET x = x + 100 WHERE aid IN (SELECT id FROM sa WHERE g = 20)

statement ok
DELETE FROM sb WHERE NOT EXISTS (SELECT 1 FROM sa WHERE sa.id = sb.aid)

query
SELECT aid, x FROM sb ORDER BY 1, 2
----
1|5
1|6
3|107
