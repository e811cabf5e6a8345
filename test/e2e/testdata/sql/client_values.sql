# Values and statement shapes that client drivers decode differently: every
# back end (pgx, lib/pq, the embedded driver) must print the same rows.

query
SELECT 1::int2, '-2147483648'::int4, 9223372036854775807::int8, 4294967295::oid, NULL::int4
----
1|-2147483648|9223372036854775807|4294967295|NULL

query
SELECT 1.5::float4, 0.1::float4, 3.4028235e38::float4, 1e-45::float4, 'NaN'::float4, '-Infinity'::float4, '-0'::float4
----
1.5|0.1|3.4028235e+38|1e-45|NaN|-Infinity|-0

query
SELECT 0.1::float8, 1e15::float8, 123456789012345::float8, 1e-5::float8, 1.7976931348623157e308::float8, 'Infinity'::float8, '-0'::float8, 'NaN'::float8
----
0.1|1e+15|123456789012345|1e-05|1.7976931348623157e+308|Infinity|-0|NaN

query
SELECT true, false, NULL::bool
----
t|f|NULL

query
SELECT 'a''b'::text, ''::text, NULL::text, 'x'::varchar(3), 'ab'::char(4), 'nm'::name, 'q'::"char"
----
a'b||NULL|x|ab  |nm|q

query
SELECT '\x00ff10'::bytea, ''::bytea, 'abc'::bytea
----
\x00ff10|\x|\x616263

query
SELECT '2026-11-30 01:02:03.456'::timestamp, '0044-03-15 12:00:00 BC'::timestamp, 'infinity'::timestamp, '2000-01-01 00:00:00.000001'::timestamp
----
2026-11-30 01:02:03.456|0044-03-15 12:00:00 BC|infinity|2000-01-01 00:00:00.000001

query
SELECT '2026-11-30 01:02:03.5+02'::timestamptz, '-infinity'::timestamptz, '1999-12-31 23:59:59-08'::timestamptz
----
2026-11-29 23:02:03.5+00|-infinity|2000-01-01 07:59:59+00

query
SELECT ARRAY[1, NULL]::int8[], ARRAY[1.5, 'NaN']::float8[], ARRAY['\x01'::bytea], ARRAY[true]
----
{1,NULL}|{1.5,NaN}|{"\\x01"}|{t}

# Several statements in one block: each row-returning one adds its rows.
query
SELECT 1; SELECT 2, 3; SELECT 'x' WHERE false; SELECT 4
----
1
2|3
4

statement ok
CREATE TABLE client_values (id int PRIMARY KEY, v text)

query
INSERT INTO client_values VALUES (1, 'one'), (2, NULL); SELECT id, v FROM client_values ORDER BY id
----
1|one
2|NULL

query
INSERT INTO client_values VALUES (3, 'three') RETURNING id, v
----
3|three

query
SELECT id FROM client_values WHERE false
----

# An error in a multi-statement block rolls back the whole implicit transaction.
error 23505
INSERT INTO client_values VALUES (4, 'four'); INSERT INTO client_values VALUES (1, 'dup')

query
SELECT count(*) FROM client_values
----
3

# Transaction blocks: an error aborts the block until ROLLBACK.
statement ok
BEGIN

statement ok
INSERT INTO client_values VALUES (5, 'five')

error 22012
SELECT 1 / 0

error 25P02
SELECT 1

statement ok
ROLLBACK

query
SELECT count(*) FROM client_values
----
3

statement ok
BEGIN; UPDATE client_values SET v = 'uno' WHERE id = 1; COMMIT

query
SELECT v FROM client_values WHERE id = 1
----
uno

error 42601
SELEC 1

error 42P01
SELECT * FROM no_such_table

statement ok
DROP TABLE client_values
