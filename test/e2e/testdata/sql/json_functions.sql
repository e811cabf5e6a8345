# json and jsonb functions, subscripting, aggregates, record population and
# SQL/JSON path, with PostgreSQL 15's results.

statement ok
create table jdocs (id int primary key, j jsonb)

statement ok
insert into jdocs values (1, '{"a": 1}'), (2, '{"key": "value"}'), (3, null)

# jsonb subscripting: read and assign
query
select j['a'], j['key'], j['missing'] from jdocs order by id
----
1|NULL|NULL
NULL|"value"|NULL
NULL|NULL|NULL

statement ok
update jdocs set j['b']['c'] = '[1]' where id = 1

statement ok
update jdocs set j['arr'][2] = '"x"' where id = 2

statement ok
update jdocs set j[0] = '5' where id = 3

query
select id, j from jdocs order by id
----
1|{"a": 1, "b": {"c": [1]}}
2|{"arr": [null, null, "x"], "key": "value"}
3|[5]

error 22004
update jdocs set j[null] = '1' where id = 1

error 22023
update jdocs set j['a']['x'] = '1' where id = 1

error 42804
select ('[1,2,3]'::jsonb)[1:2]

error 42804
select ('{"a":1}'::jsonb)[1.5::numeric]

# path editors
query
select jsonb_insert('{"a": [0,1,2]}', '{a, 1}', '"new"'), jsonb_insert('{"a": [0,1,2]}', '{a, 1}', '"new"', true)
----
{"a": [0, "new", 1, 2]}|{"a": [0, 1, "new", 2]}

error 22023
select jsonb_insert('{"a": {"b": 1}}', '{a, b}', '2')

query
select jsonb_set_lax('{"a":1,"b":2}', '{b}', null), jsonb_set_lax('{"a":1,"b":2}', '{b}', null, null_value_treatment => 'delete_key')
----
{"a": 1, "b": null}|{"a": 1}

error 22004
select jsonb_set_lax('{"a":1}', '{a}', null, true, 'raise_exception')

error 22023
select jsonb_set_lax('{"a":1}', '{a}', null, true, 'nope')

query
select '{"a":1, "b":[1,2,3]}'::jsonb #- '{b,-1}', jsonb_delete_path('{"a":1}', '{a}'), jsonb_delete('{"a":1,"b":2,"c":3}', 'a', 'c')
----
{"a": 1, "b": [1, 2]}|{}|{"b": 2}

error 22023
select '1'::jsonb #- '{a}'

error 22P02
select '[1]'::jsonb #- '{x}'

query
select jsonb_contains('{"a":1,"b":2}', '{"a":1}'), jsonb_contained('{"a":1}', '{"a":1,"b":2}'), jsonb_exists('{"a":1}', 'a'), jsonb_exists_any('{"a":1}', '{b,a}'), jsonb_exists_all('{"a":1}', '{b,a}')
----
t|t|t|t|f

query
select json_object('{a,1,b,NULL}'), jsonb_object('{a,b}', '{1,2}'), json_strip_nulls('[1,{"a":null, "b" : [null, {"c":null}]}]')
----
{"a" : "1", "b" : null}|{"a": "1", "b": "2"}|[1,{"b":[null,{}]}]

error 2202E
select json_object('{a,1,b}')

error 22004
select jsonb_object('{NULL,b}', '{1,2}')

query
select json_extract_path('{"f2":{"f3":1},"f4":{"f5":99,"f6":"stringy"}}','f4','f6'), jsonb_extract_path_text('{"a":{"b":"x"}}', 'a', 'b')
----
"stringy"|x

# builders with VARIADIC and their key checks
query
select json_build_array(VARIADIC '{1,2,3}'::int[]), jsonb_build_object(VARIADIC '{a,1,b,2}'::text[]), json_build_array(VARIADIC NULL::text[]) is null
----
[1, 2, 3]|{"a": "1", "b": "2"}|t

error 22023
select json_build_object(VARIADIC '{a,b,c}'::text[])

error 22023
select jsonb_build_object(null, 1)

error 22023
select json_build_object('{1,2}'::int[], 3)

# aggregates
query
select json_agg(x), jsonb_agg(x order by x desc), json_object_agg(x, x * 2), jsonb_object_agg('k' || x, null) from generate_series(1, 3) x
----
[1, 2, 3]|[3, 2, 1]|{ "1" : 2, "2" : 4, "3" : 6 }|{"k1": null, "k2": null, "k3": null}

query
select json_agg(x) from generate_series(1, 3) x where false
----
NULL

error 22023
select json_object_agg(null::text, 1)

# records to json
query
select to_json(row(1, 'a')), to_jsonb(row(1, 'a')), row_to_json(row(1, 'foo')), array_to_json(array[1, 2])
----
{"f1":1,"f2":"a"}|{"f1": 1, "f2": "a"}|{"f1":1,"f2":"foo"}|[1,2]

# record population
statement ok
create type jpop as (a text, b int, c timestamp)

query
select * from json_populate_record(null::jpop, '{"a":"blurfl","x":43.2}')
----
blurfl|NULL|NULL

query
select * from jsonb_populate_record(row('x', 3, '2012-12-31 15:30:56')::jpop, '{"a": [100, 200, false]}')
----
[100, 200, false]|3|2012-12-31 15:30:56

query
select * from json_populate_recordset(null::jpop, '[{"a":1,"b":2},{"a":"x","c":"2000-01-01"}]')
----
1|2|NULL
x|NULL|2000-01-01 00:00:00

query
select * from jsonb_to_record('{"a":1,"b":{"x":1},"c":true}') as x(a int, b text, c boolean)
----
1|{"x": 1}|t

query
select * from json_to_recordset('[{"a":1,"b":"foo"},{"a":2,"c":true}]') as x(a int, b text, c boolean)
----
1|foo|NULL
2|NULL|t

query
select jsonb_populate_record(row(1, 2), '{"f1": 0}')
----
(0,2)

error 22P02
select * from json_populate_record(null::jpop, '{"b":"x"}')

error 22023
select * from json_populate_record(null::jpop, '[1]')

error 22023
select * from jsonb_populate_recordset(null::jpop, '{"a":1}')

error 42601
select * from json_to_record('{"a":1}')

error 0A000
select jsonb_populate_record(null::record, '{"x": 0}')

# set-returning json functions
query
select * from jsonb_array_elements('[1, "a"]') q
----
1
"a"

query
select jsonb_each('{"a":[1,2],"b":null}')
----
(a,"[1, 2]")
(b,null)

# SQL/JSON path
query
select '$.a[*] ? (@ > 1 && @ < 5)'::jsonpath, 'strict $.**{2 to last}.type()'::jsonpath, '$.a == 1'::jsonpath, '1.e3'::jsonpath
----
$."a"[*]?(@ > 1 && @ < 5)|strict $.**{2 to last}.type()|($."a" == 1)|1000

error 42601
select '1a'::jsonpath

error 42601
select '@.a'::jsonpath

error 42601
select 'last'::jsonpath

query
select jsonb_path_query('{"a":[1,2,3,4,5]}', '$.a[*] ? (@ > $min)', '{"min": 3}')
----
4
5

query
select jsonb_path_query_array('[1, "a", [2]]', '$[*].type()'), jsonb_path_query_first('{"a":[1,2]}', '$.a[last]'), jsonb_path_query_array('{"a":{"b":1}}', '$.a.keyvalue()')
----
["number", "string", "array"]|2|[{"id": 16, "key": "b", "value": 1}]

query
select jsonb_path_exists('{"a":1}', '$.a'), jsonb_path_exists('{"a":1}', 'strict $.b', silent => true), jsonb_path_match('{"a":1}', '$.a == 1')
----
t|NULL|t

error 2203A
select jsonb_path_query('{"a":1}', 'strict $.b')

error 22038
select jsonb_path_match('{"a":1}', '$.a')

error 42704
select jsonb_path_query('{"a":1}', '$.a ? (@ == $x)')

error 22012
select jsonb_path_query('1', '$ / 0')

query
select '{"a":1, "b":[1,2]}'::jsonb @? '$.b[*] ? (@ == 2)', '{"a":1}'::jsonb @@ '$.a > 5', '{"s":"abc"}'::jsonb @@ '$.s like_regex "^A" flag "i"', '{"s":"abc"}'::jsonb @@ '$.s starts with "ab"'
----
t|f|t|t

query
select jsonb_path_query('[1.5, -2, "x"]', 'lax $[*] ? (@.type() == "number").abs().floor()')
----
1
2

statement ok
drop table jdocs

statement ok
drop type jpop
