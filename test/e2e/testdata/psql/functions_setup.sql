-- Functions for the \df and \sf comparisons (functions_test.go).
CREATE FUNCTION fn_add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS 'select a+b';
CREATE FUNCTION fn_many(a int, OUT b text, INOUT c int DEFAULT 3, VARIADIC d int[] DEFAULT '{}')
  LANGUAGE sql IMMUTABLE STRICT SECURITY DEFINER COST 5 PARALLEL SAFE
  SET search_path = public, pg_temp SET work_mem = '64MB'
  AS 'select ''x''::text, 1';
CREATE FUNCTION fn_table(x numeric DEFAULT 1.5, y text DEFAULT 'a', z bigint DEFAULT 1, w date DEFAULT now())
  RETURNS TABLE(p int, q text) LANGUAGE sql ROWS 5 AS 'select 1, ''a''';
CREATE FUNCTION "Fn Quoted"(int) RETURNS int LANGUAGE sql STABLE LEAKPROOF COST 1 AS $$ select 1 $$;
CREATE FUNCTION fn_set(int) RETURNS SETOF int LANGUAGE sql AS $$ select $1 -- $function $$;
CREATE FUNCTION fn_void() RETURNS void LANGUAGE sql AS 'select 1';
CREATE FUNCTION fn_poly(anyarray) RETURNS anyelement LANGUAGE sql PARALLEL RESTRICTED AS 'select $1[1]';
