# Schemas: CREATE SCHEMA (with elements), DROP SCHEMA, ALTER SCHEMA,
# search_path resolution ($user, implicit pg_catalog and pg_temp, the
# creation namespace), COMMENT ON round trips, and the introspection
# queries ORMs send (Django's and SQLAlchemy's, over pg_catalog and
# information_schema). Schema names start with "sch_" so that the script
# can clean up on the shared PostgreSQL it is checked against.

statement ok
DROP SCHEMA IF EXISTS sch_app, sch_b, sch_elems, sch_renamed, postgres CASCADE

statement ok
CREATE SCHEMA sch_app

error 42P06
CREATE SCHEMA sch_app

statement ok
CREATE SCHEMA IF NOT EXISTS sch_app

error 42939
CREATE SCHEMA pg_mine

error 42704
CREATE SCHEMA sch_b AUTHORIZATION no_such_role

statement ok
CREATE SCHEMA sch_b AUTHORIZATION postgres

query
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname LIKE 'sch\_%' ORDER BY 1
----
sch_app|postgres
sch_b|postgres

statement ok
CREATE SCHEMA sch_elems
  CREATE UNIQUE INDEX elems_a_idx ON abc (a)
  CREATE VIEW abc_view AS SELECT a + 1 AS a, b FROM abc
  CREATE TABLE abc (a serial, b int UNIQUE)

query
SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sch_elems' ORDER BY 1
----
abc|r
abc_a_seq|S
abc_b_key|i
abc_view|v
elems_a_idx|i

error 42P15
CREATE SCHEMA sch_bad CREATE TABLE sch_app.t (a int)

query
SELECT count(*) FROM pg_namespace WHERE nspname = 'sch_bad'
----
0

statement ok
INSERT INTO sch_elems.abc (b) VALUES (10), (20)

query
SELECT * FROM sch_elems.abc_view ORDER BY a
----
2|10
3|20

statement ok
SET search_path = sch_app

statement ok
CREATE TABLE abc (x text)

query
SELECT * FROM sch_elems.abc_view ORDER BY a
----
2|10
3|20

query
SELECT pg_get_viewdef('sch_elems.abc_view'::regclass, true)
----
 SELECT abc.a + 1 AS a,
    abc.b
   FROM sch_elems.abc;

statement ok
SET search_path = sch_elems, sch_app

query
SELECT pg_get_viewdef('abc_view'::regclass, true)
----
 SELECT abc.a + 1 AS a,
    abc.b
   FROM abc;

query
SELECT current_schema(), current_schemas(false), current_schemas(true)
----
sch_elems|{sch_elems,sch_app}|{pg_catalog,sch_elems,sch_app}

query
SELECT * FROM abc ORDER BY a
----
1|10
2|20

statement ok
SET search_path = sch_app, sch_elems

query
SELECT * FROM abc
----

statement ok
CREATE TABLE made_here (a int)

query
SELECT relnamespace::regnamespace FROM pg_class WHERE relname = 'made_here'
----
sch_app

statement ok
SET search_path = no_such_schema, sch_b

query
SELECT current_schema(), current_schemas(false)
----
sch_b|{sch_b}

statement ok
CREATE TABLE in_b (a int)

query
SELECT relnamespace::regnamespace FROM pg_class WHERE relname = 'in_b'
----
sch_b

statement ok
SET search_path = no_such_schema

query
SELECT current_schema() IS NULL, current_schemas(false), current_schemas(true)
----
t|{}|{pg_catalog}

error 3F000
CREATE TABLE nowhere (a int)

query
SELECT count(*) FROM pg_class WHERE relname = 'pg_class'
----
1

statement ok
SET search_path = "$user", sch_app

query
SELECT current_schemas(false)
----
{sch_app}

statement ok
CREATE SCHEMA postgres

query
SELECT current_schemas(false)
----
{postgres,sch_app}

statement ok
DROP SCHEMA postgres

statement ok
SET search_path = sch_app, public

statement ok
ALTER SCHEMA sch_elems RENAME TO sch_renamed

error 42P06
ALTER SCHEMA sch_renamed RENAME TO sch_app

error 3F000
ALTER SCHEMA sch_elems RENAME TO sch_other

query
SELECT count(*) FROM sch_renamed.abc
----
2

error 42P01
SELECT count(*) FROM sch_elems.abc

error 3F000
CREATE TABLE sch_elems.abc (a int)

statement ok
ALTER SCHEMA sch_renamed OWNER TO postgres

statement ok
CREATE TABLE sch_app.items (id serial PRIMARY KEY, name varchar(40) NOT NULL CONSTRAINT name_nonempty CHECK (name <> ''), price numeric(10,2) DEFAULT 0)

statement ok
COMMENT ON TABLE sch_app.items IS 'things for sale'

statement ok
COMMENT ON COLUMN sch_app.items.name IS 'display name'

statement ok
COMMENT ON CONSTRAINT name_nonempty ON sch_app.items IS 'no empty names'

statement ok
COMMENT ON INDEX sch_app.items_pkey IS 'by id'

statement ok
COMMENT ON SCHEMA sch_app IS 'the application'

statement ok
CREATE FUNCTION sch_app.total(p numeric, q int) RETURNS numeric AS 'select p * q' LANGUAGE sql IMMUTABLE

statement ok
COMMENT ON FUNCTION sch_app.total(numeric, int) IS 'price times quantity'

statement ok
CREATE TYPE sch_app.status AS ENUM ('new', 'done')

statement ok
COMMENT ON TYPE sch_app.status IS 'order status'

error 42809
COMMENT ON VIEW sch_app.items IS 'not a view'

error 42703
COMMENT ON COLUMN sch_app.items.nope IS 'x'

error 42P01
COMMENT ON TABLE sch_app.nope IS 'x'

query
SELECT obj_description('sch_app.items'::regclass, 'pg_class'), col_description('sch_app.items'::regclass, 2), col_description('sch_app.items'::regclass, 1)
----
things for sale|display name|NULL

query
SELECT obj_description('sch_app.items_pkey'::regclass, 'pg_class'), obj_description('sch_app'::regnamespace, 'pg_namespace')
----
by id|the application

query
SELECT obj_description(p.oid, 'pg_proc') FROM pg_proc p WHERE proname = 'total'
----
price times quantity

query
SELECT obj_description(t.oid, 'pg_type') FROM pg_type t WHERE typname = 'status' AND typnamespace = 'sch_app'::regnamespace
----
order status

query
SELECT d.description FROM pg_description d JOIN pg_constraint k ON k.oid = d.objoid AND d.classoid = 'pg_constraint'::regclass WHERE k.conname = 'name_nonempty'
----
no empty names

statement ok
COMMENT ON COLUMN sch_app.items.name IS NULL

statement ok
COMMENT ON TABLE sch_app.items IS 'replaced'

query
SELECT obj_description('sch_app.items'::regclass, 'pg_class'), col_description('sch_app.items'::regclass, 2)
----
replaced|NULL

statement ok
BEGIN

statement ok
COMMENT ON TABLE sch_app.items IS 'rolled back'

statement ok
ROLLBACK

query
SELECT obj_description('sch_app.items'::regclass, 'pg_class')
----
replaced

query
select current_schema()
----
sch_app

query
SELECT nspname FROM pg_namespace WHERE nspname LIKE 'sch\_%' ORDER BY nspname
----
sch_app
sch_b
sch_renamed

query
SELECT c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE (n.nspname = 'sch_app') AND c.relname = 'items' AND c.relkind in ('r', 'v', 'm', 'f', 'p')
----
items

query
SELECT pgd.description as table_comment FROM pg_catalog.pg_description pgd WHERE pgd.objsubid = 0 AND pgd.objoid = (SELECT c.oid FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sch_app' AND c.relname = 'items')
----
replaced

query
SELECT c.relname, CASE WHEN c.relispartition THEN 'p' WHEN c.relkind IN ('m', 'v') THEN 'v' ELSE 't' END, obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('f', 'm', 'p', 'r', 'v') AND n.nspname NOT IN ('pg_catalog', 'pg_toast') AND pg_catalog.pg_table_is_visible(c.oid) AND n.nspname = 'sch_app' ORDER BY 1
----
abc|t|NULL
items|t|replaced
made_here|t|NULL

query
SELECT column_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'sch_app' AND table_name = 'items' ORDER BY ordinal_position
----
id|NO|nextval('items_id_seq'::regclass)
name|NO|NULL
price|YES|0

statement ok
CREATE TABLE sch_app.orders (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, item_id int NOT NULL REFERENCES sch_app.items (id) ON DELETE CASCADE, qty smallint CHECK (qty > 0), placed timestamp(3) with time zone, note text)

query
SELECT kcu.column_name, ccu.table_name AS referenced_table, ccu.column_name AS referenced_column FROM information_schema.constraint_column_usage ccu LEFT JOIN information_schema.key_column_usage kcu ON ccu.constraint_catalog = kcu.constraint_catalog AND ccu.constraint_schema = kcu.constraint_schema AND ccu.constraint_name = kcu.constraint_name LEFT JOIN information_schema.table_constraints tc ON ccu.constraint_catalog = tc.constraint_catalog AND ccu.constraint_schema = tc.constraint_schema AND ccu.constraint_name = tc.constraint_name WHERE kcu.table_name = 'orders' AND tc.constraint_type = 'FOREIGN KEY'
----
item_id|items|id

query
SELECT catalog_name, schema_name, schema_owner, sql_path FROM information_schema.schemata WHERE schema_name LIKE 'sch\_%' ORDER BY 2
----
postgres|sch_app|postgres|NULL
postgres|sch_b|postgres|NULL
postgres|sch_renamed|postgres|NULL

query
SELECT table_schema, table_name, table_type, is_insertable_into, is_typed, commit_action FROM information_schema.tables WHERE table_schema LIKE 'sch\_%' ORDER BY 1, 2
----
sch_app|abc|BASE TABLE|YES|NO|NULL
sch_app|items|BASE TABLE|YES|NO|NULL
sch_app|made_here|BASE TABLE|YES|NO|NULL
sch_app|orders|BASE TABLE|YES|NO|NULL
sch_b|in_b|BASE TABLE|YES|NO|NULL
sch_renamed|abc|BASE TABLE|YES|NO|NULL
sch_renamed|abc_view|VIEW|YES|NO|NULL

query
SELECT table_name, column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, datetime_precision, udt_schema, udt_name, dtd_identifier, is_identity, identity_generation, identity_start, identity_increment, identity_cycle, is_generated, is_updatable FROM information_schema.columns WHERE table_schema = 'sch_app' AND table_name IN ('items', 'orders') ORDER BY 1, 3
----
items|id|1|nextval('items_id_seq'::regclass)|NO|integer|NULL|NULL|32|2|0|NULL|pg_catalog|int4|1|NO|NULL|NULL|NULL|NO|NEVER|YES
items|name|2|NULL|NO|character varying|40|160|NULL|NULL|NULL|NULL|pg_catalog|varchar|2|NO|NULL|NULL|NULL|NO|NEVER|YES
items|price|3|0|YES|numeric|NULL|NULL|10|10|2|NULL|pg_catalog|numeric|3|NO|NULL|NULL|NULL|NO|NEVER|YES
orders|id|1|NULL|NO|bigint|NULL|NULL|64|2|0|NULL|pg_catalog|int8|1|YES|BY DEFAULT|1|1|NO|NEVER|YES
orders|item_id|2|NULL|NO|integer|NULL|NULL|32|2|0|NULL|pg_catalog|int4|2|NO|NULL|NULL|NULL|NO|NEVER|YES
orders|qty|3|NULL|YES|smallint|NULL|NULL|16|2|0|NULL|pg_catalog|int2|3|NO|NULL|NULL|NULL|NO|NEVER|YES
orders|placed|4|NULL|YES|timestamp with time zone|NULL|NULL|NULL|NULL|NULL|3|pg_catalog|timestamptz|4|NO|NULL|NULL|NULL|NO|NEVER|YES
orders|note|5|NULL|YES|text|NULL|1073741824|NULL|NULL|NULL|NULL|pg_catalog|text|5|NO|NULL|NULL|NULL|NO|NEVER|YES

query
SELECT table_schema, table_name, view_definition, check_option, is_updatable, is_insertable_into FROM information_schema.views WHERE table_schema LIKE 'sch\_%'
----
sch_renamed|abc_view| SELECT (abc.a + 1) AS a,
    abc.b
   FROM sch_renamed.abc;|NONE|YES|YES

query
SELECT table_name, constraint_type, is_deferrable, initially_deferred, enforced, nulls_distinct FROM information_schema.table_constraints WHERE table_schema = 'sch_app' AND constraint_name NOT LIKE '%\_not\_null' ORDER BY 1, 2
----
items|CHECK|NO|NO|YES|NULL
items|PRIMARY KEY|NO|NO|YES|NULL
orders|CHECK|NO|NO|YES|NULL
orders|FOREIGN KEY|NO|NO|YES|NULL
orders|PRIMARY KEY|NO|NO|YES|NULL

query
SELECT count(*) FROM information_schema.table_constraints WHERE table_schema = 'sch_app' AND constraint_name LIKE '%\_not\_null' AND constraint_type = 'CHECK'
----
4

query
SELECT constraint_name, check_clause FROM information_schema.check_constraints WHERE constraint_schema = 'sch_app' AND constraint_name NOT LIKE '%\_not\_null' ORDER BY 1
----
name_nonempty|(((name)::text <> ''::text))
orders_qty_check|((qty > 0))

query
SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint FROM information_schema.key_column_usage WHERE table_schema = 'sch_app' ORDER BY 1, 4
----
items_pkey|items|id|1|NULL
orders_item_id_fkey|orders|item_id|1|1
orders_pkey|orders|id|1|NULL

query
SELECT constraint_name, unique_constraint_schema, unique_constraint_name, match_option, update_rule, delete_rule FROM information_schema.referential_constraints WHERE constraint_schema = 'sch_app'
----
orders_item_id_fkey|sch_app|items_pkey|NONE|NO ACTION|CASCADE

query
SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage WHERE table_schema = 'sch_app' ORDER BY 3, 2
----
items|id|items_pkey
items|name|name_nonempty
items|id|orders_item_id_fkey
orders|id|orders_pkey
orders|qty|orders_qty_check

query
SELECT table_name, constraint_name FROM information_schema.constraint_table_usage WHERE table_schema = 'sch_app' ORDER BY 2
----
items|items_pkey
items|orders_item_id_fkey
orders|orders_pkey

statement ok
CREATE SEQUENCE sch_app.counter AS int START 100 INCREMENT 5 MAXVALUE 1000 CYCLE

query
SELECT sequence_name, data_type, numeric_precision, numeric_precision_radix, numeric_scale, start_value, minimum_value, maximum_value, increment, cycle_option FROM information_schema.sequences WHERE sequence_schema = 'sch_app' ORDER BY 1
----
counter|integer|32|2|0|100|1|1000|5|YES
items_id_seq|integer|32|2|0|1|1|2147483647|1|NO

query
SELECT routine_name, routine_type, data_type, type_udt_name, routine_body, routine_definition, external_language, is_deterministic, is_null_call, security_type FROM information_schema.routines WHERE routine_schema = 'sch_app'
----
total|FUNCTION|numeric|numeric|SQL|select p * q|SQL|YES|NO|INVOKER

query
SELECT ordinal_position, parameter_mode, parameter_name, data_type, udt_name FROM information_schema.parameters WHERE specific_schema = 'sch_app' ORDER BY 1
----
1|IN|p|numeric|numeric
2|IN|q|integer|int4

query
SELECT grantor, grantee, table_name, privilege_type, is_grantable, with_hierarchy FROM information_schema.table_privileges WHERE table_schema = 'sch_app' AND table_name = 'items' ORDER BY privilege_type
----
postgres|postgres|items|DELETE|YES|NO
postgres|postgres|items|INSERT|YES|NO
postgres|postgres|items|REFERENCES|YES|NO
postgres|postgres|items|SELECT|YES|YES
postgres|postgres|items|TRIGGER|YES|NO
postgres|postgres|items|TRUNCATE|YES|NO
postgres|postgres|items|UPDATE|YES|NO

query
SELECT count(*) FROM information_schema.role_table_grants WHERE table_schema = 'sch_app' AND table_name = 'orders'
----
7

# A recursive view's own name inside it is its WITH query (not stored
# qualified as a relation would be).
statement ok
CREATE RECURSIVE VIEW sch_app.nums (n) AS VALUES (1) UNION ALL SELECT n + 1 FROM nums WHERE n < 3

statement ok
CREATE OR REPLACE RECURSIVE VIEW sch_app.nums (n) AS VALUES (1) UNION ALL SELECT n + 1 FROM nums WHERE n < 4

query
SELECT * FROM sch_app.nums
----
1
2
3
4

# ALTER … SET SCHEMA moves a table with its indexes, constraints and
# owned sequence; the views and defaults that name them follow.
statement ok
CREATE TABLE sch_b.moving (id serial PRIMARY KEY, v int CHECK (v > 0))

statement ok
CREATE VIEW sch_app.moving_view AS SELECT id, v FROM sch_b.moving

statement ok
ALTER TABLE sch_b.moving SET SCHEMA sch_renamed

query
SELECT c.relname, c.relnamespace::regnamespace FROM pg_class c WHERE c.relname LIKE 'moving%' ORDER BY 1
----
moving|sch_renamed
moving_id_seq|sch_renamed
moving_pkey|sch_renamed
moving_view|sch_app

query
SELECT conname, connamespace::regnamespace FROM pg_constraint WHERE conrelid = 'sch_renamed.moving'::regclass ORDER BY 1
----
moving_pkey|sch_renamed
moving_v_check|sch_renamed

query
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'sch_renamed.moving'::regclass
----
nextval('sch_renamed.moving_id_seq'::regclass)

query
INSERT INTO sch_renamed.moving (v) VALUES (7) RETURNING id, v
----
1|7

query
SELECT * FROM sch_app.moving_view
----
1|7

error 3F000
ALTER TABLE sch_renamed.moving SET SCHEMA sch_none

statement ok
CREATE TABLE sch_b.moving (x int)

error 42P07
ALTER TABLE sch_b.moving SET SCHEMA sch_renamed

error 0A000
ALTER SEQUENCE sch_renamed.moving_id_seq SET SCHEMA sch_b

error 0A000
ALTER TABLE sch_renamed.moving SET SCHEMA pg_temp

statement ok
ALTER TABLE IF EXISTS sch_renamed.no_such SET SCHEMA sch_b

statement ok
DROP TABLE IF EXISTS sch_none.t

error 3F000
DROP TABLE sch_none.t

# DROP SCHEMA: RESTRICT refuses a schema with objects; CASCADE takes them
# (and their comments) along.
error 2BP01
DROP SCHEMA sch_app

error 2BP01
DROP SCHEMA pg_catalog

error 3F000
DROP SCHEMA sch_nope

statement ok
DROP SCHEMA IF EXISTS sch_nope

statement ok
DROP SCHEMA sch_app, sch_renamed CASCADE

query
SELECT count(*) FROM pg_class c WHERE c.relname IN ('items', 'orders', 'abc', 'abc_view', 'counter', 'made_here')
----
0

query
SELECT count(*) FROM pg_proc WHERE proname = 'total'
----
0

query
SELECT count(*) FROM pg_type WHERE typname = 'status'
----
0

statement ok
DROP SCHEMA sch_b CASCADE

query
SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'sch\_%'
----
0
