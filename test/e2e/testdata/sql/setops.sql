# WITH, UNION/INTERSECT/EXCEPT [ALL], ORDER BY and LIMIT on set results.

statement ok
CREATE TABLE st1 (a int, b text)

statement ok
CREATE TABLE st2 (a int, b text)

statement ok
INSERT INTO st1 VALUES (1, 'x'), (2, 'y'), (2, 'y'), (3, NULL)

statement ok
INSERT INTO st2 VALUES (2, 'y'), (3, NULL), (4, 'z')

query
SELECT a, b FROM st1 UNION SELECT a, b FROM st2 ORDER BY 1
----
1|x
2|y
3|NULL
4|z

query
SELECT a FROM st1 UNION ALL SELECT a FROM st2 ORDER BY a DESC
----
4
3
3
2
2
2
1

query
SELECT a, b FROM st1 INTERSECT SELECT a, b FROM st2 ORDER BY 1
----
2|y
3|NULL

query
SELECT a, b FROM st1 INTERSECT ALL SELECT a, b FROM st1 ORDER BY 1
----
1|x
2|y
2|y
3|NULL

query
SELECT a, b FROM st1 EXCEPT SELECT a, b FROM st2 ORDER BY 1
----
1|x

query
SELECT a FROM st1 EXCEPT ALL SELECT a FROM st2 ORDER BY 1
----
1
2

query
SELECT 1 UNION SELECT 2.5::float8 ORDER BY 1
----
1
2.5

query
SELECT 'a' AS t UNION ALL SELECT 'b' ORDER BY t DESC LIMIT 1
----
b

query
SELECT a FROM st1 UNION SELECT a FROM st2 ORDER BY 1 LIMIT 2 OFFSET 1
----
2
3

query
(SELECT a FROM st1 ORDER BY a DESC LIMIT 1) UNION ALL (SELECT a FROM st2 ORDER BY a LIMIT 1)
----
3
2

error 42601
SELECT a, b FROM st1 UNION SELECT a FROM st2

error 42804
SELECT a FROM st1 UNION SELECT b FROM st2

query
WITH w AS (SELECT a FROM st1 WHERE a > 1) SELECT * FROM w UNION ALL SELECT * FROM w ORDER BY 1
----
2
2
2
2
3
3

query
WITH w(n) AS (SELECT a * 10 FROM st2), v AS (SELECT n + 1 AS m FROM w) SELECT m FROM v WHERE m > 25 ORDER BY m
----
31
41

query
WITH w AS (SELECT a, count(*) AS c FROM st1 GROUP BY a) SELECT st2.a, w.c FROM st2 LEFT JOIN w ON w.a = st2.a ORDER BY 1
----
2|2
3|1
4|NULL

query
SELECT x FROM (SELECT a AS x FROM st1 UNION SELECT a FROM st2) u WHERE x > 2 ORDER BY x
----
3
4
