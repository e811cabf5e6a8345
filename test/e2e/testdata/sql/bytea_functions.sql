# Binary-string functions, overlay, encode/decode and unistr with PostgreSQL 15's results.

error 42601
select unistr('wrong: \db99')

error 22023
select unistr('wrong: \+2FFFFF')

error 42601
select unistr('wrong: \xyz')

query
select unistr('\0064at\+0000610')
----
data0

query
select unistr('d\u0061t\U00000061 \d83d\de00')
----
data 😀

error 2202E
select get_byte('abc'::bytea, 5)

query
select get_byte('abc'::bytea, 1)
----
98

error 22023
select set_bit('abc'::bytea, 1, 2)

query
select set_bit('abc'::bytea, 1, 1), set_byte('abc'::bytea, 1, 65), get_bit('abc'::bytea, 8), bit_count('\x1234567890'::bytea)
----
\x636263|\x614163|0|15

query
select encode('\x00ff5c41'::bytea,'escape'), encode('\x00ff5c41'::bytea,'hex'), encode('\x00ff5c41'::bytea,'base64')
----
\000\377\\A|00ff5c41|AP9cQQ==

error 22023
select decode('abc','hex')

error 22023
select decode('zz','hex')

error 22023
select decode('ab','foo')

error 22023
select decode('a=b','base64')

error 22023
select decode('a','base64')

query
select decode('AP9cQQ==','base64'), decode('00 ff','hex'), decode('\000\377\\A', 'escape')
----
\x00ff5c41|\x00ff|\x00ff5c41

query
select encode(repeat('x',60)::bytea,'base64')
----
eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4
eHh4

error 22011
select overlay('abc' placing 'x' from 0)

query
SELECT OVERLAY('abcdef' PLACING '45' FROM 4), OVERLAY('yabadoo' PLACING 'daba' FROM 5), OVERLAY('yabadoo' PLACING 'daba' FROM 5 FOR 0), OVERLAY('babosa' PLACING 'ubb' FROM 2 FOR 4)
----
abc45f|yabadaba|yabadabadoo|bubba

query
SELECT OVERLAY('\x1234567890'::bytea PLACING '\x0203'::bytea FROM 2 FOR 3)
----
\x12020390

query
select substr('\x1234567890'::bytea, 3), substr('\x1234567890'::bytea, -1, 3), substring('\x1234567890'::bytea from 2 for 2)
----
\x567890|\x12|\x3456

error 22011
select substr('\x1234567890'::bytea, 3, -1)

query
select btrim('\x1234567890'::bytea, '\x9012'::bytea), ltrim('\x1234567890'::bytea, '\x1234'::bytea), rtrim('\x1234567890'::bytea, '\x9012'::bytea)
----
\x345678|\x567890|\x12345678

query
SELECT sha224(''), sha256('The quick brown fox jumps over the lazy dog.'), sha384(''), sha512('')
----
\xd14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f|\xef537f25c895bfa782526529a9b63d97aa631564d5d789c2b765448c8635fb6c|\x38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b|\xcf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e
