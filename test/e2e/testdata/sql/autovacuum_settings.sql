# Autovacuum's storage parameters and settings: the reloptions kept as
# written, their range and type errors (22023), the cost-based delay
# settings a session may set, the ones it may not (55P02), and the
# pg_stat_user_tables counters autovacuum is driven by. Expected results
# are PostgreSQL 15's.

statement ok
CREATE TABLE avs (a int) WITH (autovacuum_enabled = off, autovacuum_vacuum_scale_factor = 0.5)

query
SELECT reloptions FROM pg_class WHERE relname = 'avs'
----
{autovacuum_enabled=off,autovacuum_vacuum_scale_factor=0.5}

statement ok
ALTER TABLE avs SET (autovacuum_vacuum_threshold = 10, autovacuum_vacuum_insert_threshold = -1, autovacuum_analyze_scale_factor = 0, log_autovacuum_min_duration = 0)

statement ok
ALTER TABLE avs RESET (autovacuum_vacuum_scale_factor)

query
SELECT array_length(reloptions, 1), 'autovacuum_enabled=off' = ANY (reloptions), 'autovacuum_vacuum_threshold=10' = ANY (reloptions), 'autovacuum_vacuum_insert_threshold=-1' = ANY (reloptions), 'autovacuum_analyze_scale_factor=0' = ANY (reloptions), 'log_autovacuum_min_duration=0' = ANY (reloptions) FROM pg_class WHERE relname = 'avs'
----
5|t|t|t|t|t

statement ok
CREATE TABLE avs2 (a int) WITH (autovacuum_enabled)

query
SELECT reloptions FROM pg_class WHERE relname = 'avs2'
----
{autovacuum_enabled=true}

error 22023
ALTER TABLE avs SET (autovacuum_enabled = maybe)

error 22023
ALTER TABLE avs SET (autovacuum_vacuum_scale_factor = 200)

error 22023
ALTER TABLE avs SET (autovacuum_vacuum_threshold = -5)

error 22023
ALTER TABLE avs SET (autovacuum_vacuum_cost_delay = 'x')

error 22023
ALTER TABLE avs SET (autovacuum_vacuum_cost_limit = 0)

error 22023
ALTER TABLE avs SET (autovacuum_freeze_max_age = 99999)

error 22023
CREATE TABLE avs3 (a int) WITH (autovacuum_analyze_scale_factor = 1000)

error 22023
SET vacuum_cost_page_dirty = 20000

error 22023
SET vacuum_cost_delay = 200

error 22023
SET vacuum_cost_limit = 0

statement ok
SET vacuum_cost_delay = 5

query
SHOW vacuum_cost_delay
----
5ms

query
SHOW autovacuum_vacuum_cost_delay
----
2ms

query
SHOW autovacuum_naptime
----
1min

error 55P02
SET autovacuum_naptime = 5

error 55P02
SET autovacuum_vacuum_scale_factor = 0.1

# PostgreSQL reports the counters after the transaction's statistics are
# flushed (up to a second later); tidal counts at once.
statement ok
INSERT INTO avs SELECT g FROM generate_series(1, 10) g

statement ok
DELETE FROM avs WHERE a <= 3

query tidal
SELECT n_tup_ins, n_tup_del, n_live_tup, n_dead_tup, n_mod_since_analyze, n_ins_since_vacuum, autovacuum_count, autoanalyze_count FROM pg_stat_user_tables WHERE relname = 'avs'
----
10|3|7|3|13|10|0|0

statement ok
VACUUM avs

query tidal
SELECT n_dead_tup, n_ins_since_vacuum, vacuum_count, autovacuum_count, last_autovacuum IS NULL FROM pg_stat_user_tables WHERE relname = 'avs'
----
0|0|1|0|t
