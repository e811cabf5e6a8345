# LANGUAGE plpgsql: declarations, assignment, control structures, loops,
# RETURN NEXT / QUERY, INTO [STRICT], PERFORM, EXECUTE, GET DIAGNOSTICS,
# FOUND, RAISE, exception blocks as subtransactions, DO blocks and CALL,
# recursion and cancellation. Expected output is PostgreSQL 15's
# (checked with TIDAL_SQLTEST_PG).

statement ok
CREATE TABLE pl_t (a int PRIMARY KEY, b text)

statement ok
INSERT INTO pl_t VALUES (1, 'one'), (2, 'two'), (3, 'three')

statement ok
CREATE FUNCTION pl_add(x int, y int DEFAULT 10) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  s int := x;
  k CONSTANT int := 0;
BEGIN
  s := s + y + k;
  RETURN s;
END $$

query
SELECT pl_add(1), pl_add(1, 2), pl_add(a) FROM pl_t ORDER BY a
----
11|3|11
11|3|12
11|3|13

query
SELECT prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql'), prosrc LIKE '%RETURN s;%' FROM pg_proc WHERE proname = 'pl_add'
----
t|t

# IF / ELSIF / ELSE, simple and searched CASE, CASE without a match.
statement ok
CREATE FUNCTION pl_sign(n numeric) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF n > 0 THEN RETURN 'pos';
  ELSIF n < 0 THEN RETURN 'neg';
  ELSIF n IS NULL THEN RETURN 'null';
  ELSE RETURN 'zero';
  END IF;
END $$

query
SELECT pl_sign(5), pl_sign(-2.5), pl_sign(0), pl_sign(NULL)
----
pos|neg|zero|null

statement ok
CREATE FUNCTION pl_case(n int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  CASE n
    WHEN 1, 2 THEN RETURN 'small';
    WHEN 3 THEN RETURN 'three';
  END CASE;
END $$

query
SELECT pl_case(2), pl_case(3)
----
small|three

error 20000
SELECT pl_case(4)

# Loops: integer FOR (BY, REVERSE), WHILE, LOOP with labelled EXIT and
# CONTINUE, FOR over a query, FOREACH over an array.
statement ok
CREATE FUNCTION pl_loops() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  out text := '';
  i int := 0;
  r record;
  e int;
BEGIN
  FOR k IN 1..10 BY 4 LOOP out := out || k || ','; END LOOP;
  FOR k IN REVERSE 3..1 LOOP
    CONTINUE WHEN k = 2;
    out := out || k || ';';
  END LOOP;
  WHILE i < 3 LOOP i := i + 1; END LOOP;
  <<outer>>
  LOOP
    LOOP
      i := i + 1;
      EXIT outer WHEN i >= 5;
    END LOOP;
  END LOOP;
  out := out || i || '|';
  FOR r IN SELECT a, b FROM pl_t ORDER BY a DESC LOOP
    out := out || r.b;
  END LOOP;
  FOREACH e IN ARRAY ARRAY[7, 8, 9] LOOP out := out || e; END LOOP;
  RETURN out;
END $$

query
SELECT pl_loops()
----
1,5,9,3;1;5|threetwoone789

# SETOF with RETURN NEXT and RETURN QUERY; RETURNS TABLE.
statement ok
CREATE FUNCTION pl_series(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP RETURN NEXT i * 10; END LOOP;
  RETURN QUERY SELECT a FROM pl_t WHERE a > 1 ORDER BY a;
END $$

query
SELECT * FROM pl_series(2)
----
10
20
2
3

statement ok
CREATE FUNCTION pl_table(lo int) RETURNS TABLE (k int, v text) LANGUAGE plpgsql AS $$
BEGIN
  k := 0; v := 'zero';
  RETURN NEXT;
  RETURN QUERY SELECT a, b FROM pl_t WHERE a > lo ORDER BY a;
END $$

query
SELECT * FROM pl_table(1)
----
0|zero
2|two
3|three

# OUT parameters; %TYPE and %ROWTYPE; SELECT INTO a row variable.
statement ok
CREATE FUNCTION pl_out(x int, OUT doubled int, OUT label pl_t.b%TYPE) LANGUAGE plpgsql AS $$
DECLARE
  row_ pl_t%ROWTYPE;
BEGIN
  SELECT * INTO row_ FROM pl_t WHERE a = x;
  doubled := row_.a * 2;
  label := row_.b;
END $$

query
SELECT * FROM pl_out(3)
----
6|three

# SELECT INTO: FOUND, STRICT with no row (P0002) and too many (P0003).
statement ok
CREATE FUNCTION pl_into(want int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v text;
BEGIN
  SELECT b INTO v FROM pl_t WHERE a = want;
  IF NOT FOUND THEN RETURN 'missing'; END IF;
  RETURN v;
END $$

query
SELECT pl_into(2), pl_into(9)
----
two|missing

error P0002
DO $$ DECLARE v text; BEGIN SELECT b INTO STRICT v FROM pl_t WHERE a = 9; END $$

error P0003
DO $$ DECLARE v text; BEGIN SELECT b INTO STRICT v FROM pl_t; END $$

error 42601
DO $$ BEGIN SELECT 1; END $$

# Data changes: FOUND and ROW_COUNT, RETURNING INTO, PERFORM.
statement ok
CREATE TABLE pl_log (msg text)

statement ok
CREATE FUNCTION pl_dml() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  newb text;
BEGIN
  UPDATE pl_t SET b = b || '!' WHERE a >= 2;
  GET DIAGNOSTICS n = ROW_COUNT;
  INSERT INTO pl_t VALUES (4, 'four') RETURNING b INTO newb;
  INSERT INTO pl_log VALUES (newb || ' ' || n || ' ' || FOUND);
  DELETE FROM pl_t WHERE a = 99;
  INSERT INTO pl_log VALUES ('after delete ' || FOUND);
  PERFORM a FROM pl_t WHERE a = 1;
  INSERT INTO pl_log VALUES ('perform ' || FOUND);
  RETURN n;
END $$

query
SELECT pl_dml()
----
2

query
SELECT msg FROM pl_log ORDER BY msg
----
after delete false
four 2 true
perform true

query
SELECT a, b FROM pl_t ORDER BY a
----
1|one
2|two!
3|three!
4|four

# EXECUTE … INTO … USING, FOR over EXECUTE.
statement ok
CREATE FUNCTION pl_dynamic(tbl text, lo int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c bigint;
  r record;
  s text := '';
BEGIN
  EXECUTE 'SELECT count(*) FROM ' || quote_ident(tbl) || ' WHERE a > $1' INTO c USING lo;
  FOR r IN EXECUTE 'SELECT b FROM ' || quote_ident(tbl) || ' WHERE a <= $1 ORDER BY a' USING lo LOOP
    s := s || r.b || ',';
  END LOOP;
  RETURN c || ':' || s;
END $$

query
SELECT pl_dynamic('pl_t', 2)
----
2:one,two!,

# Exception blocks are subtransactions: the block's changes are rolled
# back, the variables keep theirs; SQLSTATE, SQLERRM, GET STACKED
# DIAGNOSTICS; handlers by name, by SQLSTATE and by class.
statement ok
CREATE FUNCTION pl_exc() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v int := 0;
  msg text;
  st text;
  hint text;
BEGIN
  BEGIN
    INSERT INTO pl_t VALUES (10, 'ten');
    v := 1;
    v := v / 0;
  EXCEPTION WHEN division_by_zero THEN
    msg := SQLERRM || '/' || SQLSTATE || '/' || v;
  END;
  BEGIN
    INSERT INTO pl_t VALUES (1, 'dup');
  EXCEPTION WHEN SQLSTATE '23505' THEN
    msg := msg || '|dup';
  END;
  BEGIN
    RAISE EXCEPTION 'custom %', 42 USING ERRCODE = 'P0099', HINT = 'a hint';
  EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, hint = PG_EXCEPTION_HINT;
    msg := msg || '|' || SQLERRM || '/' || st || '/' || hint;
  END;
  BEGIN
    PERFORM 'x'::int;
  EXCEPTION WHEN data_exception THEN
    msg := msg || '|class 22';
  END;
  RETURN msg;
END $$

query
SELECT pl_exc()
----
division by zero/22012/1|dup|custom 42/P0099/a hint|class 22

query
SELECT count(*) FROM pl_t WHERE a = 10
----
0

# An error nobody catches rolls the whole statement back.
statement ok
CREATE FUNCTION pl_fail() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pl_t VALUES (20, 'twenty');
  RAISE EXCEPTION 'no luck' USING ERRCODE = 'check_violation';
END $$

error 23514
SELECT pl_fail()

query
SELECT count(*) FROM pl_t WHERE a = 20
----
0

# In a transaction block, a caught error leaves the block usable and
# the subtransaction's rows gone; the rest commits.
statement ok
BEGIN

statement ok
DO $$
BEGIN
  INSERT INTO pl_t VALUES (30, 'kept');
  BEGIN
    INSERT INTO pl_t VALUES (31, 'lost');
    PERFORM 1 / 0;
  EXCEPTION WHEN others THEN
    NULL;
  END;
END $$

statement ok
COMMIT

query
SELECT a, b FROM pl_t WHERE a >= 30 ORDER BY a
----
30|kept

# RAISE with a re-raise from a handler.
error 22012
DO $$ BEGIN PERFORM 1 / 0; EXCEPTION WHEN division_by_zero THEN RAISE; END $$

error P0001
DO $$ BEGIN RAISE 'plain %', 'error'; END $$

# NOT NULL variables, CONSTANT.
error 22004
DO $$ DECLARE x int NOT NULL := 1; BEGIN x := NULL; END $$

error 22005
DO $$ DECLARE x CONSTANT int := 1; BEGIN x := 2; END $$

error 42804
CREATE FUNCTION pl_bad() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$

error 42601
CREATE FUNCTION pl_bad() RETURNS int LANGUAGE plpgsql AS $$ BEGIN nosuchvar := 1; END $$

# Procedures and CALL, INOUT parameters, CALL inside a body.
statement ok
CREATE PROCEDURE pl_proc(x int, INOUT acc int) LANGUAGE plpgsql AS $$
BEGIN
  acc := acc + x;
  INSERT INTO pl_log VALUES ('proc ' || acc);
END $$

query
CALL pl_proc(5, 10)
----
15

statement ok
DO $$ DECLARE total int := 1; BEGIN CALL pl_proc(2, total); INSERT INTO pl_log VALUES ('do ' || total); END $$

query
SELECT msg FROM pl_log WHERE msg LIKE 'proc%' OR msg LIKE 'do%' ORDER BY msg
----
do 3
proc 15
proc 3

error 42809
CALL pl_add(1)

error 42883
CALL pl_nosuch(1)

# Recursion, and a recursion without end (54001).
statement ok
CREATE FUNCTION pl_fact(n int) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  IF n <= 1 THEN RETURN 1; END IF;
  RETURN n * pl_fact(n - 1);
END $$

query
SELECT pl_fact(20)
----
2432902008176640000

statement ok
CREATE FUNCTION pl_forever(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN pl_forever(n + 1); END $$

# (Caught, because the uncaught error's thousands of CONTEXT lines are
# more than lib/pq reads.)
statement ok
CREATE FUNCTION pl_depth() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pl_forever(0);
  RETURN 'no error';
EXCEPTION WHEN statement_too_complex THEN
  RETURN SQLSTATE || ' ' || SQLERRM;
END $$

query
SELECT pl_depth()
----
54001 stack depth limit exceeded

# An endless loop stops at statement_timeout, even inside a handler's
# block (OTHERS does not catch a cancel).
statement ok
SET statement_timeout = '300ms'

error 57014
DO $$ BEGIN LOOP END LOOP; END $$

error 57014
DO $$ BEGIN LOOP BEGIN PERFORM 1; EXCEPTION WHEN others THEN NULL; END; END LOOP; END $$

statement ok
RESET statement_timeout
