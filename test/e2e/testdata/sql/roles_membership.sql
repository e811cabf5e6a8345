# Role membership (PostgreSQL 15): GRANT/REVOKE role, CREATE ROLE … IN ROLE /
# ROLE / ADMIN, ALTER GROUP, pg_auth_members, pg_has_role, DROP ROLE.
# Role names are cluster-wide on PostgreSQL: they all start with rmem_ and
# the script drops them at the end.

statement ok
CREATE ROLE rmem_a

statement ok
CREATE ROLE rmem_b

statement ok
CREATE ROLE rmem_c LOGIN

statement ok
GRANT rmem_a TO rmem_b

# Already a member: a NOTICE, and nothing changes.
statement ok
GRANT rmem_a TO rmem_b

query
SELECT roleid::regrole, member::regrole, grantor::regrole, admin_option FROM pg_auth_members WHERE member = 'rmem_b'::regrole
----
rmem_a|rmem_b|postgres|f

# Granting again WITH ADMIN OPTION adds the admin option.
statement ok
GRANT rmem_a TO rmem_b WITH ADMIN OPTION

query
SELECT roleid::regrole, member::regrole, admin_option FROM pg_auth_members WHERE member = (SELECT oid FROM pg_roles WHERE rolname = 'rmem_b')
----
rmem_a|rmem_b|t

# Loops are refused, the trivial one too.
error 0LP01
GRANT rmem_b TO rmem_a

error 0LP01
GRANT rmem_a TO rmem_a

error 42704
GRANT rmem_nope TO rmem_b

error 42704
GRANT rmem_a TO rmem_nope

error 42704
GRANT rmem_a TO public

error 42601
GRANT rmem_a TO rmem_b WITH INHERIT TRUE

statement ok
GRANT rmem_b TO rmem_c

# rmem_c is a member of rmem_a through rmem_b, so rmem_a cannot join rmem_c.
error 0LP01
GRANT rmem_c TO rmem_a

query
SELECT pg_has_role('rmem_b', 'rmem_a', 'MEMBER'), pg_has_role('rmem_c', 'rmem_a', 'usage'), pg_has_role('rmem_b', 'rmem_a', 'member with admin option'), pg_has_role('rmem_a', 'rmem_b', 'MEMBER')
----
t|t|t|f

# rmem_c has the admin option through rmem_b.
query
SELECT pg_has_role('rmem_c', 'rmem_a', 'USAGE WITH GRANT OPTION'), pg_has_role('rmem_a', 'rmem_a', 'member, usage'), pg_has_role('rmem_a', 'rmem_a', 'MEMBER WITH ADMIN OPTION'), pg_has_role('postgres', 'rmem_a', 'MEMBER WITH ADMIN OPTION')
----
t|t|f|t

# By OID: an OID that is no role has no membership; a name is an error.
query
SELECT pg_has_role((SELECT oid FROM pg_roles WHERE rolname = 'rmem_c'), 'rmem_a', 'MEMBER'), pg_has_role(99999::oid, 'rmem_a', 'MEMBER'), pg_has_role('rmem_a', 'MEMBER')
----
t|f|t

error 42704
SELECT pg_has_role('rmem_nope', 'rmem_a', 'MEMBER')

error 22023
SELECT pg_has_role('rmem_b', 'rmem_a', 'foo')

# REVOKE ADMIN OPTION FOR keeps the membership.
statement ok
REVOKE ADMIN OPTION FOR rmem_a FROM rmem_b

query
SELECT roleid::regrole, member::regrole, admin_option FROM pg_auth_members WHERE member = (SELECT oid FROM pg_roles WHERE rolname = 'rmem_b')
----
rmem_a|rmem_b|f

# Not a member: a WARNING, and success.
statement ok
REVOKE rmem_a FROM rmem_c

error 42704
REVOKE rmem_nope FROM rmem_c

statement ok
REVOKE rmem_b FROM rmem_c

query
SELECT pg_has_role('rmem_c', 'rmem_a', 'MEMBER')
----
f

# A NOINHERIT role is a member but does not have the role's privileges.
statement ok
CREATE ROLE rmem_d NOINHERIT IN ROLE rmem_a

query
SELECT pg_has_role('rmem_d', 'rmem_a', 'MEMBER'), pg_has_role('rmem_d', 'rmem_a', 'USAGE')
----
t|f

# CREATE ROLE … ROLE / ADMIN make the new role's members.
statement ok
CREATE ROLE rmem_e ROLE rmem_c ADMIN rmem_d

query
SELECT r.rolname, m.rolname, a.admin_option FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member WHERE r.rolname LIKE 'rmem%' ORDER BY 1, 2
----
rmem_a|rmem_b|f
rmem_a|rmem_d|f
rmem_e|rmem_c|f
rmem_e|rmem_d|t

error 0LP01
CREATE ROLE rmem_f IN ROLE rmem_a ADMIN rmem_a

error 42704
SELECT 'rmem_f'::text::regrole

statement ok
ALTER GROUP rmem_a ADD USER rmem_c, rmem_e

statement ok
ALTER GROUP rmem_a DROP USER rmem_b

query
SELECT m.rolname FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member WHERE r.rolname = 'rmem_a' ORDER BY 1
----
rmem_c
rmem_d
rmem_e

error XX000
GRANT pg_database_owner TO rmem_a

error XX000
GRANT rmem_a TO pg_database_owner

# initdb's grants.
query
SELECT roleid::regrole, member::regrole, grantor::regrole, admin_option FROM pg_auth_members WHERE roleid < 16384 ORDER BY roleid
----
pg_read_all_settings|pg_monitor|postgres|f
pg_read_all_stats|pg_monitor|postgres|f
pg_stat_scan_tables|pg_monitor|postgres|f

# DROP ROLE removes the role's memberships both ways.
statement ok
DROP ROLE rmem_a

query
SELECT r.rolname, m.rolname FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member WHERE r.rolname LIKE 'rmem%' OR m.rolname LIKE 'rmem%' ORDER BY 1, 2
----
rmem_e|rmem_c
rmem_e|rmem_d

statement ok
DROP ROLE rmem_e

query
SELECT count(*) FROM pg_auth_members WHERE roleid >= 16384 OR member >= 16384
----
0

statement ok
DROP ROLE rmem_b, rmem_c, rmem_d
