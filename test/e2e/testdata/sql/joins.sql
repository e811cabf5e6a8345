# Joins: inner, outer (NULL-extended rows), cross, USING, NATURAL,
# aliases, qualified references and * expansion.

statement ok
CREATE TABLE jl (id int PRIMARY KEY, name text)

statement ok
CREATE TABLE jr (lid int, v text)

statement ok
INSERT INTO jl VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, NULL)

statement ok
INSERT INTO jr VALUES (1, 'x'), (1, 'y'), (3, 'z'), (5, 'w'), (NULL, 'n')

query
SELECT * FROM jl JOIN jr ON jl.id = jr.lid ORDER BY 1, 4
----
1|one|1|x
1|one|1|y
3|three|3|z

query
SELECT jl.id, jr.v FROM jl INNER JOIN jr ON jr.lid = jl.id AND jr.v <> 'x' ORDER BY 1, 2
----
1|y
3|z

query
SELECT * FROM jl LEFT JOIN jr ON jl.id = jr.lid ORDER BY 1, 4
----
1|one|1|x
1|one|1|y
2|two|NULL|NULL
3|three|3|z
4|NULL|NULL|NULL

query
SELECT * FROM jl RIGHT JOIN jr ON jl.id = jr.lid ORDER BY 4
----
NULL|NULL|NULL|n
NULL|NULL|5|w
1|one|1|x
1|one|1|y
3|three|3|z

query
SELECT * FROM jl FULL JOIN jr ON jl.id = jr.lid ORDER BY 1, 4
----
1|one|1|x
1|one|1|y
2|two|NULL|NULL
3|three|3|z
4|NULL|NULL|NULL
NULL|NULL|NULL|n
NULL|NULL|5|w

query
SELECT jl.id, jr.v FROM jl LEFT JOIN jr ON jl.id = jr.lid AND jr.v = 'y' ORDER BY 1
----
1|y
2|NULL
3|NULL
4|NULL

query
SELECT jl.id, jr.v FROM jl LEFT JOIN jr ON jl.id = jr.lid WHERE jr.v IS NULL ORDER BY 1
----
2|NULL
4|NULL

query
SELECT jl.id, jr.v FROM jl LEFT JOIN jr ON jl.id = jr.lid AND jl.name = 'one' ORDER BY 1, 2
----
1|x
1|y
2|NULL
3|NULL
4|NULL

query
SELECT a.id, b.v FROM jl a, jr b WHERE a.id = b.lid AND b.v > 'x' ORDER BY 1, 2
----
1|y
3|z

query
SELECT count(*) FROM jl CROSS JOIN jr
----
20

query
SELECT a.id, b.id FROM jl a JOIN jl b ON a.id < b.id WHERE b.id <= 3 ORDER BY 1, 2
----
1|2
1|3
2|3

query
SELECT x.id, y.lid FROM jl AS x(id, nm) LEFT JOIN jr AS y ON x.id = y.lid WHERE x.nm LIKE 't%' ORDER BY 1
----
2|NULL
3|3

statement ok
CREATE TABLE ju (id int, w text)

statement ok
INSERT INTO ju VALUES (1, 'u1'), (2, 'u2'), (9, 'u9')

query
SELECT * FROM jl JOIN ju USING (id) ORDER BY id
----
1|one|u1
2|two|u2

query
SELECT id, name, w FROM jl LEFT JOIN ju USING (id) ORDER BY id
----
1|one|u1
2|two|u2
3|three|NULL
4|NULL|NULL

query
SELECT * FROM jl NATURAL JOIN ju ORDER BY 1
----
1|one|u1
2|two|u2

query
SELECT jl.*, ju.w FROM jl JOIN ju ON ju.id = jl.id ORDER BY 1
----
1|one|u1
2|two|u2

query
SELECT pg_catalog.pg_namespace.nspname, n.nspname FROM pg_catalog.pg_namespace JOIN pg_catalog.pg_namespace n ON n.oid = pg_catalog.pg_namespace.oid WHERE pg_catalog.pg_namespace.nspname = 'public'
----
public|public

query
SELECT a.id, b.lid, c.w FROM jl a LEFT JOIN jr b ON a.id = b.lid LEFT JOIN ju c ON c.id = a.id ORDER BY 1, 2
----
1|1|u1
1|1|u1
2|NULL|u2
3|3|NULL
4|NULL|NULL

query
SELECT a.id, b.v FROM jl a JOIN (jr b JOIN ju c ON c.id = b.lid) ON a.id = b.lid ORDER BY 1, 2
----
1|x
1|y

query
SELECT name, count(v) FROM jl LEFT JOIN jr ON jl.id = jr.lid GROUP BY name ORDER BY name NULLS FIRST
----
NULL|0
one|2
three|1
two|0

query
SELECT jl.id, count(*) AS n FROM jl JOIN jr ON jl.id = jr.lid GROUP BY jl.id HAVING count(*) > 1 ORDER BY jl.id
----
1|2

query
SELECT jl.id + jr.lid AS s FROM jl JOIN jr ON jl.id = jr.lid ORDER BY jl.id * 10 - length(jr.v) DESC
----
6
2
2

query
SELECT jl.id FROM jl JOIN jr ON jl.id = jr.lid ORDER BY 1 LIMIT 2 OFFSET 1
----
1
3

query
SELECT DISTINCT jl.id FROM jl JOIN jr ON jl.id = jr.lid ORDER BY 1
----
1
3

error 42702
SELECT id FROM jl JOIN ju ON jl.id = ju.id

error 42P01
SELECT nosuch.id FROM jl

error 42703
SELECT jl.nosuch FROM jl JOIN ju ON true
