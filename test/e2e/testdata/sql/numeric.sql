# numeric: literals, text I/O, typmods, arithmetic and PostgreSQL's result scales,
# functions, casts, aggregates, and numeric index keys. Checked against PostgreSQL 15.

query
SELECT 1.5, -0.00, 1e3, 1.5e-3, 12345678901234567890, pg_typeof(1.5), pg_typeof(12345678901234567890), pg_typeof(2147483648)
----
1.5|0.00|1000|0.0015|12345678901234567890|numeric|numeric|bigint

query
SELECT '  1.50  '::numeric, '.5'::numeric, '5.'::numeric, '00012.3400'::numeric, 'NaN'::numeric, '-inf'::numeric, '+Infinity'::numeric
----
1.50|0.5|5|12.3400|NaN|-Infinity|Infinity

error 22P02
SELECT 'abc'::numeric

error 22P02
SELECT '1e'::numeric

error 22003
SELECT '1e200000'::numeric

query
SELECT 1.005::numeric(10,2), 2.5::numeric(1,0), -0.5::numeric(1,0), 99.995::numeric(5,2), 0.0049::numeric(3,2), 12345::numeric(5,-2), 0.05::numeric(2,3), 'NaN'::numeric(3,1)
----
1.01|3|-1|100.00|0.00|12300|0.050|NaN

error 22003
SELECT 123.456::numeric(4,2)

error 22003
SELECT 'Infinity'::numeric(5,2)

error 22023
SELECT 1::numeric(1001)

error 22023
SELECT 1::numeric(2,1001)

query
SELECT 1.5 + 2.25, -1.5 + 1.5, 0.1 + 0.2, 99999999999999999999 + 1, 1.5 - 2.25, 1.50 * 2.5, -3 * 0.1
----
3.75|0.0|0.3|100000000000000000000|-0.75|3.750|-0.3

query
SELECT 10::numeric / 3, 1::numeric / 7, 2 / 3.000000, 123456789 / 0.001, -7::numeric / 2, 1 / 3e-30, 0 / 7.5
----
3.3333333333333333|0.14285714285714285714|0.66666666666666666667|123456789000.00000000|-3.5000000000000000|333333333333333333333333333333.333333333333333333333333333333|0.00000000000000000000

query
SELECT 7.5 % 2, -7.5 % 2, 7::numeric % -3, mod(-7.5, 2), div(7.5, 2), div(-7.5, 2)
----
1.5|-1.5|1|-1.5|3|-3

error 22012
SELECT 1.5 / 0

error 22012
SELECT 1.5 % 0.0

query
SELECT 'NaN'::numeric + 1, 'Infinity'::numeric + '-Infinity', 'Infinity'::numeric * -2, 'Infinity'::numeric / 3, 5 / 'Infinity'::numeric, 'Infinity'::numeric % 2, 5 % 'Infinity'::numeric
----
NaN|NaN|-Infinity|Infinity|0|NaN|5

query
SELECT -(1.50), @ -2.5, abs(-1.50), sign(-3.5), sign(0.0), sign(2.5)
----
-1.50|2.5|1.50|-1|0|1

query
SELECT round(2.5), round(-2.5), round(1.2345, 2), round(1234.5, -2), round(1.5, 3), trunc(-1.99), trunc(1.999, 2), trunc(1999, -2)
----
3|-3|1.23|1200|1.500|-1|1.99|1900

query
SELECT ceil(1.2), ceil(-1.2), ceiling(-0.5), floor(-1.2), floor(1.8), scale(1.500), min_scale(1.500), trim_scale(1.500)
----
2|-1|0|-2|1|3|1|1.5

query
SELECT sqrt(2::numeric), sqrt(100::numeric), sqrt(0.0001), sqrt(1e20), |/ 16.0
----
1.414213562373095|10.000000000000000|0.01000000000000000|10000000000.00000|4

error 2201F
SELECT sqrt(-1::numeric)

query
SELECT power(2::numeric, 10), power(2::numeric, -2), 1.5 ^ 3, power(2::numeric, 0.5), power(-2::numeric, 3), power(10::numeric, -3), 0.0 ^ 0
----
1024.0000000000000000|0.2500000000000000|3.3750000000000000|1.4142135623730950|-8.0000000000000000|0.0010000000000000|1.0000000000000000

error 2201F
SELECT power(0::numeric, -1)

error 2201F
SELECT power(-2::numeric, 0.5)

query
SELECT 1.5 = 1.50, 1.5 < 2, 2 > 1.99, 1.5 <> 1.5, 'NaN'::numeric > 'Infinity'::numeric, 'NaN'::numeric = 'NaN'::numeric, '-Infinity'::numeric < -1e100
----
t|t|t|f|t|t|t

query
SELECT 1 + 1.5, pg_typeof(1 + 1.5), pg_typeof(1::int8 * 2.0), pg_typeof(1.5 + 1::float8), 1.5 + 1::float8, pg_typeof(round(1)), pg_typeof(round(1.5))
----
2.5|numeric|numeric|double precision|2.5|double precision|numeric

query
SELECT 2.5::int4, (-2.5)::int4, 3.5::int2, 1e15::int8, 1.5::float8, 12345.678::float4, 0.1::float8::numeric, 1.23456789e-5::float8::numeric, 0.1::float4::numeric
----
3|-3|4|1000000000000000|1.5|12345.678|0.1|0.0000123456789|0.1

query
SELECT 1.50::text, '3.25'::text::numeric, 'Infinity'::float8::numeric, 'NaN'::numeric::float8, 42::numeric, (-9223372036854775808)::int8::numeric
----
1.50|3.25|Infinity|NaN|42|-9223372036854775808

error 22003
SELECT 40000::numeric::int2

error 22003
SELECT 9223372036854775808::int8

error 0A000
SELECT 'NaN'::numeric::int4

error 0A000
SELECT 'Infinity'::numeric::int8

query
SELECT greatest(1, 2.5, 2), least(1.5, 0.5::numeric(3,1)), coalesce(NULL, 1.25), CASE WHEN true THEN 1 ELSE 2.5 END
----
2.5|0.5|1.25|1

query
SELECT ln(0.5), ln(1.05), ln(1e100), ln(1.0000000001), exp(1.0), exp(10.5), exp(100.123), exp(-100.5)
----
-0.6931471805599453|0.048790164169432003|230.25850929940457|0.00000000009999999999500000|2.7182818284590452|36315.502674246638|30399497973617603767213595855347100570496028.833|0.00000000000000000000000000000000000000000002256340135917036

query
SELECT log(100.0), log(2.0, 8), log(10, 1000), log(1.5), log(2, 1e100), pg_typeof(log(2)), pg_typeof(ln(2)), pg_typeof(ln(2.0))
----
2.0000000000000000|3.0000000000000000|3.0000000000000000|0.1760912590556812|332.19280948873623|double precision|double precision|numeric

query
SELECT power(1.0001, 10000), power(2.5, 2.5), power(10, 0.5), 'Infinity'::numeric ^ 2, 2 ^ '-Infinity'::numeric, 0.5 ^ 'Infinity'::numeric
----
2.7181459268252249|9.8821176880261854|3.1622776601683793|Infinity|0|0

error 2201E
SELECT ln(0::numeric)

error 2201E
SELECT log(-1::numeric)

error 22012
SELECT log(1::numeric, 10)

error 22003
SELECT exp(10000::numeric)

query
SELECT max(x), min(x), max(y), min(y) FROM (VALUES (1.50, 2.0), (1.5, 2.00), (1.500, 3)) v(x, y)
----
1.500|1.500|3|2.00

query
SELECT x FROM generate_series(1, 2.5, 0.5) x
----
1
1.5
2.0
2.5

query
SELECT x, pg_typeof(x) FROM generate_series(1.0, 3) x
----
1.0|numeric
2.0|numeric
3.0|numeric

query
SELECT count(*), sum(x) FROM generate_series(10, -10, -0.25) x
----
81|0.00

error 22023
SELECT * FROM generate_series(1::numeric, 'NaN')

error 22023
SELECT * FROM generate_series(1::numeric, 2, 0)

query
SELECT array_agg(x), '{1.5,2,NaN}'::numeric[], pg_typeof(ARRAY[1.5, 2]), 1.5 = ANY(ARRAY[1.50, 3]), '{1,2}'::int[]::numeric[], (ARRAY[1.25, 2.5])[2] FROM (VALUES (1.5), (2.00), ('NaN')) v(x)
----
{1.5,2.00,NaN}|{1.5,2,NaN}|numeric[]|t|{1,2}|2.5

statement ok
CREATE TABLE prices (id int PRIMARY KEY, amount numeric(10,2), ratio numeric, qty int8)

statement ok
INSERT INTO prices VALUES (1, 10.005, 0.5, 3), (2, 20, 1.25, 9223372036854775807), (3, -5.5, 'NaN', 9223372036854775807), (4, NULL, 'Infinity', 1), (5, 0.004, 1e-20, 2)

error 22003
INSERT INTO prices VALUES (6, 123456789.123, 1, 1)

query
SELECT id, amount, ratio, qty FROM prices ORDER BY id
----
1|10.01|0.5|3
2|20.00|1.25|9223372036854775807
3|-5.50|NaN|9223372036854775807
4|NULL|Infinity|1
5|0.00|0.00000000000000000001|2

query
SELECT id, amount FROM prices ORDER BY amount DESC NULLS LAST, id
----
2|20.00
1|10.01
5|0.00
3|-5.50
4|NULL

query
SELECT id, ratio FROM prices ORDER BY ratio
----
5|0.00000000000000000001
1|0.5
2|1.25
4|Infinity
3|NaN

query
SELECT sum(amount), avg(amount), min(amount), max(amount), count(amount), pg_typeof(sum(amount)), pg_typeof(avg(amount)) FROM prices
----
24.51|6.1275000000000000|-5.50|20.00|4|numeric|numeric

query
SELECT sum(qty), pg_typeof(sum(qty)), avg(qty), sum(qty % 7), avg(id), pg_typeof(avg(id)), avg(id::int2), avg(id::float8), pg_typeof(sum(id)) FROM prices
----
18446744073709551620|numeric|3689348814741910324|6|3.0000000000000000|numeric|3.0000000000000000|3|bigint

query
SELECT sum(ratio), max(ratio), min(ratio) FROM prices
----
NaN|NaN|0.00000000000000000001

query
SELECT sum(ratio) FROM prices WHERE id <> 3
----
Infinity

query
SELECT avg(x::numeric), sum(x::int8), avg(x) FROM generate_series(1, 10) x
----
5.5000000000000000|55|5.5000000000000000

query
SELECT amount * 2, amount / 3, amount + ratio FROM prices WHERE id = 1
----
20.02|3.3366666666666667|10.51

statement ok
UPDATE prices SET amount = amount * 1.1 WHERE id = 2

query
SELECT amount FROM prices WHERE id = 2
----
22.00

query
SELECT id FROM prices WHERE amount > 0 ORDER BY id
----
1
2

query
SELECT id FROM prices WHERE amount = 10.01 AND amount = 10.010
----
1

query
SELECT id FROM prices WHERE ratio::float8 > 1 ORDER BY id
----
2
3
4

statement ok
CREATE TABLE ledger (k numeric, note text)

statement ok
INSERT INTO ledger SELECT i / 4.0, 'n' || i FROM generate_series(1, 400) i

statement ok
INSERT INTO ledger VALUES (1.50, 'dup'), (-1e30, 'low'), (1e30, 'high'), ('NaN', 'nan'), (NULL, 'null')

statement ok
CREATE INDEX ledger_k ON ledger (k)

query
SELECT k, note FROM ledger WHERE k BETWEEN 1.25 AND 2 ORDER BY k, note
----
1.2500000000000000|n5
1.50|dup
1.5000000000000000|n6
1.7500000000000000|n7
2.0000000000000000|n8

query
SELECT count(*) FROM ledger WHERE k > 99.5
----
4

query
SELECT k, note FROM ledger WHERE k > 99.5 ORDER BY k
----
99.7500000000000000|n399
100.0000000000000000|n400
1000000000000000000000000000000|high
NaN|nan

query
SELECT k, note FROM ledger WHERE k < 0.5 ORDER BY k
----
-1000000000000000000000000000000|low
0.25000000000000000000|n1

query
SELECT k, note FROM ledger WHERE k = 1.5 ORDER BY note
----
1.50|dup
1.5000000000000000|n6

query
SELECT count(*), count(DISTINCT k), sum(k), avg(k) FROM ledger WHERE k < 10
----
41|40|-999999999999999999999999999803.50000000000000000000|-24390243902439024390243902434.23170731707317073171

query
SELECT trim_scale(k), count(*) FROM ledger WHERE k IN (1.5, 2, 1e30) GROUP BY k ORDER BY k
----
1.5|2
2|1
1000000000000000000000000000000|1

query
SELECT count(*) FROM (SELECT DISTINCT k FROM (VALUES (1.5), (1.50), (2.0), (2)) v(k)) d
----
2

query
SELECT count(*) FROM (SELECT k FROM (VALUES (1.5), (2.0)) v(k) UNION SELECT 1.50) u
----
2

query
SELECT a.k, b.x FROM (VALUES (1.5), (2.0), (3)) a(k) JOIN (VALUES (1.50, 'a'), (2, 'b')) b(k, x) ON a.k = b.k ORDER BY 1
----
1.5|a
2.0|b

statement ok
CREATE TABLE uniq (k numeric PRIMARY KEY)

statement ok
INSERT INTO uniq VALUES (1.5), (2)

error 23505
INSERT INTO uniq VALUES (1.50)

query
SELECT k FROM uniq ORDER BY k
----
1.5
2

query
SELECT pg_typeof(NULL), pg_typeof(1), pg_typeof('a'::varchar(3)), pg_typeof(1.5::numeric(5,1)), pg_typeof(1.5::float4)
----
unknown|integer|character varying|numeric|real

query
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'prices'::regclass AND attnum > 0 ORDER BY attnum
----
integer
numeric(10,2)
numeric
bigint
