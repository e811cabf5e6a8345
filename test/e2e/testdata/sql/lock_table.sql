# LOCK TABLE: every mode, NOWAIT, ONLY and inheritance children, and
# PostgreSQL 15's errors.

statement ok
CREATE TABLE lk_t (a int)

statement ok
CREATE TABLE lk_c () INHERITS (lk_t)

statement ok
CREATE SEQUENCE lk_s

error 25P01
LOCK lk_t

statement ok
BEGIN

statement ok
LOCK TABLE lk_t IN ACCESS SHARE MODE

statement ok
LOCK TABLE lk_t IN ROW SHARE MODE

statement ok
LOCK TABLE lk_t IN ROW EXCLUSIVE MODE

statement ok
LOCK TABLE lk_t IN SHARE UPDATE EXCLUSIVE MODE

statement ok
LOCK TABLE lk_t IN SHARE MODE

statement ok
LOCK TABLE lk_t IN SHARE ROW EXCLUSIVE MODE

statement ok
LOCK TABLE lk_t IN EXCLUSIVE MODE

statement ok
LOCK TABLE lk_t IN ACCESS EXCLUSIVE MODE NOWAIT

query
SELECT relation::regclass::text AS rel, mode FROM pg_locks WHERE relation IN ('lk_t'::regclass, 'lk_c'::regclass) ORDER BY 1, 2
----
lk_c|AccessExclusiveLock
lk_c|AccessShareLock
lk_c|ExclusiveLock
lk_c|RowExclusiveLock
lk_c|RowShareLock
lk_c|ShareLock
lk_c|ShareRowExclusiveLock
lk_c|ShareUpdateExclusiveLock
lk_t|AccessExclusiveLock
lk_t|AccessShareLock
lk_t|ExclusiveLock
lk_t|RowExclusiveLock
lk_t|RowShareLock
lk_t|ShareLock
lk_t|ShareRowExclusiveLock
lk_t|ShareUpdateExclusiveLock

statement ok
ROLLBACK

statement ok
BEGIN

statement ok
LOCK ONLY lk_t IN SHARE MODE

query
SELECT relation::regclass::text AS rel, mode FROM pg_locks WHERE relation IN ('lk_t'::regclass, 'lk_c'::regclass) ORDER BY 1, 2
----
lk_t|ShareLock

error 42809
LOCK lk_s

statement ok
ROLLBACK

statement ok
BEGIN

error 42P01
LOCK nosuch

statement ok
ROLLBACK

statement ok
DROP TABLE lk_c, lk_t

statement ok
DROP SEQUENCE lk_s
