create role psql_alice login createdb;
create role psql_bob nologin connection limit 3;
create role psql_carol superuser createrole replication bypassrls valid until '2030-01-01 00:00:00+00';
create role psql_dave login connection limit 1 password 'secret';
create role psql_group nologin;
grant psql_group to psql_alice;
grant psql_bob to psql_dave;
grant psql_group to psql_dave with admin option;
