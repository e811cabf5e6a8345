# GROUPING SETS, ROLLUP, CUBE and GROUPING(): the sets PostgreSQL expands
# the GROUP BY clause into, NULL for the expressions a set leaves out, the
# one row of an empty grouping set over no input. Checked against
# PostgreSQL 15.

statement ok
CREATE TABLE gs (a int, b int, v int)

statement ok
INSERT INTO gs VALUES (1,1,10),(1,1,11),(1,2,12),(1,2,13),(1,3,14),(2,3,15),(3,3,16),(3,4,17),(4,1,18),(4,1,19),(NULL,1,1)

query
SELECT a, b, grouping(a, b), sum(v), count(*) FROM gs GROUP BY ROLLUP (a, b) ORDER BY 1, 2, 3
----
1|1|0|21|2
1|2|0|25|2
1|3|0|14|1
1|NULL|1|60|5
2|3|0|15|1
2|NULL|1|15|1
3|3|0|16|1
3|4|0|17|1
3|NULL|1|33|2
4|1|0|37|2
4|NULL|1|37|2
NULL|1|0|1|1
NULL|NULL|1|1|1
NULL|NULL|3|146|11

query
SELECT a, b, grouping(b, a), sum(v) FROM gs GROUP BY CUBE (a, b) ORDER BY 3, 1, 2
----
1|1|0|21
1|2|0|25
1|3|0|14
2|3|0|15
3|3|0|16
3|4|0|17
4|1|0|37
NULL|1|0|1
NULL|1|1|59
NULL|2|1|25
NULL|3|1|45
NULL|4|1|17
1|NULL|2|60
2|NULL|2|15
3|NULL|2|33
4|NULL|2|37
NULL|NULL|2|1
NULL|NULL|3|146

query
SELECT a, b, sum(v) FROM gs GROUP BY GROUPING SETS (a, b, ()) ORDER BY 1, 2
----
1|NULL|60
2|NULL|15
3|NULL|33
4|NULL|37
NULL|1|59
NULL|2|25
NULL|3|45
NULL|4|17
NULL|NULL|1
NULL|NULL|146

query
SELECT a, b, sum(v) FROM gs GROUP BY a, ROLLUP (b) ORDER BY 1, 2
----
1|1|21
1|2|25
1|3|14
1|NULL|60
2|3|15
2|NULL|15
3|3|16
3|4|17
3|NULL|33
4|1|37
4|NULL|37
NULL|1|1
NULL|NULL|1

query
SELECT a, b, max(v) FROM gs GROUP BY ROLLUP ((a, b)) ORDER BY 1, 2
----
1|1|11
1|2|13
1|3|14
2|3|15
3|3|16
3|4|17
4|1|19
NULL|1|1
NULL|NULL|19

query
SELECT count(*) FROM gs GROUP BY GROUPING SETS ((), (), a) ORDER BY 1
----
1
1
2
2
5
11
11

query
SELECT count(*) FROM gs GROUP BY DISTINCT GROUPING SETS ((), ()), ROLLUP (a) ORDER BY 1
----
1
1
2
2
5
11

query
SELECT a, grouping(a), count(*) FROM gs WHERE false GROUP BY ROLLUP (a)
----
NULL|1|0

query
SELECT sum(v) FROM gs WHERE false GROUP BY ()
----
NULL

query
SELECT a, sum(v) FROM gs GROUP BY ROLLUP (a) HAVING grouping(a) = 1 OR sum(v) > 30 ORDER BY 1
----
1|60
3|33
4|37
NULL|146

query
SELECT a, sum(v), sum(sum(v)) OVER (ORDER BY a) FROM gs GROUP BY ROLLUP (a) ORDER BY 1
----
1|60|60
2|15|75
3|33|108
4|37|145
NULL|146|292
NULL|1|292

query
SELECT grouping(a) FROM gs GROUP BY a ORDER BY 1 LIMIT 1
----
0

error 42803
SELECT grouping(b) FROM gs GROUP BY a
