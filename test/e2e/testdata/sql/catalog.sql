# tidal only
# Catalog queries clients send (pgbench, psql), catalog functions, and
# EXPLAIN of joins and subqueries (tidal's costs differ from PostgreSQL's).

statement ok
CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))

query
select o.n, p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) where c.relname = 'pgbench_accounts' and o.n is not null group by 1, 2 order by 1 asc limit 1
----
2|NULL|0

query
select o.n, p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) where c.relname = 'no_such_table' and o.n is not null group by 1, 2 order by 1 asc limit 1
----

query
SELECT c2.relname, i.indisprimary, i.indisunique, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true), pg_catalog.pg_get_constraintdef(con.oid, true), contype FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x')) WHERE c.oid = 'pgbench_accounts'::regclass AND c.oid = i.indrelid AND i.indexrelid = c2.oid ORDER BY i.indisprimary DESC, c2.relname
----
pgbench_accounts_pkey|t|t|CREATE UNIQUE INDEX pgbench_accounts_pkey ON public.pgbench_accounts USING btree (aid)|PRIMARY KEY (aid)|p

query
SELECT c.oid::pg_catalog.regclass, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(pgbench_accounts)$' COLLATE pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3
----
pgbench_accounts|public|pgbench_accounts

query
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'pgbench_accounts'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
----
aid|integer|t
bid|integer|f
abalance|integer|f
filler|character(84)|f

query
SELECT version(), pg_catalog.pg_get_userbyid(10), pg_encoding_to_char(6), pg_is_in_recovery(), has_table_privilege('pgbench_accounts', 'SELECT'), obj_description(1259, 'pg_class') IS NULL
----
PostgreSQL 17.0 (tidal 0.1) on x86_64-pc-linux-gnu, compiled by Go, 64-bit|postgres|UTF8|f|t|t

query
SELECT amname FROM pg_am WHERE amname IN ('heap', 'btree') ORDER BY oid
----
heap
btree

query
SELECT datname, oid FROM pg_database
----
postgres|5

query
SELECT rolname, rolsuper, oid FROM pg_roles WHERE rolname !~ '^pg_'
----
postgres|t|10

# PostgreSQL 15's predefined roles; pg_database_owner owns the public schema.
query
SELECT count(*), bool_or(rolcanlogin), min(oid), max(oid) FROM pg_roles WHERE rolname ~ '^pg_'
----
12|f|3373|6182

query
SELECT n.nspname, r.rolname FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner WHERE n.nspname = 'public'
----
public|pg_database_owner

statement ok
CREATE TABLE ea (id int PRIMARY KEY, k int)

statement ok
CREATE TABLE eb (aid int, v text)

query
EXPLAIN (COSTS OFF) SELECT * FROM ea JOIN eb ON ea.id = eb.aid WHERE eb.v = 'x'
----
Hash Join
  Hash Cond: (ea.id = eb.aid)
  ->  Seq Scan on ea
  ->  Hash
        ->  Seq Scan on eb
              Filter: (eb.v = 'x'::text)

query
EXPLAIN (COSTS OFF) SELECT * FROM ea LEFT JOIN eb ON ea.id = eb.aid AND eb.v > 'a'
----
Hash Left Join
  Hash Cond: (ea.id = eb.aid)
  ->  Seq Scan on ea
  ->  Hash
        ->  Seq Scan on eb
              Filter: (eb.v > 'a'::text)

query
EXPLAIN (COSTS OFF) SELECT * FROM ea, eb WHERE ea.k < eb.aid AND ea.id = 3
----
Nested Loop
  Join Filter: (ea.k < eb.aid)
  ->  Index Scan using ea_pkey on ea
        Index Cond: (ea.id = 3)
  ->  Seq Scan on eb

query
EXPLAIN (COSTS OFF) SELECT id FROM ea WHERE EXISTS (SELECT 1 FROM eb WHERE eb.aid = ea.id)
----
Seq Scan on ea
  Filter: (hashed SubPlan 1)
  SubPlan 1
    ->  Seq Scan on eb

query
EXPLAIN (COSTS OFF) WITH w AS (SELECT aid FROM eb) SELECT * FROM w UNION ALL SELECT id FROM ea
----
Append
  ->  CTE Scan on w
        CTE w
          ->  Seq Scan on eb
  ->  Seq Scan on ea
