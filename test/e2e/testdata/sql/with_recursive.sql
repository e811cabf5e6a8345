# WITH RECURSIVE: PostgreSQL 15's results and its errors for ill-formed recursion.

query
WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n+1 FROM t WHERE n < 100) SELECT sum(n) FROM t
----
5050

query
WITH RECURSIVE t(n) AS (SELECT (VALUES(1)) UNION ALL SELECT n+1 FROM t WHERE n < 5) SELECT * FROM t
----
1
2
3
4
5

query
WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n+1 FROM t) SELECT * FROM t LIMIT 10
----
1
2
3
4
5
6
7
8
9
10

query
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT 10-n FROM t) SELECT * FROM t
----
1
9

query
WITH RECURSIVE t(n) AS (SELECT 'foo' UNION ALL SELECT n || ' bar' FROM t WHERE length(n) < 20) SELECT n, pg_typeof(n) FROM t
----
foo|text
foo bar|text
foo bar bar|text
foo bar bar bar|text
foo bar bar bar bar|text
foo bar bar bar bar bar|text

error 42804
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n+1::bigint FROM t WHERE n < 3) SELECT * FROM t

statement ok
CREATE TABLE department (id INTEGER PRIMARY KEY, parent_department INTEGER REFERENCES department, name TEXT)

statement ok
INSERT INTO department VALUES (0, NULL, 'ROOT'), (1, 0, 'A'), (2, 1, 'B'), (3, 2, 'C'), (4, 2, 'D'), (5, 0, 'E'), (6, 4, 'F'), (7, 5, 'G')

query
WITH RECURSIVE subdepartment AS (SELECT name as root_name, * FROM department WHERE name = 'A' UNION ALL SELECT sd.root_name, d.* FROM department AS d, subdepartment AS sd WHERE d.parent_department = sd.id) SELECT * FROM subdepartment ORDER BY name
----
A|1|0|A
A|2|1|B
A|3|2|C
A|4|2|D
A|6|4|F

query
WITH RECURSIVE subdepartment(level, id, parent_department, name) AS (SELECT 1, * FROM department WHERE name = 'A' UNION ALL SELECT sd.level + 1, d.* FROM department AS d, subdepartment AS sd WHERE d.parent_department = sd.id) SELECT * FROM subdepartment WHERE level >= 2 ORDER BY name
----
2|2|1|B
3|3|2|C
3|4|2|D
4|6|4|F

error 42P19
WITH RECURSIVE x(n) AS (SELECT n FROM x) SELECT * FROM x

error 0A000
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x WHERE n < 3 ORDER BY 1) SELECT * FROM x

query tidal
EXPLAIN (COSTS OFF) WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n+1 FROM t WHERE n < 100) SELECT sum(n) FROM t
----
Aggregate
  ->  CTE Scan on t
        CTE t
          ->  Recursive Union
                ->  Values Scan on "*VALUES*"
                ->  WorkTable Scan on t
                      Filter: (n < 100)

query
WITH RECURSIVE fib(a, b) AS (SELECT 0::numeric, 1::numeric UNION ALL SELECT b, a+b FROM fib WHERE a < 1000) SELECT a FROM fib
----
0
1
1
2
3
5
8
13
21
34
55
89
144
233
377
610
987
1597

query
WITH RECURSIVE t(i, j) AS (VALUES (1, 2) UNION ALL SELECT t2.i, t.j+1 FROM (SELECT 2 AS i UNION ALL SELECT 3 AS i) AS t2 JOIN t ON (t2.i = t.i+1)) SELECT * FROM t
----
1|2
2|3
3|4

query
WITH RECURSIVE q AS (SELECT * FROM department UNION SELECT * FROM q) SELECT count(*) FROM q
----
8

error 0A000
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x FOR UPDATE) SELECT * FROM x

error 42P19
WITH RECURSIVE x(id) AS (values (1) UNION ALL SELECT (SELECT * FROM x) FROM x WHERE id < 5) SELECT * FROM x

error 42P19
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT x.n+1 FROM x, x x2) SELECT * FROM x

error 42P19
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT x.n+1 FROM (select 1 a) t LEFT JOIN x ON true) SELECT * FROM x

error 42P19
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM x) SELECT * FROM x

error 42P19
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n FROM x WHERE n IN (SELECT * FROM x)) SELECT * FROM x

error 42P19
WITH RECURSIVE x(n) AS (SELECT 1 INTERSECT SELECT n+1 FROM x) SELECT * FROM x

statement ok
SET statement_timeout = '300ms'

error 57014
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM t) SELECT count(*) FROM t

statement ok
RESET statement_timeout

query
with recursive x(a) as ((values ('a'), ('b')) union all (with z as not materialized (select * from x) select z.a || z1.a as a from z cross join z as z1 where length(z.a || z1.a) < 5)) select * from x
----
a
b
aa
ab
ba
bb
aaaa
aaab
aaba
aabb
abaa
abab
abba
abbb
baaa
baab
baba
babb
bbaa
bbab
bbba
bbbb

query
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (WITH w AS (SELECT n FROM t) SELECT n+1 FROM w WHERE n < 5)) SELECT * FROM t
----
1
2
3
4
5
