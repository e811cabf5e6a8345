# format(), quote_literal, quote_nullable and quote_ident with PostgreSQL 15's results.

query
select format('%s %I %L %L', 'a', 'Select', E'O\'R\\x', NULL)
----
a "Select" E'O''R\\x' NULL

error 22023
select format('%2$s %1$s %-5s| %5s|', 'x', 'y')

query
select format('%*s|', 5, 'a')
----
    a|

error 22023
select format('%z')

error 22023
select format('%s %s', 1)

error 22023
select format('%0$s', 1)

error 22023
select format('%')

error 22004
select format('%I', NULL)

error 22023
select format('%1$')

query
select quote_literal(E'a\\b'), quote_nullable(NULL), quote_literal(42), quote_ident('select'), quote_ident('Ab'), quote_ident('name'), quote_ident('user')
----
E'a\\b'|NULL|'42'|"select"|"Ab"|name|"user"

error 22023
select format('%*1$s|', 3)

query
select format('%-*s|', 4, 'x'), format('%*s|', -4, 'x')
----
x   ||x   |

query
select format(NULL), format('x%sy', NULL::int)
----
NULL|xy

query
select format('Hello %s, %1$s', 'World'), format('%s, %s', 10, now()::date - now()::date), format('%1$s %3$s', 1, 2, 3)
----
Hello World, World|10, 0|1 3

query
select format('INSERT INTO %I VALUES(%L,%L)', 'mytab', 10, 'Hello')
----
INSERT INTO mytab VALUES('10','Hello')

query
select format('%-10s|%10s|', 'left', 'right'), format('%3$s %2$s %1$s', 'a', 'b', 'c')
----
left      |     right||c b a
