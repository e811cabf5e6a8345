# Arrays as catalog queries use them.

query
SELECT ARRAY[1, 2, 3], ARRAY['a', 'b c', NULL], '{1,2}'::int4[], '{"x,y", "q\"r", ""}'::text[]
----
{1,2,3}|{a,"b c",NULL}|{1,2}|{"x,y","q\"r",""}

query
SELECT 2 = ANY (ARRAY[1, 2]), 3 = ANY ('{1,2}'), 5 <> ALL (ARRAY[1, NULL]), 1 = ANY (ARRAY[NULL, 1]), 7 = ANY ('{}'::int[])
----
t|f|NULL|t|f

query
SELECT array_position(ARRAY['a', 'b', 'c'], 'b'), array_position(ARRAY[1, 2], 5), array_length(ARRAY[1, 2, 3], 1), cardinality(ARRAY[]::int[])
----
2|NULL|3|0

# (expected: tidal's search_path, which is PostgreSQL's default)
query tidal
SELECT current_schemas(true), current_schemas(false), current_schema(), array_position(current_schemas(true), 'public')
----
{pg_catalog,public}|{public}|public|2

query
SELECT u FROM unnest(ARRAY[3, 1, 2]) AS u ORDER BY u
----
1
2
3

query
SELECT (ARRAY[10, 20, 30])[2], (ARRAY[10, 20, 30])[5], array_to_string(ARRAY['a', NULL, 'c'], ',')
----
20|NULL|a,c

query
SELECT ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1, 2] < ARRAY[1, 3], '{a,b}'::name[]
----
t|t|{a,b}

query
SELECT string_agg(x, '-'), array_agg(n) FROM (VALUES ('a', 1), ('b', 2)) v(x, n)
----
a-b|{1,2}

error 22P02
SELECT '{1,2'::int[]
