# Aggregates: FILTER, ORDER BY and DISTINCT inside aggregate calls, in
# plain and grouped aggregation.

statement ok
CREATE TABLE ag1 (g int, x int, s text, f float8, n numeric, b bool)

statement ok
INSERT INTO ag1 VALUES (1, 3, 'c', 1.5, 1.10, true), (1, 1, 'a', 2.5, 2.20, false), (1, 2, 'b', NULL, NULL, NULL), (2, 5, 'e', 0.25, 3, true), (2, 4, 'd', 0.5, 4.5, true), (2, NULL, NULL, 1, 1, false), (3, 1, 'a', 2, 2, true), (3, 1, 'a', 2, 2, true)

query
SELECT count(*) FILTER (WHERE x > 1), count(*), count(x) FILTER (WHERE g = 2) FROM ag1
----
4|8|2

query
SELECT sum(x) FILTER (WHERE g = 1), avg(n) FILTER (WHERE b), min(s) FILTER (WHERE x > 1), max(f) FILTER (WHERE NOT b) FROM ag1
----
6|2.5200000000000000|b|2.5

query
SELECT g, count(*) FILTER (WHERE x >= 2), sum(x) FILTER (WHERE s <> 'c') FROM ag1 GROUP BY g ORDER BY g
----
1|2|3
2|2|9
3|0|2

query
SELECT count(*) FILTER (WHERE x > 100), sum(x) FILTER (WHERE false), string_agg(s, ',') FILTER (WHERE x > 100) FROM ag1
----
0|NULL|NULL

query
SELECT g FROM ag1 GROUP BY g HAVING count(*) FILTER (WHERE b) >= 2 ORDER BY g
----
2
3

query
SELECT count(*) FILTER (WHERE b IS NULL), bool_and(b) FILTER (WHERE g = 2), bool_or(b) FILTER (WHERE g = 1) FROM ag1
----
1|f|t

error 42804
SELECT count(*) FILTER (WHERE x) FROM ag1

query
SELECT string_agg(s, ',' ORDER BY x), string_agg(s, ',' ORDER BY x DESC), string_agg(s, ',' ORDER BY s DESC NULLS LAST) FROM ag1
----
a,a,a,b,c,d,e|e,d,c,b,a,a,a|e,d,c,b,a,a,a

query
SELECT array_agg(x ORDER BY x DESC), array_agg(x ORDER BY x NULLS FIRST), array_agg(s ORDER BY f, x) FROM ag1
----
{NULL,5,4,3,2,1,1,1}|{NULL,1,1,1,2,3,4,5}|{e,d,NULL,c,a,a,a,b}

query
SELECT g, string_agg(s, '-' ORDER BY s DESC), array_agg(x ORDER BY f DESC NULLS LAST) FROM ag1 GROUP BY g ORDER BY g
----
1|c-b-a|{1,3,2}
2|e-d|{NULL,4,5}
3|a-a|{1,1}

query
SELECT g, array_agg(x ORDER BY x) FILTER (WHERE x > 1) FROM ag1 GROUP BY g ORDER BY g
----
1|{2,3}
2|{4,5}
3|NULL

query
SELECT string_agg(s, ',' ORDER BY x USING >, s) FROM ag1
----
e,d,c,b,a,a,a

query
SELECT count(DISTINCT x), count(DISTINCT s), sum(DISTINCT x), avg(DISTINCT n), count(DISTINCT f) FROM ag1
----
5|5|15|2.3000000000000000|6

query
SELECT g, count(DISTINCT x), sum(DISTINCT x) FROM ag1 GROUP BY g ORDER BY g
----
1|3|6
2|2|9
3|1|1

query
SELECT string_agg(DISTINCT s, ','), array_agg(DISTINCT x), array_agg(DISTINCT g) FROM ag1
----
a,b,c,d,e|{1,2,3,4,5,NULL}|{1,2,3}

query
SELECT string_agg(DISTINCT s, ',' ORDER BY s DESC), array_agg(DISTINCT x ORDER BY x DESC NULLS LAST) FROM ag1
----
e,d,c,b,a|{5,4,3,2,1,NULL}

query
SELECT count(DISTINCT x) FILTER (WHERE g <> 3), array_agg(DISTINCT s) FILTER (WHERE x < 5) FROM ag1
----
5|{a,b,c,d}

error 42P10
SELECT string_agg(DISTINCT s, ',' ORDER BY x) FROM ag1

error 42809
SELECT lower(s) FILTER (WHERE true) FROM ag1 GROUP BY s

error 42809
SELECT lower(s ORDER BY s) FROM ag1 GROUP BY s

query
SELECT DISTINCT x FROM ag1 ORDER BY x USING > NULLS LAST
----
5
4
3
2
1
NULL

query
SELECT x FROM ag1 UNION SELECT 7 ORDER BY 1 USING <
----
1
2
3
4
5
7
NULL

query
SELECT 41682372644697136::float8, 4.1682372644697136e16::float8, 1e22::float8, 9007199254740993::float8, 0.1::float8, 1.5e-7::float8
----
4.1682372644697136e+16|4.1682372644697136e+16|1e+22|9.007199254740992e+15|0.1|1.5e-07

query
SELECT 123456789012::float4, 16777217::float4, 3.4028235e38::float4, 1.17549435e-38::float4, 0.1::float4, 1692920064::float4, -112382464::float4, 123382031554022208::float8
----
1.2345679e+11|1.6777216e+07|3.4028235e+38|1.1754944e-38|0.1|1.6929201e+09|-1.12382464e+08|1.2338203155402221e+17

statement ok
CREATE TABLE agv (g int, i2 smallint, i4 int, i8 bigint, n numeric, f4 real, f8 float8)

statement ok
INSERT INTO agv VALUES (1, 1, 10, 100, 1.5, 1.5, 1.5), (1, 2, 20, 200, 2.25, 2.5, 2.5), (1, 4, 40, 400, 3.125, 4, 4), (2, 7, 7, 7, 7, 7, 7), (3, NULL, NULL, NULL, NULL, NULL, NULL), (4, 5, 5, 5, 5.0, 5, 5), (4, 5, 5, 5, 5.00, 5, 5)

query
SELECT g, variance(i2), var_samp(i4), var_pop(i8), stddev(n), stddev_samp(f4), stddev_pop(f8) FROM agv GROUP BY g ORDER BY g
----
1|2.3333333333333333|233.3333333333333333|15555.555555555556|0.81330088733096395985|1.2583057392117916|1.0274023338281628
2|NULL|NULL|0|NULL|NULL|0
3|NULL|NULL|NULL|NULL|NULL|NULL
4|0|0|0|0|0|0

query
SELECT var_samp(n), var_pop(n), stddev_samp(n), stddev_pop(n), variance(f8), var_pop(f4), stddev(i4), stddev_pop(i2) FROM agv
----
4.2151041666666667|3.5125868055555556|2.0530718854113868|1.8741896396991302|3.8666666666666663|3.222222222222222|13.6930639376291528|2.0000000000000000

query
SELECT pg_typeof(variance(i2)), pg_typeof(stddev(i8)), pg_typeof(var_pop(n)), pg_typeof(stddev_pop(f4)), pg_typeof(variance(f8)) FROM agv
----
numeric|numeric|numeric|double precision|double precision

query
SELECT variance(x), stddev_pop(x) FROM (VALUES (1e20::numeric), (1), (-3.5)) v(x)
----
3333333333333333333416666666666666666672.25|47140452079103168293.98

query
SELECT var_samp(x), stddev(x) FROM (VALUES ('NaN'::numeric), (1)) v(x)
----
NaN|NaN

query
SELECT var_pop(x), stddev_samp(x) FROM (VALUES ('Infinity'::float8), (1)) v(x)
----
NaN|NaN

query
SELECT stddev(x) FILTER (WHERE x > 1), var_pop(DISTINCT x) FROM (VALUES (1), (2), (2), (3), (5)) v(x)
----
1.4142135623730950|2.1875000000000000

error 22003
SELECT variance(x) FROM (VALUES (1e308::float8), (-1e308)) v(x)

query
SELECT bool_and(x), bool_or(x), every(x) FROM (VALUES (true), (NULL), (false)) v(x)
----
f|t|f

statement ok
CREATE TABLE agc1 AS SELECT g, sum(x) AS total, string_agg(s, ',' ORDER BY s) AS names, 'k' AS lit FROM ag1 GROUP BY g

query
SELECT * FROM agc1 ORDER BY g
----
1|6|a,b,c|k
2|9|d,e|k
3|2|a,a|k

query
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'agc1'::regclass AND attnum > 0 ORDER BY attnum
----
g|integer
total|bigint
names|text
lit|text

statement ok
CREATE TABLE agc2 (a, b) AS SELECT i4, n FROM agv WHERE g = 1

query
SELECT a, b, pg_typeof(a), pg_typeof(b) FROM agc2 ORDER BY a
----
10|1.5|integer|numeric
20|2.25|integer|numeric
40|3.125|integer|numeric

statement ok
SELECT g, f4 INTO agc3 FROM agv WHERE f4 > 2

query
SELECT * FROM agc3 ORDER BY g, f4
----
1|2.5
1|4
2|7
4|5
4|5

statement ok
CREATE TABLE agc4 AS SELECT * FROM ag1 WITH NO DATA

query
SELECT count(*) FROM agc4
----
0

error 42P07
CREATE TABLE agc4 AS SELECT 1

error 42601
CREATE TABLE agc5 (a, b, c) AS SELECT 1, 2

error 42701
CREATE TABLE agc6 AS SELECT 1 AS a, 2 AS a

error 42P01
SELECT * FROM agc6

query
VALUES (3, 'c'), (1, 'a'), (2, 'b') ORDER BY 1 LIMIT 2
----
1|a
2|b

query
VALUES (3, 'c'), (1, 'a'), (2, 'b') ORDER BY column2 DESC OFFSET 1
----
2|b
1|a

query
SELECT * FROM (VALUES (3), (1), (2) ORDER BY 1 DESC LIMIT 1) v(x)
----
3

statement ok
CREATE TABLE agd (a int, b int)

statement ok
INSERT INTO agd VALUES (1, 5), (1, 3), (2, 4), (3, 1)

error 42P10
SELECT DISTINCT a FROM agd ORDER BY b

error 42P10
SELECT DISTINCT a FROM agd ORDER BY a + 1

query
SELECT DISTINCT a + 1 FROM agd ORDER BY a + 1 DESC
----
4
3
2

query
SELECT a, sum(b) FROM agd GROUP BY a ORDER BY sum(b) DESC, a
----
1|8
2|4
3|1

query
SELECT a FROM agd ORDER BY b + 0 LIMIT 2
----
3
1

query
SELECT 1 FROM agd HAVING 1 > 0
----
1

query
SELECT 1 FROM agd HAVING false
----

query
SELECT 'x' FROM agd HAVING count(*) = 4
----
x

query
SELECT count(*) IS NULL, greatest(max(a), 2), ARRAY[min(a), max(a)], (array_agg(b ORDER BY b))[1] FROM agd
----
f|3|{1,3}|1

query
SELECT sum(x ORDER BY x), sum(x ORDER BY x DESC), sum(DISTINCT x), max(n ORDER BY k), max(n ORDER BY k DESC), min(DISTINCT n) FROM (VALUES (1e16::float8, 1.50, 1), (1::float8, 1.5, 2), (1::float8, 1.500, 3), (-1e16::float8, 0.1, 4)) v(x, n, k)
----
0|0|0|1.500|1.50|0.1

# Aggregates nested in any expression form make the query an aggregation.
query
SELECT sum(x) IS NULL, sum(x) IN (1, 19), sum(x) IS DISTINCT FROM 19, NOT (count(*) > 0) IS TRUE FROM ag1
----
f|f|t|f

query
SELECT g, ARRAY[min(x), max(x)], nullif(count(x), 3), greatest(sum(x), 6) FROM ag1 GROUP BY g ORDER BY g
----
1|{1,3}|NULL|6
2|{4,5}|2|9
3|{1,1}|2|6

query
SELECT NULL::bool IS UNKNOWN, NULL::bool IS NOT TRUE, false IS FALSE, 'f' IS NOT FALSE, true IS NOT UNKNOWN
----
t|t|t|f|t

error 42804
SELECT 1 IS TRUE

# GROUP BY expressions that are more than a column are matched in the
# select list, HAVING and ORDER BY.
query
SELECT x % 2, count(*) FROM ag1 WHERE x IS NOT NULL GROUP BY x % 2 ORDER BY x % 2
----
0|2
1|5

query
SELECT upper(s) AS u, count(*) FROM ag1 GROUP BY 1 ORDER BY u NULLS FIRST
----
NULL|1
A|3
B|1
C|1
D|1
E|1

query
SELECT (g + 1) * 10, sum(x + 1) FROM ag1 GROUP BY g + 1 HAVING g + 1 > 2 ORDER BY 1
----
30|11
40|4

error 42803
SELECT g + 2, count(*) FROM ag1 GROUP BY g + 1
