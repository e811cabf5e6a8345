# POSIX regular expressions (translated to Go's RE2, internal/sql/types/regex_translate.go),
# SIMILAR TO and LIKE ... ESCAPE, with PostgreSQL 15's results.

query
SELECT 'abcdefg' SIMILAR TO '_bcd%' AS true
----
t

query
SELECT 'abcd%' SIMILAR TO '_bcd#%' ESCAPE '#' AS true
----
t

query
SELECT 'abcdefg' SIMILAR TO '_bcd%' ESCAPE NULL AS null
----
NULL

error 22025
SELECT 'abcdefg' SIMILAR TO '_bcd#%' ESCAPE '##' AS error

query
SELECT SUBSTRING('abcdefg' SIMILAR 'a#"(b_d)#"%' ESCAPE '#') AS "bcd"
----
bcd

query
SELECT SUBSTRING('abcdefg' SIMILAR 'a*#"%#"g*' ESCAPE '#') AS "abcdefg"
----
abcdefg

query
SELECT SUBSTRING('abcdefg' SIMILAR 'a|b#"%#"g' ESCAPE '#') AS "bcdef"
----
bcdef

query
SELECT SUBSTRING('abcdefg' SIMILAR 'a#"%#"x|g' ESCAPE '#') AS "bcdef"
----
bcdef

query
SELECT SUBSTRING('abcdefg' SIMILAR 'a#"%|ab#"g' ESCAPE '#') AS "bcdef"
----
bcdef

query
SELECT SUBSTRING('abcdefg' SIMILAR 'a#"%g' ESCAPE '#') AS "bcdefg"
----
bcdefg

query
SELECT SUBSTRING('abcdefg' FROM 'b(.*)f') AS "cde"
----
cde

query
SELECT SUBSTRING('foo' FROM 'foo(bar)?') IS NULL AS t
----
t

query
SELECT regexp_replace('1112223333', E'(\\d{3})(\\d{3})(\\d{4})', E'(\\1) \\2-\\3')
----
(111) 222-3333

query
SELECT regexp_replace('AAA   BBB   CCC   ', E'\\s+', ' ', 'g')
----
AAA BBB CCC 

query
SELECT regexp_replace('AAA', '^|$', 'Z', 'g')
----
ZAAAZ

query
SELECT regexp_replace('AAA aaa', 'A+', 'Z', 'gi')
----
Z Z

error 22023
SELECT regexp_replace('AAA aaa', 'A+', 'Z', 'z')

query
SELECT regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 1)
----
X PostgreSQL function

query
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 2)
----
A PostgrXSQL function

query
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 0, 'i')
----
X PXstgrXSQL fXnctXXn

query
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 3, 'i')
----
A PostgrXSQL function

query
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 7, 0, 'i')
----
A PostgrXSQL fXnctXXn

error 22023
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 0, 0, 'i')

query
SELECT regexp_count('123123123123123', '(12)3')
----
5

query
SELECT regexp_count('123123123123', '123', 3)
----
3

query
SELECT regexp_count('ABCABCABCABC', 'Abc', 1, 'i')
----
4

query
SELECT regexp_instr('abcdefghi', 'd.f')
----
4

query
SELECT regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 4)
----
7

query
SELECT regexp_instr('abcabcabc', 'a.c', 1, 2, 1)
----
7

query
SELECT regexp_substr('1234567890 1234567890', '(123)(4(56)(78))', 1, 1, 'i', 2)
----
45678

query
SELECT regexp_substr('abcabcabc', 'a.c', 2)
----
abc

query
SELECT regexp_matches('foobarbequebaz', $re$(bar)(beque)$re$)
----
{bar,beque}

query
SELECT regexp_matches('foobarbequebazilbarfbonk', $re$(b[^b]+)(b[^b]+)$re$, 'g')
----
{bar,beque}
{bazil,barf}

query
SELECT regexp_matches('foobarbequebaz', $re$barbeque$re$)
----
{barbeque}

query
SELECT regexp_matches('foo' || chr(10) || 'bar' || chr(10) || 'bequq' || chr(10) || 'baz', '^', 'mg')
----
{""}
{""}
{""}
{""}

query
SELECT regexp_match('abc', '')
----
{""}

error 22023
SELECT regexp_match('abc', 'bc', 'g')

query
SELECT foo, length(foo) FROM regexp_split_to_table('the quick brown fox jumps over the lazy dog', $re$\s*$re$) AS foo
----
t|1
h|1
e|1
q|1
u|1
i|1
c|1
k|1
b|1
r|1
o|1
w|1
n|1
f|1
o|1
x|1
j|1
u|1
m|1
p|1
s|1
o|1
v|1
e|1
r|1
t|1
h|1
e|1
l|1
a|1
z|1
y|1
d|1
o|1
g|1

query
SELECT regexp_split_to_array('the quick brown fox jumps over the lazy dog', '')
----
{t,h,e," ",q,u,i,c,k," ",b,r,o,w,n," ",f,o,x," ",j,u,m,p,s," ",o,v,e,r," ",t,h,e," ",l,a,z,y," ",d,o,g}

query
SELECT regexp_split_to_array('123456','1')
----
{"",23456}

query
SELECT regexp_split_to_array('123456','6')
----
{12345,""}

query
SELECT regexp_split_to_array('123456','.')
----
{"","","","","","",""}

query
SELECT regexp_split_to_array('', '')
----
{""}

query
SELECT 'foo' LIKE 'f#%' ESCAPE '#', 'f%' LIKE 'f#%' ESCAPE '#', 'a\b' like 'a\b' escape ''
----
f|t|t

query
SELECT E'a\nb' ~ 'a.b', E'a\nb' ~ '(?n)a.b'
----
t|f

query
SELECT regexp_like('Steven', '^Ste(v|ph)en$')
----
t

query
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 1, 'g')
----
A PXstgreSQL function

query
SELECT regexp_matches('1' || chr(10) || '2' || chr(10) || '3' || chr(10) || '4' || chr(10), '^.?', 'mg')
----
{1}
{2}
{3}
{4}
{""}

error 2201B
SELECT regexp_matches('foobarbequebaz', $re$(barbeque$re$)

error 2201B
SELECT regexp_matches('foobarbequebaz', $re$(bar)(beque){2,1}$re$)

query
SELECT 'abc'::bytea LIKE '_b_'::bytea AS "true"
----
t

query
SELECT 'abc'::bytea NOT LIKE '_b_'::bytea AS "false"
----
f

query
SELECT 'a_c'::bytea LIKE 'a$__'::bytea ESCAPE '$'::bytea AS "true"
----
t

query
SELECT 'a_c'::bytea NOT LIKE 'a$__'::bytea ESCAPE '$'::bytea AS "false"
----
f

error 42883
SELECT 'abc'::bytea ILIKE '_b_'::bytea

query
select '[' || x || ']' from regexp_split_to_table('the quick brown', '\y') x
----
[the]
[ ]
[quick]
[ ]
[brown]

query
select regexp_count('ab ab ab', '\yab', 2)
----
2

query
select regexp_replace('ab ab ab', '\yab', 'X', 2)
----
ab X ab
