# uuid, json and jsonb. Expected rows are PostgreSQL 15's.

statement ok
SET TimeZone = 'UTC'

query
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}'::uuid, 'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid, 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11'::uuid, '{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}'::uuid
----
a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11

error 22P02
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1'::uuid

error 22P02
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11x'::uuid

query
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid < 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'A0EEBC999C0B4EF8BB6D6BB9BD380A11', length(gen_random_uuid()::text), gen_random_uuid() <> gen_random_uuid()
----
t|t|36|t

statement ok
CREATE TABLE uj_items (id uuid PRIMARY KEY, doc jsonb, raw json)

statement ok
INSERT INTO uj_items VALUES ('00000000-0000-0000-0000-000000000002', '{"b": [1, 2.50, {"x": null}], "a": "s", "aa": true}', '{"b" : [1,  2], "a":1, "a":2}'), ('00000000-0000-0000-0000-000000000001', '[1, "two", 3.0e1]', '"str"'), ('ffffffff-0000-0000-0000-000000000000', '{"n": 1}', 'null')

query
SELECT id, doc, raw FROM uj_items ORDER BY id
----
00000000-0000-0000-0000-000000000001|[1, "two", 30]|"str"
00000000-0000-0000-0000-000000000002|{"a": "s", "b": [1, 2.50, {"x": null}], "aa": true}|{"b" : [1,  2], "a":1, "a":2}
ffffffff-0000-0000-0000-000000000000|{"n": 1}|null

query
SELECT id FROM uj_items WHERE id = '00000000-0000-0000-0000-000000000001'
----
00000000-0000-0000-0000-000000000001

error 23505
INSERT INTO uj_items VALUES ('00000000-0000-0000-0000-000000000001', NULL, NULL)

query
SELECT '{"b": 1, "a": 2, "aa": 3, "a": 4}'::jsonb, '  [1 , 2,{"k" :"v"}] '::jsonb, '{"b": 1, "a": 2}'::json, '1.50'::jsonb, '1e2'::jsonb, '-0.0'::jsonb, '1.5E-3'::jsonb, '"\u00e9\n\"q\""'::jsonb, 'null'::jsonb, '{}'::jsonb, '[]'::jsonb
----
{"a": 4, "b": 1, "aa": 3}|[1, 2, {"k": "v"}]|{"b": 1, "a": 2}|1.50|100|0.0|0.0015|"é\n\"q\""|null|{}|[]

error 22P02
SELECT '{"a": }'::jsonb

error 22P02
SELECT '[1, 2'::json

error 22P02
SELECT '{"a" 1}'::jsonb

query
SELECT doc -> 'b', doc ->> 'a', doc -> 'b' -> 2, doc -> 'b' ->> 1, doc #> '{b,2}', doc #>> '{b,0}', doc -> 'missing', doc -> 'b' -> -1 FROM uj_items WHERE id = '00000000-0000-0000-0000-000000000002'
----
[1, 2.50, {"x": null}]|s|{"x": null}|2.50|{"x": null}|1|NULL|{"x": null}

query
SELECT raw -> 'b', raw ->> 'a', raw -> 'b' -> 1, raw #> '{b}', raw #>> '{b,1}' FROM uj_items WHERE id = '00000000-0000-0000-0000-000000000002'
----
[1,  2]|2|2|[1,  2]|2

query
SELECT doc -> 1, doc ->> 1, doc -> 5 FROM uj_items WHERE id = '00000000-0000-0000-0000-000000000001'
----
"two"|two|NULL

query
SELECT '{"a": 1, "b": {"c": 2}}'::jsonb @> '{"b": {"c": 2}}', '{"a": 1}'::jsonb @> '{"a": 2}', '[1, 2, [3]]'::jsonb @> '[[3], 1]', '[1, 2]'::jsonb @> '1', '{"a": 1}'::jsonb <@ '{"a": 1, "b": 2}'
----
t|f|t|t|t

query
SELECT '{"a": 1, "b": 2}'::jsonb ? 'a', '["a", "b"]'::jsonb ? 'b', '{"a": 1}'::jsonb ? 'z', '{"a": 1, "b": 2}'::jsonb ?| array['z', 'b'], '{"a": 1, "b": 2}'::jsonb ?& array['a', 'z']
----
t|t|f|t|f

query
SELECT '{"a": 1}'::jsonb = '{"a": 1.0}', '[1, 2]'::jsonb = '[2, 1]', '{"a": 1, "b": 2}'::jsonb = '{"b": 2, "a": 1}', '1'::jsonb < '2'::jsonb, '"a"'::jsonb < '1'::jsonb, '[1]'::jsonb > '{"a": 1}'::jsonb
----
t|f|t|t|t|f

query
SELECT '{"a": 1, "b": 2}'::jsonb || '{"b": 3, "c": 4}', '[1, 2]'::jsonb || '[3]', '[1]'::jsonb || '2', '1'::jsonb || '[2]', '{"a": 1}'::jsonb || '[1]'
----
{"a": 1, "b": 3, "c": 4}|[1, 2, 3]|[1, 2]|[1, 2]|[{"a": 1}, 1]

query
SELECT '{"a": 1, "b": 2}'::jsonb - 'a', '["a", "b", "a"]'::jsonb - 'a', '[1, 2, 3]'::jsonb - 1, '[1, 2, 3]'::jsonb - -1, '{"a": 1, "b": 2, "c": 3}'::jsonb - array['a', 'c']
----
{"b": 2}|["b"]|[1, 3]|[1, 2]|{"b": 2}

error 22023
SELECT '1'::jsonb - 'a'

query
SELECT jsonb_typeof('{"a": 1}'), jsonb_typeof('[1]'), jsonb_typeof('"s"'), jsonb_typeof('1.5'), jsonb_typeof('true'), jsonb_typeof('null'), json_typeof('{"a": 1}')
----
object|array|string|number|boolean|null|object

query
SELECT jsonb_array_length('[1, 2, [3, 4]]'), json_array_length('[1, 2]'), jsonb_array_length('[]')
----
3|2|0

error 22023
SELECT jsonb_array_length('{"a": 1}')

error 22023
SELECT jsonb_array_length('5')

query
SELECT jsonb_build_object('a', 1, 'b', 'text', 'c', true, 'd', NULL, 'e', 1.5, 'f', '{"x": 1}'::jsonb), json_build_object('a', 1, 'b', 'x'), jsonb_build_array(1, 'two', NULL), json_build_array(1, 'two')
----
{"a": 1, "b": "text", "c": true, "d": null, "e": 1.5, "f": {"x": 1}}|{"a" : 1, "b" : "x"}|[1, "two", null]|[1, "two"]

error 22023
SELECT jsonb_build_object('a')

query
SELECT to_jsonb(42), to_jsonb('text'::text), to_jsonb(true), to_jsonb(1.5::float8), to_jsonb(date '2020-01-02'), to_jsonb(timestamp '2020-01-02 03:04:05.5'), to_jsonb(timestamptz '2020-01-02 03:04:05+00'), to_json('a"b'::text), to_jsonb('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), to_jsonb(ARRAY[1, 2])
----
42|"text"|true|1.5|"2020-01-02"|"2020-01-02T03:04:05.5"|"2020-01-02T03:04:05+00:00"|"a\"b"|"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"|[1, 2]

query
SELECT '{"a": 1}'::json::jsonb, '{"b": 1,  "a": 2}'::jsonb::json, '{"a": 1}'::jsonb::text, '{"a":1}'::text::jsonb, '5'::jsonb::int, '2.5'::jsonb::float8, 'true'::jsonb::bool
----
{"a": 1}|{"a": 2, "b": 1}|{"a": 1}|{"a": 1}|5|2.5|t

error 22023
SELECT '"x"'::jsonb::int

query
SELECT * FROM jsonb_array_elements('[1, "a", {"b": 2}]')
----
1
"a"
{"b": 2}

query
SELECT * FROM jsonb_array_elements_text('[1, "a", null]')
----
1
a
NULL

query
SELECT * FROM jsonb_object_keys('{"bb": 1, "a": 2, "c": 3}')
----
a
c
bb

query
SELECT * FROM json_array_elements('[1,  "a" , {"b":2}]')
----
1
"a"
{"b":2}

query
SELECT id FROM uj_items WHERE doc @> '{"a": "s"}' ORDER BY id
----
00000000-0000-0000-0000-000000000002

query
SELECT id, doc ->> 'n' FROM uj_items WHERE doc ? 'n'
----
ffffffff-0000-0000-0000-000000000000|1

query
SELECT doc FROM uj_items ORDER BY doc
----
[1, "two", 30]
{"n": 1}
{"a": "s", "b": [1, 2.50, {"x": null}], "aa": true}

query
SELECT * FROM jsonb_each('{"b": [1, 2], "a": "x", "c": null}')
----
a|"x"
b|[1, 2]
c|null

query
SELECT key, value FROM jsonb_each_text('{"b": [1, 2], "a": "x", "c": null}') ORDER BY key DESC
----
c|NULL
b|[1, 2]
a|x

query
SELECT k, v FROM json_each('{"b" : [1,  2], "a":1}') AS e(k, v)
----
b|[1,  2]
a|1

query
SELECT e.key, i.id FROM uj_items i, jsonb_each(i.doc) e WHERE jsonb_typeof(i.doc) = 'object' ORDER BY 1, 2
----
a|00000000-0000-0000-0000-000000000002
aa|00000000-0000-0000-0000-000000000002
b|00000000-0000-0000-0000-000000000002
n|ffffffff-0000-0000-0000-000000000000

error 22023
SELECT * FROM jsonb_each('[1]')

query
SELECT '[1, 2]'::jsonb < '[1, 2, 3]', '{"a": 1}'::jsonb < '{"b": 0}', '{"aa": 1}'::jsonb > '{"b": 1}', 'true'::jsonb > '1000', '"b"'::jsonb > '"a"', 'null'::jsonb < '"a"'
----
t|t|f|t|t|t

query
SELECT jsonb_set('{"a": {"b": 1}, "c": [1, 2]}', '{a,b}', '"x"'), jsonb_set('{"a": 1}', '{z}', '[true]'), jsonb_set('{"a": 1}', '{z}', '2', false), jsonb_set('[1, 2, 3]', '{-1}', '9'), jsonb_set('[1, 2]', '{5}', '3'), jsonb_set('[1, 2]', '{-5}', '0'), jsonb_set('{"a": {"b": 1}}', '{x,y}', '1'), jsonb_set('{"a": 1}', '{}', '2')
----
{"a": {"b": "x"}, "c": [1, 2]}|{"a": 1, "z": [true]}|{"a": 1}|[1, 2, 9]|[1, 2, 3]|[0, 1, 2]|{"a": {"b": 1}}|{"a": 1}

error 22P02
SELECT jsonb_set('[1, 2]', '{a}', '3')

error 22023
SELECT jsonb_set('5', '{a}', '3')

query
SELECT jsonb_strip_nulls('{"a": null, "b": {"c": null, "d": [null, 1]}}')
----
{"b": {"d": [null, 1]}}

query
SELECT count(*) FROM (SELECT DISTINCT j FROM (VALUES ('{"a": 1.0}'::jsonb), ('{"a": 1}'), ('{"a": 2}')) v(j)) s
----
2
