# Roles and privileges: GRANT/REVOKE on a table and its columns, SET ROLE,
# 42501 for what a role may not do, and recovery once it is granted.
# Roles are cluster-wide on PostgreSQL, so the script cleans up after
# itself and uses the public schema.

statement ok
SET search_path = public

statement ok
DROP TABLE IF EXISTS priv_e2e_t

statement ok
DROP ROLE IF EXISTS priv_e2e_reader

statement ok
DROP ROLE IF EXISTS priv_e2e_writer

statement ok
CREATE ROLE priv_e2e_reader

statement ok
CREATE ROLE priv_e2e_writer

statement ok
CREATE TABLE priv_e2e_t (id int PRIMARY KEY, secret text, note text)

statement ok
INSERT INTO priv_e2e_t VALUES (1, 's1', 'n1')

query
SELECT relacl IS NULL FROM pg_class WHERE relname = 'priv_e2e_t'
----
t

statement ok
GRANT SELECT (id, note) ON priv_e2e_t TO priv_e2e_reader

statement ok
GRANT SELECT, INSERT, UPDATE (note) ON priv_e2e_t TO priv_e2e_writer WITH GRANT OPTION

query
SELECT relacl::text FROM pg_class WHERE relname = 'priv_e2e_t'
----
{postgres=arwdDxt/postgres,priv_e2e_writer=a*r*/postgres}

query
SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = 'priv_e2e_t'::regclass AND attacl IS NOT NULL ORDER BY attnum
----
id|{priv_e2e_reader=r/postgres}
note|{priv_e2e_reader=r/postgres,priv_e2e_writer=w*/postgres}

query
SELECT has_table_privilege('priv_e2e_reader', 'priv_e2e_t', 'SELECT'), has_column_privilege('priv_e2e_reader', 'priv_e2e_t', 'note', 'SELECT'), has_column_privilege('priv_e2e_reader', 'priv_e2e_t', 'secret', 'SELECT'), has_table_privilege('priv_e2e_writer', 'priv_e2e_t', 'INSERT WITH GRANT OPTION')
----
f|t|f|t

statement ok
SET ROLE priv_e2e_reader

query
SELECT current_user, session_user, current_setting('role')
----
priv_e2e_reader|postgres|priv_e2e_reader

query
SELECT id, note FROM priv_e2e_t
----
1|n1

error 42501
SELECT * FROM priv_e2e_t

error 42501
SELECT secret FROM priv_e2e_t

error 42501
SELECT id FROM priv_e2e_t WHERE secret = 's1'

error 42501
INSERT INTO priv_e2e_t VALUES (2, 's2', 'n2')

error 42501
DELETE FROM priv_e2e_t

error 42501
DROP TABLE priv_e2e_t

error 42501
GRANT SELECT ON priv_e2e_t TO priv_e2e_writer

statement ok
RESET ROLE

statement ok
SET ROLE priv_e2e_writer

statement ok
INSERT INTO priv_e2e_t VALUES (2, 's2', 'n2')

statement ok
UPDATE priv_e2e_t SET note = 'w' WHERE id = 2

error 42501
UPDATE priv_e2e_t SET secret = 'x'

error 42501
DELETE FROM priv_e2e_t WHERE id = 2

error 42501
TRUNCATE priv_e2e_t

statement ok
GRANT SELECT ON priv_e2e_t TO priv_e2e_reader

statement ok
RESET ROLE

query
SELECT relacl::text FROM pg_class WHERE relname = 'priv_e2e_t'
----
{postgres=arwdDxt/postgres,priv_e2e_writer=a*r*/postgres,priv_e2e_reader=r/priv_e2e_writer}

statement ok
SET ROLE priv_e2e_reader

query
SELECT id, secret, note FROM priv_e2e_t ORDER BY id
----
1|s1|n1
2|s2|w

statement ok
RESET ROLE

error 2BP01
REVOKE SELECT ON priv_e2e_t FROM priv_e2e_writer

statement ok
REVOKE SELECT ON priv_e2e_t FROM priv_e2e_writer CASCADE

query
SELECT relacl::text FROM pg_class WHERE relname = 'priv_e2e_t'
----
{postgres=arwdDxt/postgres,priv_e2e_writer=a*/postgres}

statement ok
BEGIN

statement ok
SET ROLE priv_e2e_reader

error 42501
SELECT secret FROM priv_e2e_t

statement ok
ROLLBACK

query
SELECT current_user, current_setting('is_superuser')
----
postgres|on

statement ok
DROP TABLE priv_e2e_t

statement ok
DROP ROLE priv_e2e_reader

statement ok
DROP ROLE priv_e2e_writer
