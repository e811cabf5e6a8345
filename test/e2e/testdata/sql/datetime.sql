# date, time, interval and timestamptz in the session's time zone.
# Expected rows are PostgreSQL 15's (checked with TIDAL_SQLTEST_PG).

statement ok
SET TimeZone = 'UTC'

query
SELECT '2020-01-01'::date, date '2020-02-29', 'infinity'::date, '-infinity'::date, '4714-11-24 BC'::date, 'Jan 2, 2020'::date, '1/2/2020'::date, '20200103'::date, '2020-01-01 12:34'::date, 'epoch'::date
----
2020-01-01|2020-02-29|infinity|-infinity|4714-11-24 BC|2020-01-02|2020-01-02|2020-01-03|2020-01-01|1970-01-01

query
SELECT date '2020-01-31' + 1, 1 + date '2020-12-31', date '2020-03-01' - 1, date '2020-03-01' - date '2019-03-01', date '2020-01-31' + interval '1 month', date '2020-01-01' - interval '1 hour', date '2020-01-01' + time '10:30'
----
2020-02-01|2021-01-01|2020-02-29|366|2020-02-29 00:00:00|2019-12-31 23:00:00|2020-01-01 10:30:00

query
SELECT date '2020-01-01' < date '2020-01-02', date '2020-01-01' = timestamp '2020-01-01 00:00', date '2020-01-01' < timestamptz '2020-01-01 00:00:01+00', 'infinity'::date > date '9999-12-31'
----
t|t|t|t

error 22008
SELECT '2020-02-30'::date

error 22007
SELECT 'not a date'::date

error 22008
SELECT 'infinity'::date - date '2020-01-01'

query
SELECT '10:30'::time, time '23:59:59.999999', 'allballs'::time, time '12:00' - time '10:30', time '23:00' + interval '2 hours', timestamp '2020-01-01 08:15:30'::time
----
10:30:00|23:59:59.999999|00:00:00|01:30:00|01:00:00|08:15:30

query
SELECT interval '1 year 2 mons 3 days 04:05:06.789', interval '-1 day +02:00', interval '1 day -02:00', interval '-1 year -2 mons', interval '0', interval '36 hours', interval '1.5 months', interval '1.5 years', interval 'P1Y2M3DT4H5M6.5S', interval '@ 1 hour ago', interval '1-2', interval '10', interval '-01:02:03', interval '1 week', interval '1 day 1 hour ago', interval '2 hours 3 minutes', interval '1 day'
----
1 year 2 mons 3 days 04:05:06.789|-1 days +02:00:00|1 day -02:00:00|-1 years -2 mons|00:00:00|36:00:00|1 mon 15 days|1 year 6 mons|1 year 2 mons 3 days 04:05:06.5|-01:00:00|1 year 2 mons|00:00:10|-01:02:03|7 days|-1 days -01:00:00|02:03:00|1 day

query
SELECT interval '1 mon' = interval '30 days', interval '1 day' = interval '24 hours', interval '1 day' * 1.5, interval '1 mon' / 3, interval '1 day' - interval '1 hour', - interval '1 day', 2 * interval '1 hour 30 minutes', interval '1 year' > interval '360 days'
----
t|t|1 day 12:00:00|10 days|1 day -01:00:00|-1 days|03:00:00|f

query
SELECT interval '3' day, interval '1 day 2 hours' hour to minute, interval '1 year 5 months' year, interval '1.23456789 seconds', interval '1:02:03.456' minute to second(1)
----
3 days|1 day 02:00:00|1 year|00:00:01.234568|01:02:03.5

query
SELECT justify_hours(interval '50 hours'), justify_days(interval '35 days'), justify_interval(interval '1 mon -1 hour')
----
2 days 02:00:00|1 mon 5 days|29 days 23:00:00

error 22007
SELECT interval 'one day'

error 22012
SELECT interval '1 day' / 0

query
SELECT timestamp '2020-01-31 10:00' + interval '1 mon 1 day 1 hour', timestamp '2020-01-02 03:00' - timestamp '2020-01-01', timestamp '2020-03-01' - interval '1 day', timestamp '2019-12-31 23:00' - timestamp '2020-01-02 01:30'
----
2020-03-01 11:00:00|1 day 03:00:00|2020-02-29 00:00:00|-1 days -02:30:00

query
SELECT age(timestamp '2020-03-15', timestamp '2019-01-31'), age(timestamp '2019-01-31', timestamp '2020-03-15 12:00')
----
1 year 1 mon 15 days|-1 years -1 mons -15 days -12:00:00

query
SELECT date_part('year', timestamp '2020-06-15 12:34:56.5'), date_part('month', date '2020-06-15'), date_part('second', timestamp '2020-06-15 12:34:56.5'), date_part('dow', date '2020-06-15'), date_part('doy', date '2020-06-15'), date_part('week', date '2021-01-01'), date_part('epoch', timestamp '2020-01-01'), date_part('hour', interval '1 day 05:30'), date_part('month', interval '1 year 14 months'), date_part('century', date '2001-01-01'), date_part('quarter', date '2020-08-01')
----
2020|6|56.5|1|167|53|1577836800|5|2|21|3

query
SELECT date_trunc('month', timestamp '2020-06-15 12:34:56'), date_trunc('week', timestamp '2020-06-17 12:00'), date_trunc('hour', timestamp '2020-06-15 12:34:56'), date_trunc('year', timestamp '2020-06-15'), date_trunc('hour', interval '1 day 05:30:20'), date_trunc('quarter', timestamp '2020-08-15')
----
2020-06-01 00:00:00|2020-06-15 00:00:00|2020-06-15 12:00:00|2020-01-01 00:00:00|1 day 05:00:00|2020-07-01 00:00:00

error 22023
SELECT date_part('fortnight', timestamp '2020-01-01')

query
SELECT timestamptz '2020-06-01 12:00:00+02', '2020-06-01 12:00 Europe/Paris'::timestamptz, '2020-06-01T12:00:00Z'::timestamptz, '2020-06-01 12:00 EST'::timestamptz, '2020-06-01 12:00:00.5-03:30'::timestamptz, 'infinity'::timestamptz
----
2020-06-01 10:00:00+00|2020-06-01 10:00:00+00|2020-06-01 12:00:00+00|2020-06-01 17:00:00+00|2020-06-01 15:30:00.5+00|infinity

statement ok
SET TIME ZONE 'Europe/Paris'

query
SHOW TimeZone
----
Europe/Paris

query
SELECT timestamptz '2020-06-01 12:00:00+00', timestamptz '2020-01-01 12:00:00+00', '2020-06-01 12:00'::timestamptz, timestamptz '1850-01-01 12:00+00', '2020-06-01'::date::timestamptz
----
2020-06-01 14:00:00+02|2020-01-01 13:00:00+01|2020-06-01 12:00:00+02|1850-01-01 12:09:21+00:09:21|2020-06-01 00:00:00+02

query
SELECT timestamp '2020-06-01 12:00'::timestamptz, timestamptz '2020-06-01 12:00+00'::timestamp, timestamptz '2020-06-01 23:30+00'::date, timestamptz '2020-06-01 12:00+00'::text
----
2020-06-01 12:00:00+02|2020-06-01 14:00:00|2020-06-02|2020-06-01 14:00:00+02

query
SELECT timestamptz '2020-03-28 12:00' + interval '1 day', timestamptz '2020-03-28 12:00' + interval '24 hours', timestamptz '2020-10-25 12:00' - interval '1 day', timestamptz '2020-03-29 12:00' - timestamptz '2020-03-28 12:00'
----
2020-03-29 12:00:00+02|2020-03-29 13:00:00+02|2020-10-24 12:00:00+02|23:00:00

query
SELECT timestamptz '2020-06-01 12:00+00' AT TIME ZONE 'UTC', timestamp '2020-06-01 12:00' AT TIME ZONE 'Asia/Tokyo', timestamptz '2020-06-01 12:00+00' AT TIME ZONE 'America/New_York', timezone('UTC', timestamp '2020-06-01 12:00')
----
2020-06-01 12:00:00|2020-06-01 05:00:00+02|2020-06-01 08:00:00|2020-06-01 14:00:00+02

query
SELECT date_trunc('day', timestamptz '2020-06-01 23:30+00'), date_part('hour', timestamptz '2020-06-01 12:00+00'), date_part('timezone', timestamptz '2020-06-01 12:00+00'), date_trunc('day', timestamptz '2020-06-01 23:30+00', 'UTC')
----
2020-06-02 00:00:00+02|14|7200|2020-06-01 02:00:00+02

statement ok
SET TIME ZONE 'America/New_York'

query
SELECT '2020-03-08 02:30'::timestamptz, '2020-11-01 01:30'::timestamptz, timestamp '2020-03-08 02:30'::timestamptz
----
2020-03-08 03:30:00-04|2020-11-01 01:30:00-05|2020-03-08 03:30:00-04

statement ok
SET TIME ZONE INTERVAL '+03:30' HOUR TO MINUTE

query
SHOW TimeZone
----
<+03:30>-03:30

query
SELECT timestamptz '2020-06-01 12:00+00'
----
2020-06-01 15:30:00+03:30

statement ok
SET TIME ZONE 2

query
SHOW TimeZone
----
<+02>-02

query
SELECT timestamptz '2020-06-01 12:00+00'
----
2020-06-01 14:00:00+02

statement ok
SET timezone = '+02:00'

query
SELECT timestamptz '2020-06-01 12:00+00'
----
2020-06-01 10:00:00-02

error 22023
SET timezone = 'Mars/Olympus_Mons'

statement ok
SET TimeZone = 'UTC'

statement ok
CREATE TABLE dt_events (id int PRIMARY KEY, day date, at timestamptz, took interval, t time)

statement ok
CREATE INDEX dt_events_at ON dt_events (at)

statement ok
INSERT INTO dt_events VALUES (1, '2020-01-01', '2020-01-01 10:00+00', '1 hour', '10:00'), (2, '2020-01-02', '2020-01-02 11:30+01', '90 minutes', '11:30'), (3, 'infinity', 'infinity', '-1 day', '00:00'), (4, NULL, NULL, NULL, NULL)

query
SELECT id, day, at, took, t FROM dt_events ORDER BY id
----
1|2020-01-01|2020-01-01 10:00:00+00|01:00:00|10:00:00
2|2020-01-02|2020-01-02 10:30:00+00|01:30:00|11:30:00
3|infinity|infinity|-1 days|00:00:00
4|NULL|NULL|NULL|NULL

query
SELECT id FROM dt_events WHERE at >= '2020-01-02' AND at < '2020-01-03' ORDER BY id
----
2

query
SELECT id, at + took FROM dt_events WHERE day < '2020-06-01' ORDER BY took DESC
----
2|2020-01-02 12:00:00+00
1|2020-01-01 11:00:00+00

query
SELECT sum(x) IS NULL, min(took), max(took), min(day), max(at) FROM dt_events, (SELECT 1 AS x WHERE false) s
----
t|NULL|NULL|NULL|NULL

query
SELECT min(took), max(took), min(day), max(day), max(at) FROM dt_events
----
-1 days|01:30:00|2020-01-01|infinity|infinity

statement ok
SET TIME ZONE 'Asia/Kolkata'

query
SELECT id, at FROM dt_events ORDER BY at NULLS FIRST
----
4|NULL
1|2020-01-01 15:30:00+05:30
2|2020-01-02 16:00:00+05:30
3|infinity

statement ok
SET TimeZone = 'UTC'

query
SELECT ARRAY['2020-01-01'::date, '2021-02-03'], ARRAY[interval '1 day', interval '2 hours']
----
{2020-01-01,2021-02-03}|{"1 day",02:00:00}

query
SELECT pg_catalog.format_type(1082, -1), pg_catalog.format_type(1186, -1), pg_catalog.format_type(1083, -1)
----
date|interval|time without time zone

query
SELECT * FROM generate_series(timestamp '2020-01-30', timestamp '2020-05-01', interval '1 month')
----
2020-01-30 00:00:00
2020-02-29 00:00:00
2020-03-29 00:00:00
2020-04-29 00:00:00

statement ok
SET TimeZone = 'Europe/Paris'

query
SELECT * FROM generate_series(timestamptz '2020-03-28 12:00', timestamptz '2020-03-30 12:00', interval '1 day')
----
2020-03-28 12:00:00+01
2020-03-29 12:00:00+02
2020-03-30 12:00:00+02

query tidal
EXPLAIN (COSTS OFF) SELECT id FROM dt_events WHERE at > '2020-01-01' AND took < '2 hours'
----
Index Scan using dt_events_at on dt_events
  Index Cond: (at > '2020-01-01 00:00:00+01'::timestamp with time zone)
  Filter: (took < '02:00:00'::interval)

statement ok
SET TimeZone = 'UTC'

query
SELECT sum(took), avg(took), count(took) FROM dt_events
----
-1 days +02:30:00|-07:10:00|3

query
SELECT sum(x), avg(x) FROM (VALUES (interval '1 mon'), (interval '1 day 01:00'), (interval '-3 hours'), (NULL)) v(x)
----
1 mon 1 day -02:00:00|10 days 07:20:00

query
SELECT sum(x), avg(x) FROM (SELECT interval '1 day' AS x WHERE false) v
----
NULL|NULL

query
SELECT to_timestamp(1577836800.5), to_timestamp(0), to_timestamp('infinity')
----
2020-01-01 00:00:00.5+00|1970-01-01 00:00:00+00|infinity

error 22008
SELECT to_timestamp(-1e12)

query
SELECT x::interval(1), x::interval hour to minute, t::time(0) FROM (SELECT interval '1 day 02:03:04.56' AS x, time '10:00:00.6' AS t) s
----
1 day 02:03:04.6|1 day 02:03:00|10:00:01

query
select extract(epoch from date '2020-01-01'), extract(julian from timestamp '2020-01-01'), extract(epoch from timestamp 'infinity'), extract(hour from timestamp 'infinity'), extract(epoch from interval '1 year 1 mon 1 day 1 second')
----
1577836800|2458850.0000000000000000000000000000|Infinity|NULL|34236001.000000

query
select extract(second from timestamp '2020-06-15 12:34:56.5'), extract(milliseconds from timestamp '2020-06-15 12:34:56.5'), extract(microseconds from timestamp '2020-06-15 12:34:56.5'), extract(epoch from timestamptz '2020-01-01 00:00:00.25+02'), extract(year from date '2020-05-05'), extract(dow from date '2020-05-05'), extract(century from date '0010-01-01 BC')
----
56.500000|56500.000|56500000|1577829600.250000|2020|2|-1

query
select extract(second from time '10:00:01.5'), extract(epoch from time '10:00:01.5'), extract(minute from interval '-1 hour 30 minutes'), extract(second from interval '-1.5 seconds'), extract(epoch from interval '-178000000 years'), extract(month from interval '14 months'), extract(hour from timestamptz '2020-06-01 12:00+00')
----
1.500000|36001.500000|-30|-1.500000|-5617252800000000.000000|2|12

query
select extract(timezone from timestamptz '2020-06-01 12:00+00'), pg_typeof(extract(year from now())), extract(epoch from date 'infinity')
----
0|numeric|Infinity

error 0A000
select extract(hour from date '2020-01-01')

query
SELECT x, count(*) FROM (VALUES (interval '1 mon'), (interval '30 days'), (interval '720 hours'), (interval '1 day')) v(x) GROUP BY x ORDER BY x
----
1 day|1
1 mon|3

query
SELECT count(DISTINCT x) FROM (VALUES (interval '1 mon'), (interval '30 days'), (interval '1 day')) v(x)
----
2

statement ok
SET TimeZone = 'Asia/Tokyo'

query
SELECT timestamp '2020-01-01 09:00' = timestamptz '2020-01-01 00:00+00', timestamptz '2020-01-01 00:00+00' < timestamp '2020-01-01 08:59', date '2020-01-01' = timestamptz '2019-12-31 15:00+00'
----
t|f|t

statement ok
SET TimeZone = 'UTC'
