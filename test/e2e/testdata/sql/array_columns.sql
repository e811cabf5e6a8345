# Array columns, multidimensional arrays, subscripts, slices and the
# array functions (PostgreSQL 15's arrays.sql in small).

statement ok
CREATE TABLE arr (id int PRIMARY KEY, a int[], b int[][], t text[], v varchar(3)[])

statement ok
INSERT INTO arr VALUES (1, '{1,2,3}', '{{1,2},{3,4}}', '{a,"b c",NULL}', '{x,yy}'), (2, '[0:2]={7,8,9}', '[2:3][1:1]={{5},{6}}', '{}', NULL), (3, NULL, NULL, ARRAY['q"r', 'back\slash', ''], '{zzz}')

query
SELECT id, a, b, t, v FROM arr ORDER BY id
----
1|{1,2,3}|{{1,2},{3,4}}|{a,"b c",NULL}|{x,yy}
2|[0:2]={7,8,9}|[2:3][1:1]={{5},{6}}|{}|NULL
3|NULL|NULL|{"q\"r","back\\slash",""}|{zzz}

query
SELECT id, a[1], a[0], b[2][2], b[3][1], t[2], a[2:], b[1:1][2] FROM arr ORDER BY id
----
1|1|NULL|4|NULL|b c|{2,3}|{{1,2}}
2|8|7|NULL|6|NULL|{9}|{}
3|NULL|NULL|NULL|NULL|back\slash|NULL|NULL

query
SELECT id, array_dims(a), array_lower(b, 1), array_upper(b, 2), array_length(a, 1), array_ndims(b), cardinality(b) FROM arr ORDER BY id
----
1|[1:3]|1|2|3|2|4
2|[0:2]|2|1|3|2|2
3|NULL|NULL|NULL|NULL|NULL|NULL

query
SELECT '[0:2][0:2]={{1,2,3},{4,5,6},{7,8,9}}'::int[], ('{{1,2,3},{4,5,6},{7,8,9}}'::int[])[1:2][2], ('[0:2][0:2]={{1,2,3},{4,5,6},{7,8,9}}'::int[])[1:2][1:2]
----
[0:2][0:2]={{1,2,3},{4,5,6},{7,8,9}}|{{1,2},{4,5}}|{{5,6},{8,9}}

query
SELECT ARRAY[[1,2],[3,4]], ARRAY[ARRAY[1,2],ARRAY[3,4]] || ARRAY[5,6], 0 || ARRAY[1,2], ARRAY[1,2] || 3::bigint, 'a' || 1
----
{{1,2},{3,4}}|{{1,2},{3,4},{5,6}}|{0,1,2}|{1,2,3}|a1

query
SELECT ARRAY[1,2,3]::text[]::int[]::float8[], '{1.5,2.5}'::numeric[]::int[], pg_typeof(ARRAY[1,2] || 3::bigint)
----
{1,2,3}|{2,3}|bigint[]

statement ok
UPDATE arr SET a[5] = 50, t[1] = 'first' WHERE id = 1

statement ok
UPDATE arr SET a[-1] = -10 WHERE id = 2

statement ok
UPDATE arr SET a[1:2] = '{100,200}', b[1:2][1:1] = '{{10},{30}}' WHERE id = 1

statement ok
UPDATE arr SET a[2] = 2 WHERE id = 3

statement ok
INSERT INTO arr (id, a[2:3], b[1:1][1:2]) VALUES (4, '{20,30}', '{{1,2}}')

query
SELECT id, a, b, t FROM arr ORDER BY id
----
1|{100,200,3,NULL,50}|{{10,2},{30,4}}|{first,"b c",NULL}
2|[-1:2]={-10,7,8,9}|[2:3][1:1]={{5},{6}}|{}
3|[2:2]={2}|NULL|{"q\"r","back\\slash",""}
4|[2:3]={20,30}|{{1,2}}|NULL

error 2202E
UPDATE arr SET b[5][5] = 1 WHERE id = 1

error 22004
UPDATE arr SET a[NULL] = 1 WHERE id = 1

error 2202E
UPDATE arr SET a[1][1] = 1 WHERE id = 1

error 42804
INSERT INTO arr (id, a[1]) VALUES (5, now())

error 22001
INSERT INTO arr (id, v) VALUES (6, '{toolong}')

statement ok
INSERT INTO arr (id) VALUES (5)

error 2202E
UPDATE arr SET a[:] = '{1}' WHERE id = 5

query
SELECT array_append(ARRAY[1,2], 3), array_prepend(0, '[5:6]={1,2}'::int[]), array_cat(ARRAY[[1,2]], ARRAY[[3,4]]), array_remove(ARRAY[1,2,1,NULL], 1), array_replace(ARRAY[1,2,1], 1, 9)
----
{1,2,3}|[5:7]={0,1,2}|{{1,2},{3,4}}|{2,NULL}|{9,2,9}

query
SELECT array_position(ARRAY['a','b','a'], 'a', 2), array_positions(ARRAY[1,NULL,1,NULL], NULL), array_fill(7, ARRAY[2,2], ARRAY[0,1]), array_fill('x'::text, ARRAY[3]), trim_array(ARRAY[1,2,3,4], 3)
----
3|{2,4}|[0:1][1:2]={{7,7},{7,7}}|{x,x,x}|{1}

query
SELECT string_to_array('a,b,,c', ','), string_to_array('abc', NULL), string_to_array('a*x*b', '*', 'x'), array_to_string(ARRAY[1,NULL,3], '-', 'n'), array_to_string(ARRAY[[1,2],[3,4]], ',')
----
{a,b,"",c}|{a,b,c}|{a,NULL,b}|1-n-3|1,2,3,4

query
SELECT s FROM string_to_table('1|2||3', '|', '') AS s
----
1
2
NULL
3

query
SELECT ARRAY[1,2,3] @> ARRAY[3,1], ARRAY[1,2] <@ ARRAY[1], ARRAY[1,2] && ARRAY[2,5], ARRAY[1,NULL] @> ARRAY[NULL]::int[], width_bucket(5, ARRAY[1,3,5,7]), width_bucket(0, ARRAY[1,3])
----
t|f|t|f|3|0

query
SELECT ARRAY[1,2] < ARRAY[1,2,3], '{1,2}'::int[] = '[0:1]={1,2}'::int[], ARRAY[[1,2]] > ARRAY[1,2], 3 = ANY ('{{1,2},{3,4}}'::int[]), 0 < ALL (ARRAY[[1,2],[3,4]])
----
t|f|t|t|t

query
SELECT x, y FROM unnest(ARRAY[1,2,3], ARRAY['a','b']) AS u(x, y)
----
1|a
2|b
3|NULL

query
SELECT generate_subscripts('[3:5]={1,2,3}'::int[], 1)
----
3
4
5

query
SELECT * FROM generate_subscripts(ARRAY[[1,2],[3,4]], 2, true)
----
2
1

query
SELECT array_agg(a ORDER BY a) FROM (VALUES (ARRAY[1,2]), (ARRAY[3,4])) v(a)
----
{{1,2},{3,4}}

query
SELECT array(SELECT ARRAY[i, i * 10] FROM generate_series(1, 3) i), array(SELECT i FROM generate_series(1, 0) i)
----
{{1,10},{2,20},{3,30}}|{}

error 2202E
SELECT array_agg(a) FROM (VALUES (ARRAY[1,2]), (ARRAY[3])) v(a)

error 2202E
SELECT ARRAY[[1,2],[3]]

error 22P02
SELECT '{{1,2},{3}}'::int[]

error 22P02
SELECT '{{},{}}'::text[]

error 0A000
SELECT array_position(ARRAY[[1]], 1)

query
SELECT '{ a , "b" ,  c d }'::text[], '{"",NULL,"NULL",null}'::text[], '{{" x"},{"y "}}'::text[]
----
{a,b,"c d"}|{"",NULL,"NULL",NULL}|{{" x"},{"y "}}

statement ok
CREATE INDEX arr_a ON arr (a)

statement ok
CREATE TABLE arr_uk (k int[] UNIQUE)

statement ok
INSERT INTO arr_uk VALUES ('{1,2}'), ('{1,2,3}'), ('[0:1]={1,2}'), ('{{1,2}}')

error 23505
INSERT INTO arr_uk VALUES ('{1,2,3}')

query
SELECT k FROM arr_uk ORDER BY k
----
[0:1]={1,2}
{1,2}
{{1,2}}
{1,2,3}

query
SELECT k FROM arr_uk WHERE k = '{1,2,3}'
----
{1,2,3}

statement ok
CREATE TABLE arr_big (id int, a text[])

statement ok
INSERT INTO arr_big SELECT 1, array_agg(repeat(i::text, 50)) FROM generate_series(1, 2000) i

query
SELECT cardinality(a), a[1999] = repeat('1999', 50), pg_column_size(a) < 100000 FROM arr_big
----
2000|t|t

statement ok
UPDATE arr_big SET a[2001] = 'last'

query
SELECT cardinality(a), a[2001], a[1] = repeat('1', 50) FROM arr_big
----
2001|last|t

query
SELECT format('%s-%s', VARIADIC ARRAY['a', 'b']), concat(VARIADIC ARRAY[1, 2, 3]), concat_ws(',', VARIADIC ARRAY['x', NULL, 'z'])
----
a-b|123|x,z
