# The planner's method switches (enable_*) and cost settings: SET, SHOW
# and pg_settings as PostgreSQL 15's; where tidal's planner has a choice,
# a switched-off method gives way to another plan with the same rows.

statement ok
CREATE TABLE ps_t (id int PRIMARY KEY, v text)

statement ok
INSERT INTO ps_t SELECT g, 'v' || g FROM generate_series(1, 200) g

statement ok
CREATE TABLE ps_u (id int, w int)

statement ok
INSERT INTO ps_u SELECT g, g * 10 FROM generate_series(1, 50) g

query
SELECT name, setting, vartype, context FROM pg_settings WHERE name IN ('enable_seqscan', 'enable_hashjoin', 'enable_partitionwise_join', 'random_page_cost', 'jit_above_cost', 'geqo_threshold') ORDER BY name
----
enable_hashjoin|on|bool|user
enable_partitionwise_join|off|bool|user
enable_seqscan|on|bool|user
geqo_threshold|12|integer|user
jit_above_cost|100000|real|user
random_page_cost|4|real|user

error 22023
SET enable_seqscan = maybe

error 22023
SET random_page_cost = -1

error 22023
SET cursor_tuple_fraction = 2

statement ok
SET random_page_cost = 1.1

query
SHOW random_page_cost
----
1.1

statement ok
RESET random_page_cost

query
SHOW random_page_cost
----
4

query tidal
EXPLAIN (COSTS OFF) SELECT v FROM ps_t WHERE id = 7
----
Index Scan using ps_t_pkey on ps_t
  Index Cond: (id = 7)

statement ok
SET enable_indexscan = off

query tidal
EXPLAIN (COSTS OFF) SELECT v FROM ps_t WHERE id = 7
----
Index Scan using ps_t_pkey on ps_t
  Index Cond: (id = 7)

statement ok
SET enable_bitmapscan = off

query tidal
EXPLAIN (COSTS OFF) SELECT v FROM ps_t WHERE id = 7
----
Seq Scan on ps_t
  Filter: (id = 7)

query
SELECT v FROM ps_t WHERE id = 7
----
v7

statement ok
SET enable_tidscan = off

query tidal
EXPLAIN (COSTS OFF) SELECT v FROM ps_t WHERE ctid = '(0,3)'
----
Seq Scan on ps_t
  Filter: (ctid = '(0,3)'::tid)

query
SELECT v FROM ps_t WHERE ctid = '(0,3)'
----
v3

statement ok
RESET enable_indexscan

statement ok
RESET enable_bitmapscan

statement ok
RESET enable_tidscan

query
SHOW enable_indexscan
----
on

query tidal
EXPLAIN (COSTS OFF) SELECT t.v, u.w FROM ps_t t JOIN ps_u u ON u.id = t.id WHERE u.w < 40
----
Hash Join
  Hash Cond: (u.id = t.id)
  ->  Seq Scan on ps_t t
  ->  Hash
        ->  Seq Scan on ps_u u
              Filter: (u.w < 40)

statement ok
SET enable_hashjoin = off

query tidal
EXPLAIN (COSTS OFF) SELECT t.v, u.w FROM ps_t t JOIN ps_u u ON u.id = t.id WHERE u.w < 40
----
Nested Loop
  Join Filter: (u.id = t.id)
  ->  Seq Scan on ps_t t
  ->  Seq Scan on ps_u u
        Filter: (u.w < 40)

query
SELECT t.v, u.w FROM ps_t t JOIN ps_u u ON u.id = t.id WHERE u.w < 40 ORDER BY t.id
----
v1|10
v2|20
v3|30

query
SELECT t.v, u.w FROM ps_t t FULL JOIN ps_u u ON u.id = t.id WHERE t.id IN (1, 199) ORDER BY t.id
----
v1|10
v199|NULL

statement ok
RESET enable_hashjoin

# pg_settings: the setting column in base units, SET's source, the
# bounds and the enum values as PostgreSQL 15 shows them.
statement ok
SET work_mem = '8MB'

query
SELECT name, setting, unit, category, context, vartype, source, min_val, max_val, boot_val, reset_val, pending_restart FROM pg_settings WHERE name IN ('work_mem', 'statement_timeout', 'cursor_tuple_fraction')  ORDER BY name
----
cursor_tuple_fraction|0.1|NULL|Query Tuning / Other Planner Options|user|real|default|0|1|0.1|0.1|f
statement_timeout|0|ms|Client Connection Defaults / Statement Behavior|user|integer|default|0|2147483647|0|0|f
work_mem|8192|kB|Resource Usage / Memory|user|integer|session|64|2147483647|4096|4096|f

query
SELECT short_desc, extra_desc FROM pg_settings WHERE name = 'work_mem'
----
Sets the maximum memory to be used for query workspaces.|This much memory can be used by each internal sort operation and hash table before switching to temporary disk files.

query
SELECT enumvals FROM pg_settings WHERE name = 'default_transaction_isolation'
----
{serializable,"repeatable read","read committed","read uncommitted"}

query
SELECT count(*) FROM pg_settings WHERE name IN ('is_superuser', 'session_authorization')
----
0

query
SELECT name FROM pg_settings WHERE name IN ('DateStyle', 'deadlock_timeout', 'TimeZone') ORDER BY lower(name)
----
DateStyle
deadlock_timeout
TimeZone

statement ok
RESET work_mem
