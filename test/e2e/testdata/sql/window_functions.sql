# Window functions: PARTITION BY / ORDER BY, named windows and their
# inheritance, ROWS / RANGE / GROUPS frames with offsets and EXCLUDE, the
# built-in window functions, aggregates over frames, and PostgreSQL's
# errors. Checked against PostgreSQL 15.

statement ok
CREATE TABLE emp (dep text, empno int, salary int, hired date)

statement ok
INSERT INTO emp VALUES ('develop', 10, 5200, '2007-08-01'), ('sales', 1, 5000, '2006-10-01'), ('personnel', 5, 3500, '2007-12-10'), ('sales', 4, 4800, '2007-08-08'), ('personnel', 2, 3900, '2006-12-23'), ('develop', 7, 4200, '2008-01-01'), ('develop', 9, 4500, '2008-01-01'), ('sales', 3, 4800, '2007-08-01'), ('develop', 8, 6000, '2006-10-01'), ('develop', 11, 5200, '2007-08-15')

query
SELECT dep, empno, salary, sum(salary) OVER (PARTITION BY dep), rank() OVER (PARTITION BY dep ORDER BY salary DESC) FROM emp ORDER BY dep, salary DESC, empno
----
develop|8|6000|25100|1
develop|10|5200|25100|2
develop|11|5200|25100|2
develop|9|4500|25100|4
develop|7|4200|25100|5
personnel|2|3900|7400|1
personnel|5|3500|7400|2
sales|1|5000|14600|1
sales|3|4800|14600|2
sales|4|4800|14600|2

query
SELECT empno, row_number() OVER w, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w, cume_dist() OVER w, ntile(3) OVER w FROM emp WINDOW w AS (ORDER BY salary, empno) ORDER BY empno
----
1|7|7|7|0.6666666666666666|0.7|2
2|2|2|2|0.1111111111111111|0.2|1
3|5|5|5|0.4444444444444444|0.5|2
4|6|6|6|0.5555555555555556|0.6|2
5|1|1|1|0|0.1|1
7|3|3|3|0.2222222222222222|0.3|1
8|10|10|10|1|1|3
9|4|4|4|0.3333333333333333|0.4|1
10|8|8|8|0.7777777777777778|0.8|3
11|9|9|9|0.8888888888888888|0.9|3

query
SELECT salary, rank() OVER (ORDER BY salary), dense_rank() OVER (ORDER BY salary), count(*) OVER (ORDER BY salary) FROM emp ORDER BY salary, 2
----
3500|1|1|1
3900|2|2|2
4200|3|3|3
4500|4|4|4
4800|5|5|6
4800|5|5|6
5000|7|6|7
5200|8|7|9
5200|8|7|9
6000|10|8|10

query
SELECT empno, lag(empno) OVER w, lead(empno, 2) OVER w, lag(empno, 1, -1) OVER w, lead(salary, -1) OVER w, lag(empno, NULL) OVER w FROM emp WINDOW w AS (ORDER BY empno) ORDER BY empno
----
1|NULL|3|-1|NULL|NULL
2|1|4|1|5000|NULL
3|2|5|2|3900|NULL
4|3|7|3|4800|NULL
5|4|8|4|4800|NULL
7|5|9|5|3500|NULL
8|7|10|7|4200|NULL
9|8|11|8|6000|NULL
10|9|NULL|9|4500|NULL
11|10|NULL|10|5200|NULL

query
SELECT empno, first_value(empno) OVER w, last_value(empno) OVER w, nth_value(empno, 3) OVER w FROM emp WINDOW w AS (ORDER BY empno ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) ORDER BY empno
----
1|1|3|3
2|1|4|3
3|1|5|3
4|2|7|4
5|3|8|5
7|4|9|7
8|5|10|8
9|7|11|9
10|8|11|10
11|9|11|11

query
SELECT empno, sum(empno) OVER (ORDER BY empno ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW), sum(empno) OVER (ORDER BY empno ROWS UNBOUNDED PRECEDING), count(*) OVER (ORDER BY empno ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM emp ORDER BY empno
----
1|2|1|10
2|4|3|9
3|6|6|8
4|8|10|7
5|11|15|6
7|13|22|5
8|16|30|4
9|18|39|3
10|20|49|2
11|10|60|1

query
SELECT salary, empno, sum(empno) OVER (ORDER BY salary GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE GROUP), string_agg(empno::text, ',') OVER (ORDER BY salary, empno GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE TIES) FROM emp ORDER BY salary, empno
----
3500|5|NULL|5,2
3900|2|5|2,7
4200|7|2|7,9
4500|9|7|9,3
4800|3|9|3,4
4800|4|9|4,1
5000|1|7|1,10
5200|10|1|10,11
5200|11|1|11,8
6000|8|21|8

query
SELECT salary, empno, sum(salary) OVER (ORDER BY salary RANGE BETWEEN 300 PRECEDING AND 300 FOLLOWING), count(*) OVER (ORDER BY salary DESC RANGE BETWEEN 500 PRECEDING AND CURRENT ROW) FROM emp ORDER BY salary, empno
----
3500|5|3500|2
3900|2|8100|2
4200|7|12600|2
4500|9|18300|4
4800|3|19100|5
4800|4|19100|5
5000|1|25000|3
5200|10|15400|2
5200|11|15400|2
6000|8|6000|1

query
SELECT hired, empno, count(*) OVER (ORDER BY hired RANGE BETWEEN '1 year'::interval PRECEDING AND '6 months'::interval FOLLOWING) FROM emp ORDER BY hired, empno
----
2006-10-01|1|3
2006-10-01|8|3
2006-12-23|2|3
2007-08-01|3|10
2007-08-01|10|10
2007-08-08|4|10
2007-08-15|11|10
2007-12-10|5|8
2008-01-01|7|7
2008-01-01|9|7

query
SELECT x, sum(x) OVER (ORDER BY x RANGE BETWEEN 1.5 PRECEDING AND 1.5 FOLLOWING), count(*) OVER (ORDER BY x::float8 RANGE BETWEEN 'inf' PRECEDING AND 0 FOLLOWING) FROM (VALUES (1.0), (2.5), (3.0), (NULL), ('NaN'::numeric)) v(x) ORDER BY x
----
1.0|3.5|1
2.5|6.5|2
3.0|5.5|3
NaN|NaN|1
NULL|NULL|1

query
SELECT x, count(*) OVER (ORDER BY x NULLS FIRST RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING), last_value(x) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND 2147483647 FOLLOWING) FROM (VALUES (1), (2), (NULL), (2147483646)) v(x) ORDER BY x
----
1|2|2147483646
2|2|2147483646
2147483646|1|2147483646
NULL|1|NULL

query
SELECT dep, sum(salary), sum(sum(salary)) OVER (ORDER BY dep), rank() OVER (ORDER BY sum(salary) DESC) FROM emp GROUP BY dep ORDER BY dep
----
develop|25100|25100|1
personnel|7400|32500|3
sales|14600|47100|2

query
SELECT empno, count(*) FILTER (WHERE salary > 4500) OVER (PARTITION BY dep), avg(salary) OVER (PARTITION BY dep) FROM emp ORDER BY empno
----
1|3|4866.6666666666666667
2|0|3700.0000000000000000
3|3|4866.6666666666666667
4|3|4866.6666666666666667
5|0|3700.0000000000000000
7|3|5020.0000000000000000
8|3|5020.0000000000000000
9|3|5020.0000000000000000
10|3|5020.0000000000000000
11|3|5020.0000000000000000

query
SELECT row_number() OVER (), count(*) OVER ()
----
1|1

query
SELECT empno, rank() OVER w, rank() OVER w2 FROM emp WINDOW w AS (PARTITION BY dep), w2 AS (w ORDER BY salary) ORDER BY rank() OVER w2, empno LIMIT 4
----
3|1|1
4|1|1
5|1|1
7|1|1

query
SELECT DISTINCT dep, count(*) OVER (PARTITION BY dep) FROM emp ORDER BY 1
----
develop|5
personnel|2
sales|3

error 42P20
SELECT empno FROM emp WHERE row_number() OVER () > 1

error 42P20
SELECT rank() OVER (ORDER BY row_number() OVER ()) FROM emp

error 42P20
SELECT sum(row_number() OVER ()) OVER () FROM emp

error 42803
SELECT sum(row_number() OVER ()) FROM emp

error 42809
SELECT row_number() FROM emp

error 42809
SELECT abs(1) OVER () FROM emp

error 0A000
SELECT count(DISTINCT empno) OVER () FROM emp

error 0A000
SELECT lag(empno) FILTER (WHERE true) OVER () FROM emp

error 42704
SELECT rank() OVER nosuch FROM emp

error 42P20
SELECT rank() OVER w FROM emp WINDOW w AS (), w AS ()

error 42P20
SELECT rank() OVER (w PARTITION BY dep) FROM emp WINDOW w AS (ORDER BY salary)

error 42P20
SELECT rank() OVER (w ORDER BY dep) FROM emp WINDOW w AS (ORDER BY salary)

error 42P20
SELECT rank() OVER (w) FROM emp WINDOW w AS (ORDER BY salary ROWS UNBOUNDED PRECEDING)

error 42P20
SELECT sum(salary) OVER (ORDER BY salary, empno RANGE 1 PRECEDING) FROM emp

error 42P20
SELECT sum(salary) OVER (GROUPS 1 PRECEDING) FROM emp

error 0A000
SELECT sum(salary) OVER (ORDER BY dep RANGE 1 PRECEDING) FROM emp

error 22013
SELECT sum(salary) OVER (ORDER BY salary ROWS -1 PRECEDING) FROM emp

error 22004
SELECT sum(salary) OVER (ORDER BY salary ROWS BETWEEN CURRENT ROW AND NULL FOLLOWING) FROM emp

error 22013
SELECT sum(salary) OVER (ORDER BY salary RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM emp

error 22014
SELECT ntile(0) OVER (ORDER BY empno) FROM emp

error 22016
SELECT nth_value(empno, 0) OVER (ORDER BY empno) FROM emp

error 42P10
SELECT sum(salary) OVER (ORDER BY salary ROWS empno PRECEDING) FROM emp

query
SELECT x, sum(x) OVER w, count(x) OVER w, count(*) FILTER (WHERE x % 2 = 0) OVER w, sum(x) OVER (ORDER BY i ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) FROM (VALUES (1, 4), (2, NULL), (3, 6), (4, 1), (5, 8), (6, NULL), (7, 3)) v(i, x) WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) ORDER BY i
----
4|4|1|1|18
NULL|4|1|1|18
6|10|2|2|12
1|7|2|1|11
8|15|3|2|3
NULL|9|2|1|3
3|11|2|1|NULL

query
SELECT t, count(*) OVER (ORDER BY t RANGE BETWEEN '2 hours'::interval PRECEDING AND '2 hours'::interval FOLLOWING) FROM (VALUES ('00:30'::time), ('01:00'), ('12:00'), ('23:00'), ('23:30')) v(t) ORDER BY t
----
00:30:00|2
01:00:00|2
12:00:00|1
23:00:00|2
23:30:00|2
