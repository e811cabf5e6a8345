# DateStyle, IntervalStyle, extra_float_digits and bytea_output: output in every
# style, date/time input read in DateStyle's field order, interval input forms.
# Expected rows are PostgreSQL 15's (checked with TIDAL_SQLTEST_PG).

statement ok
SET TimeZone = 'America/New_York'

query
SELECT date '2001-02-03'::text, timestamp '2001-02-03 04:05:06.5'::text, timestamptz '2001-07-03 04:05:06+00'::text, time '04:05:06.25'::text, date '0044-03-15 BC'::text
----
2001-02-03|2001-02-03 04:05:06.5|2001-07-03 00:05:06-04|04:05:06.25|0044-03-15 BC

statement ok
SET DateStyle = 'Postgres'

query
SELECT date '2001-02-03'::text, timestamp '2001-02-03 04:05:06.5'::text, timestamptz '2001-07-03 04:05:06+00'::text, time '04:05:06.25'::text, date '0044-03-15 BC'::text, timestamp '0044-03-15 12:00 BC'::text
----
02-03-2001|Sat Feb 03 04:05:06.5 2001|Tue Jul 03 00:05:06 2001 EDT|04:05:06.25|03-15-0044 BC|Fri Mar 15 12:00:00 0044 BC

statement ok
SET DateStyle = 'SQL, DMY'

query
SELECT date '2001-02-03'::text, timestamp '2001-02-03 04:05:06.5'::text, timestamptz '2001-07-03 04:05:06+00'::text, date '3/2/2001'::text
----
03/02/2001|03/02/2001 04:05:06.5|03/07/2001 00:05:06 EDT|03/02/2001

statement ok
SET DateStyle = 'German'

query
SELECT date '2001-02-03'::text, timestamptz '2001-12-03 04:05:06+00'::text, 'infinity'::date::text, '-infinity'::timestamp::text
----
03.02.2001|02.12.2001 23:05:06 EST|infinity|-infinity

statement ok
SET DateStyle = 'ISO, MDY'

query
SELECT date '1/8/1999', date 'January 8, 1999', date '08-Jan-1999', date '1999.008', date 'J2451187', date '990108', date '01/02/03', date 'y1999m01d08'
----
1999-01-08|1999-01-08|1999-01-08|1999-01-08|1999-01-08|1999-01-08|2003-01-02|1999-01-08

error 22008
SELECT date '18/1/1999'

statement ok
SET DateStyle TO ymd

query
SELECT date '01/02/03', date '99 01 08', date '99-Jan-08'
----
2001-02-03|1999-01-08|1999-01-08

error 22008
SELECT date '1/18/1999'

statement ok
SET DateStyle TO dmy

query
SELECT date '18/1/1999', date '01/02/03', date '08 Jan 99', date 'Jan-08-99'
----
1999-01-18|2003-02-01|1999-01-08|1999-01-08

error 22008
SELECT date '1/18/1999'

statement ok
SET DateStyle = 'ISO, MDY'

query
SELECT timestamptz '1997-02-10 17:32:01-0800'::text, timestamptz 'Feb 10 5:32PM 1997 PST'::text, timestamptz '19970210 173201 America/Chicago'::text, timestamptz '1997.041 17:32:01 UTC'::text, timestamptz '1997-07-10 17:32:01 MET DST'::text, timestamptz '2000-03-15 08:14:01 GMT+8'::text, timestamp 'J2451187 04:05:06', timestamp '1999-01-08 t040506', timestamp 'Mon Feb 10 17:32:01.5 1997 PST'
----
1997-02-10 20:32:01-05|1997-02-10 20:32:00-05|1997-02-10 18:32:01-05|1997-02-10 12:32:01-05|1997-07-10 11:32:01-04|2000-03-15 11:14:01-05|1999-01-08 04:05:06|1999-01-08 04:05:06|1997-02-10 17:32:01.5

error 22009
SELECT timestamptz '1999-01-08 04:05:06 +16'

error 22023
SELECT timestamptz '1999-01-08 04:05:06 Mars/Olympus'

error 22007
SELECT timestamp '1999-01-08 04:05:06 foo'

error 22008
SELECT timestamp '1999-01-08 24:00:01'

query
SELECT time '040506'::text, time '04:05 PM'::text, time '2003-04-12 04:05:06 America/New_York'::text, time '12:34.5'::text, time '24:00'::text
----
04:05:06|16:05:00|04:05:06|00:12:34.5|24:00:00

error 22007
SELECT time '04:05:06 America/New_York'

query
SELECT interval '-1 +02:03', interval '1-2 3 4:05:06', interval 'P1Y2M3DT4H5M6S', interval 'P0001-02-03T04:05:06', interval 'PT1.5S', interval '1 2' day to hour, interval '12:34' minute to second, interval '@ 1 year 2 mons ago', interval '1.5 weeks'
----
-1 days +02:03:00|1 year 2 mons 3 days 04:05:06|1 year 2 mons 3 days 04:05:06|1 year 2 mons 3 days 04:05:06|00:00:01.5|1 day 02:00:00|00:12:34|-1 years -2 mons|10 days 12:00:00

error 22015
SELECT interval '2147483648 days'

error 22007
SELECT interval '1 week 1 week'

statement ok
SET IntervalStyle = sql_standard

query
SELECT interval '-1 2:03:04'::text, interval '1-2'::text, interval '1 year -2 days 3 hours'::text, interval '0'::text, interval '3 4:05:06.5'::text
----
-1 2:03:04|1-2|+1-0 -2 +3:00:00|0|3 4:05:06.5

statement ok
SET IntervalStyle = postgres_verbose

query
SELECT interval '-1 2:03:04'::text, interval '1 day -2 hours'::text, interval '-1.5 sec'::text, interval '0'::text, interval '1 sec'::text
----
@ 1 day -2 hours -3 mins -4 secs ago|@ 1 day -2 hours|@ 1.5 secs ago|@ 0|@ 1 sec

statement ok
SET IntervalStyle = iso_8601

query
SELECT interval '-1 2:03:04'::text, interval '1 year 2 mons -3 days 4.25 sec'::text, interval '0'::text, interval '-0.5 sec'::text
----
P-1DT2H3M4S|P1Y2M-3DT4.25S|PT0S|PT-0.5S

statement ok
SET extra_float_digits = 0

query
SELECT (1.1::float8 / 3)::text, (0.1::float4)::text, 1e100::float8::text, 123456789012345678::float8::text, 1.5e-5::float8::text
----
0.366666666666667|0.1|1e+100|1.23456789012346e+17|1.5e-05

statement ok
SET extra_float_digits = -3

query
SELECT (1.1::float8 / 3)::text, 100000::float4::text, 1234567::float4::text
----
0.366666666667|1e+05|1.23e+06

statement ok
SET bytea_output = escape

query
SELECT 'ab\000c\\d'::bytea::text, '\xff7f80'::bytea::text
----
ab\000c\\d|\377\177\200

error 22023
SET bytea_output = octal

error 22023
SET DateStyle = 'sql, iso'

error 22023
SET DateStyle = 'Klingon'

query
SHOW DateStyle
----
ISO, MDY

statement ok
SET DateStyle = 'US'

query
SHOW DateStyle
----
ISO, MDY
