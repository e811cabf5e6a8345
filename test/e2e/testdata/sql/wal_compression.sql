# wal_compression (PostgreSQL 15): its methods, the legacy spellings that
# mean pglz or off, and transactional SET. Expected output is PostgreSQL
# 15's (checked with TIDAL_SQLTEST_PG). The superuser context and what the
# setting does to WAL are tested in wal_compression_test.go.

statement ok
SET wal_compression = zstd

query
SHOW wal_compression
----
zstd

statement ok
SET wal_compression = on

query
SHOW wal_compression
----
pglz

statement ok
SET wal_compression = 'NO'

query
SHOW wal_compression
----
off

statement ok
SET wal_compression = 1

query
SELECT current_setting('wal_compression')
----
pglz

statement ok
SET wal_compression = 'ZSTD'

query
SHOW wal_compression
----
zstd

statement ok
SET wal_compression = lz4

error 22023
SET wal_compression = gzip

query
SHOW wal_compression
----
lz4

statement ok
BEGIN

statement ok
SET LOCAL wal_compression = pglz

query
SHOW wal_compression
----
pglz

statement ok
ROLLBACK

query
SHOW wal_compression
----
lz4

statement ok
RESET wal_compression
