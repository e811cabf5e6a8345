# Functions written in SQL: CREATE / OR REPLACE / ALTER / DROP FUNCTION,
# pg_proc, calls with overload resolution (defaults, named and variadic
# arguments, polymorphic types), STRICT, SETOF / TABLE / OUT results in
# FROM, bodies of several statements with data changes, VOLATILE and
# STABLE snapshots, DECLARE CURSOR in a body, errors inside calls.
# Expected output is PostgreSQL 15's (checked with TIDAL_SQLTEST_PG).

statement ok
CREATE TABLE fn_t (a int, b text)

statement ok
INSERT INTO fn_t VALUES (1, 'one'), (2, 'two'), (3, 'three')

statement ok
CREATE FUNCTION fn_add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS 'SELECT a + b'

query
SELECT fn_add(1), fn_add(1, 5), fn_add(NULL) IS NULL, fn_add(b => 10, a => 2), fn_add(3, b => 4)
----
2|6|t|12|7

query
SELECT proname, pronargs, pronargdefaults, provolatile, proisstrict, proretset, prorettype, prokind, prosrc FROM pg_proc WHERE proname = 'fn_add'
----
fn_add|2|1|i|t|f|23|f|SELECT a + b

query
SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.proname = 'fn_add'
----
sql

query
SELECT lanname, lanispl, lanpltrusted FROM pg_language WHERE lanname IN ('internal', 'c', 'sql') ORDER BY oid
----
internal|f|f
c|f|f
sql|f|t

# Positional $n and the parameter names, qualified by the function's
# name; a column of the same name wins over a parameter.
statement ok
CREATE FUNCTION fn_names(a int, b text) RETURNS text LANGUAGE sql AS 'SELECT fn_names.b || $1 || b FROM fn_t WHERE fn_t.a = a'

query
SELECT fn_names(2, 'x')
----
x2one

statement ok
CREATE FUNCTION fn_param_where(x int) RETURNS text LANGUAGE sql AS 'SELECT b FROM fn_t WHERE a = x'

query
SELECT fn_param_where(3), fn_param_where(9) IS NULL
----
three|t

# Called anywhere an expression may appear.
query
SELECT a FROM fn_t WHERE a > fn_add(0) ORDER BY a LIMIT fn_add(0)
----
2

query
VALUES (fn_add(40, 2))
----
42

statement ok
CREATE TABLE fn_defaults (id int DEFAULT fn_add(99), v text)

statement ok
INSERT INTO fn_defaults (v) VALUES ('x')

query
SELECT id, v FROM fn_defaults
----
100|x

# Overload resolution among user functions and with the builtins.
statement ok
CREATE FUNCTION fn_over(int) RETURNS text LANGUAGE sql AS 'SELECT ''int'''

statement ok
CREATE FUNCTION fn_over(text) RETURNS text LANGUAGE sql AS 'SELECT ''text'''

statement ok
CREATE FUNCTION fn_over(numeric) RETURNS text LANGUAGE sql AS 'SELECT ''numeric'''

query
SELECT fn_over(1), fn_over('x'), fn_over(1.5), fn_over(NULL), fn_over(1::bigint)
----
int|text|numeric|text|numeric

error 42725
SELECT fn_over(1::smallint)

error 42883
SELECT fn_over(true)

error 42883
SELECT fn_add(1, 2, 3)

error 42883
SELECT fn_add(c => 1)

error 42601
SELECT fn_add(a => 1, 2)

statement ok
CREATE FUNCTION fn_amb(int, text DEFAULT 'd') RETURNS text LANGUAGE sql AS 'SELECT $2'

statement ok
CREATE FUNCTION fn_amb(int) RETURNS text LANGUAGE sql AS 'SELECT ''one'''

error 42725
SELECT fn_amb(1)

query
SELECT fn_amb(1, 'x')
----
x

# A user function with a builtin's name and argument types does not hide
# the builtin (pg_catalog comes first); other argument types reach it.
statement ok
CREATE FUNCTION abs(int) RETURNS int LANGUAGE sql AS 'SELECT 42'

statement ok
CREATE FUNCTION upper(int) RETURNS text LANGUAGE sql AS 'SELECT ''mine'''

query
SELECT abs(-1), upper(5), upper('x')
----
1|mine|X

# VARIADIC.
statement ok
CREATE FUNCTION fn_var(VARIADIC int[]) RETURNS int LANGUAGE sql AS 'SELECT array_length($1, 1)'

query
SELECT fn_var(1), fn_var(1, 2, 3), fn_var(VARIADIC ARRAY[1, 2])
----
1|3|2

error 42883
SELECT fn_var()

error 42P13
CREATE FUNCTION fn_var_bad(VARIADIC a int) RETURNS int LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE FUNCTION fn_var_bad(VARIADIC a int[], b int) RETURNS int LANGUAGE sql AS 'SELECT 1'

# Polymorphic arguments.
statement ok
CREATE FUNCTION fn_poly(anyelement, anyelement) RETURNS anyelement LANGUAGE sql AS 'SELECT $1'

statement ok
CREATE FUNCTION fn_first(anyarray) RETURNS anyelement LANGUAGE sql AS 'SELECT $1[1]'

query
SELECT fn_poly(1, 2), fn_poly('a'::text, 'b'), fn_first(ARRAY[3, 4]), fn_first(ARRAY['p', 'q'])
----
1|a|3|p

error 42883
SELECT fn_poly(1, 'a'::text)

error 42804
SELECT fn_poly('a', 'b')

error 42P13
CREATE FUNCTION fn_poly_bad(int) RETURNS anyelement LANGUAGE sql AS 'SELECT 1'

# STRICT and CALLED ON NULL INPUT.
statement ok
CREATE FUNCTION fn_strict(int) RETURNS int LANGUAGE sql STRICT AS 'SELECT coalesce($1, -1)'

statement ok
CREATE FUNCTION fn_lax(int) RETURNS int LANGUAGE sql CALLED ON NULL INPUT AS 'SELECT coalesce($1, -1)'

query
SELECT fn_strict(NULL) IS NULL, fn_lax(NULL), fn_strict(7)
----
t|-1|7

# A void result is NULL.
statement ok
CREATE FUNCTION fn_void(int) RETURNS void LANGUAGE sql AS 'SELECT 1'

query
SELECT fn_void(1) IS NULL
----
t

# Several statements; the last one gives the result; data changes.
statement ok
CREATE FUNCTION fn_ins(x int) RETURNS int LANGUAGE sql AS $$
  INSERT INTO fn_t VALUES (x, 'new');
  UPDATE fn_t SET b = b || '!' WHERE a = x;
  SELECT count(*)::int FROM fn_t
$$

query
SELECT fn_ins(10)
----
4

query
SELECT a, b FROM fn_t WHERE a = 10
----
10|new!

statement ok
CREATE FUNCTION fn_ret(x int) RETURNS text LANGUAGE sql AS 'DELETE FROM fn_t WHERE a = x RETURNING b'

query
SELECT fn_ret(10), fn_ret(10) IS NULL
----
new!|t

# A scalar function's result is the first row; no row gives NULL.
statement ok
CREATE FUNCTION fn_first_a() RETURNS int LANGUAGE sql AS 'SELECT a FROM fn_t ORDER BY a DESC'

query
SELECT fn_first_a()
----
3

# SETOF, TABLE and OUT results, in FROM and in the select list.
statement ok
CREATE FUNCTION fn_set(n int) RETURNS SETOF int LANGUAGE sql AS 'SELECT a FROM fn_t WHERE a <= n ORDER BY a'

query
SELECT * FROM fn_set(2)
----
1
2

query
SELECT fn_set(3)
----
1
2
3

query
SELECT x, ordinality FROM fn_set(3) WITH ORDINALITY AS s(x)
----
1|1
2|2
3|3

query
SELECT t.a, s FROM fn_t t, fn_set(t.a) s ORDER BY 1, 2
----
1|1
2|1
2|2
3|1
3|2
3|3

statement ok
CREATE FUNCTION fn_table(n int) RETURNS TABLE (k int, v text) LANGUAGE sql AS 'SELECT a, b FROM fn_t WHERE a <= n ORDER BY a'

query
SELECT * FROM fn_table(2)
----
1|one
2|two

query
SELECT v FROM fn_table(3) WHERE k = 3
----
three

query
SELECT fn_table(1)
----
(1,one)

statement ok
CREATE FUNCTION fn_out(x int, OUT doubled int, OUT label text) LANGUAGE sql AS 'SELECT x * 2, ''n'' || x'

query
SELECT * FROM fn_out(21)
----
42|n21

query
SELECT fn_out(1), (fn_out(5)).label
----
(2,n1)|n5

statement ok
CREATE FUNCTION fn_record() RETURNS record LANGUAGE sql AS 'SELECT 1, ''a''::text'

query
SELECT * FROM fn_record() AS r(i int, t text)
----
1|a

error 42601
SELECT * FROM fn_record()

query
SELECT * FROM fn_add(1)
----
2

query
SELECT * FROM fn_strict(NULL)
----
NULL

statement ok
CREATE FUNCTION fn_setvoid(n int) RETURNS SETOF void LANGUAGE sql AS 'SELECT a FROM fn_t'

query
SELECT count(*) FROM fn_setvoid(3)
----
0

# SQL-standard bodies.
statement ok
CREATE FUNCTION fn_std(a int) RETURNS int LANGUAGE sql RETURN a * 3

statement ok
CREATE FUNCTION fn_atomic(a int) RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT 1;
  SELECT a + 100;
END

query
SELECT fn_std(4), fn_atomic(1)
----
12|101

# Definition errors are found at CREATE.
error 42P13
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS 'SELECT ''a''::text'

error 42P13
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS 'SELECT 1, 2'

error 42P13
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS 'UPDATE fn_t SET a = a'

error 42P01
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS 'SELECT a FROM fn_nosuch'

error 42P02
CREATE FUNCTION fn_bad(int) RETURNS int LANGUAGE sql AS 'SELECT $2'

error 42601
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS 'SELEC 1'

error 42P13
CREATE FUNCTION fn_bad(a int, a int) RETURNS int LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE FUNCTION fn_bad(a int DEFAULT 1, b int) RETURNS int LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE FUNCTION fn_bad(OUT a int, OUT b text) RETURNS int LANGUAGE sql AS 'SELECT 1, ''x'''

error 42P13
CREATE FUNCTION fn_bad() LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE FUNCTION fn_bad() RETURNS int AS 'SELECT 1'

error 42704
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE nosuch AS 'SELECT 1'

error 22023
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql ROWS 10 AS 'SELECT 1'

error 22023
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql COST 0 AS 'SELECT 1'

error 42P13
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS 'SELECT 1; COMMIT'

error 42723
CREATE FUNCTION fn_add(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT 0'

# With check_function_bodies off, only the syntax is checked.
statement ok
SET check_function_bodies = off

statement ok
CREATE FUNCTION fn_late() RETURNS int LANGUAGE sql AS 'SELECT count(*)::int FROM fn_later'

error 42P01
SELECT fn_late()

statement ok
CREATE TABLE fn_later (x int)

query
SELECT fn_late()
----
0

statement ok
RESET check_function_bodies

# CREATE OR REPLACE keeps the OID and refuses incompatible changes.
statement ok
CREATE TABLE fn_oids AS SELECT oid AS o FROM pg_proc WHERE proname = 'fn_over' AND proargtypes = '23'

statement ok
CREATE OR REPLACE FUNCTION fn_over(int) RETURNS text LANGUAGE sql AS 'SELECT ''int2'''

query
SELECT fn_over(1), (SELECT count(*) FROM pg_proc p, fn_oids WHERE p.oid = fn_oids.o)
----
int2|1

error 42P13
CREATE OR REPLACE FUNCTION fn_over(int) RETURNS int LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE OR REPLACE FUNCTION fn_add(x int, b int DEFAULT 1) RETURNS int LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE OR REPLACE FUNCTION fn_add(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT 1'

error 42P13
CREATE OR REPLACE FUNCTION fn_out(x int, OUT doubled int, OUT other text) LANGUAGE sql AS 'SELECT 1, ''x'''

# ALTER FUNCTION.
statement ok
ALTER FUNCTION fn_over(int) STABLE

statement ok
ALTER FUNCTION fn_over(int) CALLED ON NULL INPUT

statement ok
ALTER FUNCTION fn_over(int) STRICT SECURITY DEFINER COST 7

query
SELECT provolatile, proisstrict, prosecdef, procost FROM pg_proc WHERE proname = 'fn_over' AND proargtypes = '23'
----
s|t|t|7

statement ok
ALTER FUNCTION fn_over(int) RENAME TO fn_renamed

query
SELECT fn_renamed(1)
----
int2

error 42723
ALTER FUNCTION fn_renamed(int) RENAME TO fn_amb

error 42883
ALTER FUNCTION fn_over(int) IMMUTABLE

error 42725
ALTER FUNCTION fn_over IMMUTABLE

error 22023
ALTER FUNCTION fn_renamed(int) ROWS 5

# DROP FUNCTION.
error 42725
DROP FUNCTION fn_over

error 42883
DROP FUNCTION fn_over(int)

statement ok
DROP FUNCTION IF EXISTS fn_over(int), fn_over(bool)

statement ok
DROP FUNCTION fn_over(text), fn_over(numeric), fn_renamed

error 42883
DROP FUNCTION fn_nosuch

statement ok
DROP FUNCTION IF EXISTS fn_nosuch

error 42883
DROP PROCEDURE fn_add

error 42809
DROP PROCEDURE fn_add(int, int)

error 42883
SELECT fn_over(1)

# Routine DDL is transactional: rolled back with its transaction or
# savepoint.
statement ok
BEGIN

statement ok
CREATE FUNCTION fn_tx() RETURNS int LANGUAGE sql AS 'SELECT 1'

query
SELECT fn_tx()
----
1

statement ok
ROLLBACK

error 42883
SELECT fn_tx()

statement ok
BEGIN

statement ok
CREATE FUNCTION fn_tx() RETURNS int LANGUAGE sql AS 'SELECT 1'

statement ok
SAVEPOINT s

statement ok
CREATE OR REPLACE FUNCTION fn_tx() RETURNS int LANGUAGE sql AS 'SELECT 2'

statement ok
ALTER FUNCTION fn_tx() RENAME TO fn_tx2

query
SELECT fn_tx2()
----
2

statement ok
ROLLBACK TO s

query
SELECT fn_tx()
----
1

statement ok
SAVEPOINT s2

statement ok
DROP FUNCTION fn_tx()

statement ok
ROLLBACK TO s2

statement ok
COMMIT

query
SELECT fn_tx(), (SELECT count(*) FROM pg_proc WHERE proname IN ('fn_tx', 'fn_tx2'))
----
1|1

# An error inside a call carries the function's context and aborts the
# block as any error does.
statement ok
CREATE FUNCTION fn_div(int) RETURNS int LANGUAGE sql AS 'SELECT 10 / $1'

error 22012
SELECT fn_div(0)

statement ok
BEGIN

error 22012
SELECT a, fn_div(a - 2) FROM fn_t

error 25P02
SELECT 1

statement ok
ROLLBACK

# Recursion is bounded by max_stack_depth.
statement ok
CREATE FUNCTION fn_rec(int) RETURNS int LANGUAGE sql AS 'SELECT CASE WHEN $1 <= 0 THEN 0 ELSE fn_rec($1 - 1) + 1 END'

query
SELECT fn_rec(100)
----
100

statement ok
SET max_stack_depth = '100kB'

error 54001
SELECT fn_rec(100000)

statement ok
RESET max_stack_depth

# A non-volatile function may not change data; nor may any function in
# a read-only transaction.
statement ok
CREATE FUNCTION fn_stable_ins() RETURNS int LANGUAGE sql STABLE AS 'INSERT INTO fn_t VALUES (9, ''x'') RETURNING a'

error 0A000
SELECT fn_stable_ins()

statement ok
CREATE FUNCTION fn_vol_ins() RETURNS int LANGUAGE sql AS 'INSERT INTO fn_t VALUES (9, ''x'') RETURNING a'

statement ok
BEGIN READ ONLY

error 25006
SELECT fn_vol_ins()

statement ok
ROLLBACK

# Snapshots: a STABLE function sees the database as the calling
# statement does; a VOLATILE one also sees what the calling statement
# changed before the call (transactions.sql's max_xacttest).
statement ok
CREATE TABLE fn_x (a int)

statement ok
INSERT INTO fn_x VALUES (10), (20), (30)

statement ok
CREATE FUNCTION fn_max_s() RETURNS int LANGUAGE sql STABLE AS 'SELECT max(a) FROM fn_x'

statement ok
CREATE FUNCTION fn_max_v() RETURNS int LANGUAGE sql VOLATILE AS 'SELECT max(a) FROM fn_x'

statement ok
BEGIN

statement ok
UPDATE fn_x SET a = fn_max_s() + a

query
SELECT a FROM fn_x ORDER BY a
----
40
50
60

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
UPDATE fn_x SET a = fn_max_v() + 1

query
SELECT a FROM fn_x ORDER BY a
----
31
32
33

statement ok
ROLLBACK

# Each statement of a VOLATILE function sees the earlier ones' changes.
statement ok
CREATE FUNCTION fn_steps() RETURNS int LANGUAGE sql AS $$
  DELETE FROM fn_x WHERE a = 10;
  INSERT INTO fn_x SELECT max(a) + 1 FROM fn_x;
  SELECT count(*)::int * 100 + max(a) FROM fn_x
$$

statement ok
BEGIN

query
SELECT fn_steps()
----
331

query
SELECT fn_steps()
----
432

statement ok
ROLLBACK

# Functions in a cursor: the VOLATILE one sees the transaction's changes
# made after DECLARE, the STABLE one the DECLARE's snapshot (portals.sql).
statement ok
CREATE TABLE fn_tt (f int)

statement ok
CREATE FUNCTION fn_count_v() RETURNS int8 LANGUAGE sql VOLATILE AS 'SELECT count(*) FROM fn_tt'

statement ok
CREATE FUNCTION fn_count_s() RETURNS int8 LANGUAGE sql STABLE AS 'SELECT count(*) FROM fn_tt'

statement ok
BEGIN

statement ok
INSERT INTO fn_tt VALUES (1)

statement ok
DECLARE fn_c1 CURSOR FOR SELECT fn_count_v(), fn_count_s()

statement ok
INSERT INTO fn_tt VALUES (2)

query
FETCH ALL FROM fn_c1
----
2|1

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
INSERT INTO fn_tt VALUES (1)

statement ok
DECLARE fn_c2 CURSOR WITH HOLD FOR SELECT fn_count_v(), fn_count_s()

statement ok
INSERT INTO fn_tt VALUES (2)

statement ok
COMMIT

statement ok
DELETE FROM fn_tt

query
FETCH ALL FROM fn_c2
----
2|1

statement ok
CLOSE fn_c2

# A function body may declare a cursor, which then belongs to the
# session; its query takes the function's arguments.
statement ok
BEGIN

statement ok
CREATE FUNCTION fn_declare(text) RETURNS void LANGUAGE sql AS 'DECLARE fn_dc CURSOR FOR SELECT b FROM fn_t WHERE b LIKE $1 ORDER BY b'

query
SELECT fn_declare('t%') IS NULL
----
t

query
FETCH ALL FROM fn_dc
----
three
two

statement ok
ROLLBACK

# A temporary function lives in pg_temp and is called qualified.
statement ok
CREATE FUNCTION pg_temp.fn_tmp() RETURNS int LANGUAGE sql AS 'SELECT 5'

query
SELECT pg_temp.fn_tmp()
----
5

error 42883
SELECT fn_tmp()

# SET clauses hold for the call; a plain SET in the body outlasts it.
statement ok
CREATE FUNCTION fn_cfg() RETURNS text LANGUAGE sql SET work_mem = '1234kB' AS 'SELECT current_setting(''work_mem'')'

query
SELECT fn_cfg(), current_setting('work_mem')
----
1234kB|4MB

statement ok
CREATE FUNCTION fn_cfg_set() RETURNS text LANGUAGE sql SET work_mem = '1234kB' AS 'SET work_mem = ''2MB''; SELECT current_setting(''work_mem'')'

query
SELECT fn_cfg_set(), current_setting('work_mem')
----
2MB|2MB

statement ok
RESET work_mem

statement ok
CREATE FUNCTION fn_cfg_local() RETURNS text LANGUAGE sql SET work_mem = '1234kB' AS 'SET LOCAL work_mem = ''3MB''; SELECT current_setting(''work_mem'')'

query
SELECT fn_cfg_local(), current_setting('work_mem')
----
3MB|4MB

query
SELECT proconfig FROM pg_proc WHERE proname = 'fn_cfg'
----
{work_mem=1234kB}

statement ok
ALTER FUNCTION fn_cfg() RESET work_mem

query
SELECT fn_cfg(), proconfig IS NULL FROM pg_proc WHERE proname = 'fn_cfg'
----
4MB|t

error 42704
CREATE FUNCTION fn_cfg_bad() RETURNS int LANGUAGE sql SET no_such_setting = 1 AS 'SELECT 1'
