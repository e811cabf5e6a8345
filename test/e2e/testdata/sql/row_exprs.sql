# Row constructors: (a, b) and ROW(a, b) in comparisons, IN lists,
# subqueries, IS [NOT] NULL and IS [NOT] DISTINCT FROM, with PostgreSQL's
# NULL rules.

statement ok
CREATE TABLE rt (a int, b int, c text)

statement ok
CREATE INDEX rt_ab ON rt (a, b)

statement ok
INSERT INTO rt SELECT g % 10, g, 'x' || g FROM generate_series(1, 2000) g

statement ok
INSERT INTO rt VALUES (NULL, 1, 'n1'), (1, NULL, 'n2'), (NULL, NULL, 'n3')

statement ok
ANALYZE rt

query
EXPLAIN (COSTS OFF) SELECT * FROM rt WHERE (a, b) = (1, 11)
----
Index Scan using rt_ab on rt
  Index Cond: ((a = 1) AND (b = 11))

query
SELECT * FROM rt WHERE (a, b) = (1, 11)
----
1|11|x11

query
SELECT c FROM rt WHERE ROW(a, b) = ROW(1, 11) AND c = 'x11'
----
x11

query
SELECT count(*) FROM rt WHERE (a, b) <> (1, 11)
----
2000

query
SELECT count(*) FROM rt WHERE (a, b) != (1, 11)
----
2000

query
SELECT count(*) FROM rt WHERE (a, b) < (1, 11)
----
201

query
SELECT count(*) FROM rt WHERE (a, b) <= (1, 11)
----
202

query
SELECT count(*) FROM rt WHERE (a, b) > (8, 1998)
----
200

query
SELECT count(*) FROM rt WHERE (a, b) >= (8, 1998)
----
201

query
SELECT count(*) FROM rt WHERE (a, b) BETWEEN (1, 5) AND (1, 500)
----
49

query
SELECT count(*) FROM rt WHERE (a, b) NOT BETWEEN (1, 5) AND (1, 500)
----
1951

query
SELECT (1, NULL) < (2, NULL), (NULL, 1) < (2, 3), (1, NULL) < (1, 2), (2, NULL) < (1, 5)
----
t|NULL|NULL|f

query
SELECT (1, 2) <= (1, 2), (1, 2) < (1, 2), (1, 2) >= (1, 2), (1, 2) > (1, 2), (1, 3) > (1, 2)
----
t|f|t|f|t

query
SELECT (1, 2) = (1, NULL), (1, 2) = (2, NULL), (1, 2) <> (2, NULL), (1, 2) <> (1, NULL)
----
NULL|f|t|NULL

query
SELECT (1, 'a') = (1, 'a'), (1, 2.5) < (1, 3), ('a', 1) > ('B', 1), ROW(1) = ROW(1)
----
t|t|t|t

query
SELECT (now()::date, 'x'::text) < (now()::date + 1, 'a')
----
t

query
SELECT count(*) FROM rt WHERE (a, b) IN ((1, 11), (2, 12), (3, 3))
----
3

query
SELECT count(*) FROM rt WHERE (a, b) NOT IN ((1, 11), (2, 12), (3, 3))
----
1998

query
SELECT (1, 2) IN ((1, 2)), (1, 2) IN ((1, NULL), (3, 4)), (1, 2) IN ((1, NULL), (1, 2)), (1, 2) NOT IN ((1, NULL), (3, 4)), (1, 2) NOT IN ((2, NULL))
----
t|NULL|t|NULL|t

query
SELECT count(*) FROM rt WHERE (a, b) IN (SELECT b % 10, b FROM rt WHERE b < 50)
----
49

query
SELECT count(*) FROM rt WHERE (a, b) NOT IN (SELECT b % 10, b FROM rt WHERE b < 50)
----
1951

query
SELECT count(*) FROM rt WHERE (a, b) <> ALL (SELECT b % 10, b FROM rt WHERE b < 50)
----
1951

query
SELECT count(*) FROM rt WHERE (a, b) < ANY (SELECT 1, 5)
----
201

query
SELECT count(*) FROM rt r1 WHERE (a, b) IN (SELECT r2.a, r2.b FROM rt r2 WHERE r2.c = r1.c AND r2.b < 20)
----
19

query
SELECT (1, 2) IN (SELECT 1, NULL::int), (1, 2) NOT IN (SELECT 2, NULL::int), (1, 2) NOT IN (SELECT 1, NULL::int)
----
NULL|t|NULL

query
SELECT count(*) FROM rt WHERE (a, b) = (SELECT 1, 11)
----
1

query
SELECT count(*) FROM rt WHERE (a, b) = (SELECT 1, 11 WHERE false)
----
0

query
SELECT (1, 2) < (SELECT 1, 3), (1, 2) <> (SELECT 1, 2), (1, 2) = (SELECT 1, 2 WHERE false)
----
t|f|NULL

query
SELECT c FROM rt r1 WHERE (a, b) = (SELECT r2.a, r2.b FROM rt r2 WHERE r2.c = r1.c) AND b < 4 ORDER BY c
----
x1
x2
x3

error 21000
SELECT (1, 2) = (SELECT 1, 2 UNION ALL SELECT 1, 2)

query
SELECT c FROM rt WHERE ROW(a, b) IS NULL
----
n3

query
SELECT count(*) FROM rt WHERE ROW(a, b) IS NOT NULL
----
2000

query
SELECT c FROM rt WHERE NOT (ROW(a, b) IS NOT NULL) ORDER BY c
----
n1
n2
n3

query
SELECT ROW(1, NULL) IS NULL, ROW(1, NULL) IS NOT NULL, ROW(NULL, NULL) IS NULL, ROW(NULL, NULL) IS NOT NULL, ROW(1, 2) IS NOT NULL, (NULL, NULL) IS NULL
----
f|f|t|f|t|t

query
SELECT (1, NULL) IS DISTINCT FROM (1, NULL), (1, NULL) IS NOT DISTINCT FROM (1, NULL), (1, 2) IS DISTINCT FROM (1, 3), (1, 2) IS NOT DISTINCT FROM (1, NULL)
----
f|t|t|f

query
SELECT c FROM rt WHERE (a, b) IS NOT DISTINCT FROM (NULL, 1)
----
n1

query
SELECT count(*) FROM rt WHERE ROW(a, b) IS DISTINCT FROM ROW(1, NULL)
----
2002

statement ok
PREPARE rowq(int, int) AS SELECT c FROM rt WHERE (a, b) = ($1, $2)

query
EXECUTE rowq(1, 11)
----
x11

error 42601
SELECT (1, 2) = (1, 2, 3)

error 42601
SELECT (1, 2) IN ((1, 2), (1, 2, 3))

error 42601
SELECT (1, 2) IS DISTINCT FROM (1, 2, 3)

error 42601
SELECT (1, 2) < (1, 2, 3)

error 42601
SELECT (1, 2) IN (SELECT 1)

error 42601
SELECT (1, 2) IN (SELECT 1, 2, 3)

error 42883
SELECT (1, 2) = 3

error 42883
SELECT (1, 2) IN ((1, 2), 3)

error 42883
SELECT (1, 2) IS DISTINCT FROM 3

error 42883
SELECT (1, 2) ~~ (1, 2)

error 22P02
SELECT (1, 'a') < (1, 2)

statement ok
CREATE TABLE rt_noidx (a int, b int)

query
EXPLAIN (COSTS OFF) SELECT * FROM rt_noidx WHERE (a, b) < (1, 2)
----
Seq Scan on rt_noidx
  Filter: (ROW(a, b) < ROW(1, 2))

query
EXPLAIN (COSTS OFF) SELECT * FROM rt_noidx WHERE (a, b) IN ((1, 2), (3, 4))
----
Seq Scan on rt_noidx
  Filter: (((a = 1) AND (b = 2)) OR ((a = 3) AND (b = 4)))

query
EXPLAIN (COSTS OFF) SELECT * FROM rt_noidx WHERE (a, b) NOT IN ((1, 2), (3, 4))
----
Seq Scan on rt_noidx
  Filter: (((a <> 1) OR (b <> 2)) AND ((a <> 3) OR (b <> 4)))

query
EXPLAIN (COSTS OFF) SELECT * FROM rt_noidx WHERE ROW(a, b) IS NOT NULL
----
Seq Scan on rt_noidx
  Filter: ((a IS NOT NULL) AND (b IS NOT NULL))

query
EXPLAIN (COSTS OFF) SELECT * FROM rt_noidx WHERE (a, b) IS NOT DISTINCT FROM (1, 2)
----
Seq Scan on rt_noidx
  Filter: ((NOT (a IS DISTINCT FROM 1)) AND (NOT (b IS DISTINCT FROM 2)))

query
EXPLAIN (COSTS OFF) SELECT * FROM rt_noidx WHERE (a, b) <> (1, 2)
----
Seq Scan on rt_noidx
  Filter: ((a <> 1) OR (b <> 2))

query
SELECT ROW(1, 'a b', NULL, '', 'x"y', 'a,b', '(', 'back\slash', 2.50, true)
----
(1,"a b",,"","x""y","a,b","(","back\\slash",2.50,t)

query
SELECT (1, 'a') AS r, ROW(2)
----
(1,a)|(2)

query
SELECT ROW(1, ROW(2, 'x y')), ROW(ARRAY[1, 2], '{a,"b c"}'::text[])
----
(1,"(2,""x y"")")|("{1,2}","{a,""b c""}")

query
SELECT ROW(1.50::numeric(10,1), 'ab'::char(4), 1.5::float8, DATE '2020-01-02')
----
(1.5,"ab  ",1.5,2020-01-02)

query
SELECT ROW(a, b) FROM (VALUES (1, NULL::int)) v(a, b)
----
(1,)

query
SELECT r FROM (VALUES (1), (3), (2)) v(x), LATERAL (SELECT ROW(x, 'k') AS r) s ORDER BY r DESC
----
(3,k)
(2,k)
(1,k)

query
SELECT (SELECT ROW(1, 2)), ROW(1, 'a b')::text, length(ROW(1, 2)::text)
----
(1,2)|(1,"a b")|5

error 42P16
CREATE TABLE rt_rec AS SELECT ROW(1, 2) AS r

error 42P16
CREATE TABLE rt_rec (r record)

query
SELECT r IS NULL, r IS NOT NULL, r FROM (VALUES (ROW(NULL, NULL)), (ROW(1, NULL)), (ROW(1, 2)), (NULL)) s(r)
----
t|f|(,)
f|f|(1,)
f|t|(1,2)
t|f|NULL
