# current_setting, set_config and the transaction-id functions. Expected
# output is PostgreSQL 15's (checked with TIDAL_SQLTEST_PG).

query
SELECT current_setting('work_mem'), current_setting('nosuch.setting', true) IS NULL, current_setting('work_mem', false)
----
4MB|t|4MB

error 42704
SELECT current_setting('nosuch_setting')

query
SELECT current_setting(NULL) IS NULL
----
t

query
SELECT set_config('work_mem', '8MB', false), current_setting('work_mem')
----
8MB|8MB

query
SHOW work_mem
----
8MB

statement ok
BEGIN

query
SELECT set_config('work_mem', '16MB', true)
----
16MB

query
SHOW work_mem
----
16MB

statement ok
COMMIT

query
SHOW work_mem
----
8MB

# A local setting outside a block lasts for its statement's transaction.
query
SELECT set_config('work_mem', '32MB', true), current_setting('work_mem')
----
32MB|32MB

query
SHOW work_mem
----
8MB

statement ok
BEGIN

query
SELECT set_config('work_mem', '1MB', false)
----
1MB

statement ok
ROLLBACK

query
SHOW work_mem
----
8MB

error 22023
SELECT set_config('work_mem', 'lots', false)

query
SELECT set_config('work_mem', NULL, false)
----
4MB

error 22004
SELECT set_config(NULL, '1', false)

statement ok
BEGIN ISOLATION LEVEL REPEATABLE READ

query
SELECT current_setting('transaction_isolation')
----
repeatable read

statement ok
COMMIT

# Transaction ids: assigned on demand, one per transaction.
query
SELECT txid_current_if_assigned() IS NULL, pg_current_xact_id_if_assigned() IS NULL
----
t|t

statement ok
BEGIN

query
SELECT txid_current_if_assigned() IS NULL
----
t

query
SELECT txid_current() = txid_current(), txid_current_if_assigned() = txid_current(),
       pg_current_xact_id()::text = txid_current()::text, pg_current_xact_id_if_assigned()::text = txid_current()::text
----
t|t|t|t

query
SELECT txid_status(txid_current()), pg_xact_status(pg_current_xact_id())
----
in progress|in progress

query
SELECT pg_typeof(txid_current())
----
bigint

statement ok
COMMIT

error 22023
SELECT txid_status(4000000000)

query
SELECT pg_current_snapshot()::text ~ '^[0-9]+:[0-9]+:[0-9,]*$', txid_current_snapshot()::text ~ '^[0-9]+:[0-9]+:'
----
t|t

query
SELECT pg_backend_pid() > 0
----
t
