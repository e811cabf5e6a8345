# to_char / to_number templates and other builtins, checked against PostgreSQL 15

query
SELECT to_char(-1234.5::numeric, 'FM9,999.99PR'), to_char(0.5::numeric, '9.99'), to_char(12::int4, 'FM99th'), to_char(1994::int8, 'RN')
----
<1,234.5>|  .50|12th|        MCMXCIV

query
SELECT to_char(123.456::numeric, '9.99EEEE'), to_char(-0.001::float8, 'S0.999'), to_char(42::int4, '999V99'), to_char(1234567.891::float8, '9G999G999D99')
----
 1.23e+02|-0.001|  4200| 1,234,567.89

query
SELECT to_char(12345::int4, '999'), to_char(7::int4, '"No." 09 "left"'), to_char(-7::numeric, 'MI99'), to_char(7::numeric, 'SG99PL')
----
 ###|No.  07 left|- 7|+ 7+

query
SELECT to_number('-34,338,492', '99G999G999'), to_number('<564646.654564>', '999999.999999PR'), to_number('$1,234.56', 'L99,999.99'), to_number('42nd', '99th')
----
-34338492|-564646.654564|1234.56|42

query
SELECT to_char(timestamp '1997-02-10 17:32:01.4567', 'Day DD Mon YYYY HH12:MI:SS.MS AM'), to_char(timestamp '2001-12-31', 'IYYY-IW-ID DDD WW Q CC J')
----
Monday    10 Feb 1997 05:32:01.456 PM|2002-01-1 365 53 4 21 2452275

query
SELECT to_char(timestamp '1997-02-10 17:32:01', 'FMMonth FMDDth, YYYY "at" HH24"h"'), to_char(timestamp '0044-03-15 12:00:00 BC', 'YYYY BC'), to_char(interval '1 year 2 months 3 days 04:05:06', 'YYYY-MM DD HH24:MI:SS')
----
February 10th, 1997 at 17h|0044 BC|0001-02 03 04:05:06

query
SELECT gcd(12, 18), lcm(4::int8, 6::int8), gcd(0.6, 0.4), lcm(1.5, 2.5), factorial(10)
----
6|12|0.2|7.5|3628800

query
SELECT sind(30), cosd(60), tand(45), asind(0.5), acosd(0.5), atand(1), atan2d(1, 1)
----
0.5|0.5|1|30|60|45|45

query
SELECT round(sinh(1)::numeric, 10), round(cosh(1)::numeric, 10), tanh(0), asinh(0), acosh(1), atanh(0)
----
1.1752011936|1.5430806348|0|0|0|0

query
SELECT width_bucket(5.35, 0.024, 10.06, 5), width_bucket(5.35::float8, 0.024, 10.06, 5), width_bucket(-1, 0, 10, 5), width_bucket(10, 10, 0, 4)
----
3|3|0|1

query
SELECT date_bin('15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01'), date_bin('1 hour', timestamp '2020-02-11 15:44:17', timestamp '2020-02-11 16:30:00')
----
2020-02-11 15:30:00|2020-02-11 15:30:00

query
SELECT make_time(8, 20, 1.5), make_timestamp(2014, 12, 28, 6, 30, 45.887), make_timestamp(-44, 3, 15, 12, 30, 15)
----
08:20:01.5|2014-12-28 06:30:45.887|0044-03-15 12:30:15 BC

query
SELECT make_interval(years => 1, months => 2), make_interval(secs => 1.25), make_interval(1, 2, 3, 4, 5, 6, 7.5), make_interval()
----
1 year 2 mons|00:00:01.25|1 year 2 mons 25 days 05:06:07.5|00:00:00

query
SELECT booleq(true, false), boolne(true, false), float4send(1.5::float4), float8send(-2::float8), int4send(258)
----
f|t|\x3fc00000|\xc000000000000000|\x00000102

error 42601
SELECT to_char(1::int4, '9.9.9')

error 42601
SELECT to_char(1::int4, 'FM9EEEE')

error 0A000
SELECT to_number('1', 'RN')

error 22007
SELECT to_char(interval '1 day', 'Day')

error 22003
SELECT factorial(-1)

error 2201G
SELECT width_bucket(1, 0, 10, 0)

error 2201G
SELECT width_bucket(1::float8, 5, 5, 2)

error 0A000
SELECT date_bin('1 month', timestamp '2020-01-01', timestamp '2001-01-01')

error 22008
SELECT make_time(24, 0, 2.1)

error 22008
SELECT make_timestamp(0, 7, 15, 12, 30, 15)

error 22003
SELECT gcd((-2147483648)::int4, 0)

error 22003
SELECT acosh(0.5)

error 42883
SELECT make_interval(bogus => 1)


query
SELECT float8(1::int8), int4(2.5), text(1), int8(1.5::float8), to_date('05 Dec 2000', 'DD Mon YYYY'), to_timestamp('2011-12-18 11:38 PM +05:30', 'YYYY-MM-DD HH12:MI AM TZH:TZM') = timestamptz '2011-12-18 23:38+05:30'
----
1|3|1|2|2000-12-05|t

error 22P02
SELECT int4('x')

error 22007
SELECT to_timestamp('97/Feb/16', 'YYMonDD')
