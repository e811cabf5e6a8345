"""psycopg 3's conn.rollback() after a unique violation inside a transaction,
then the same connection is used again. Run by
TestRollbackAfterUniqueViolation (client_rollback_test.go) with Debian's
python3-psycopg:

    /usr/bin/python3 rollback.py DSN TABLE

The table holds the row id = 1. Output, one line per step, compared by the
test: violation 23505 / state IDLE / count 2 ids 1,3
"""
import sys

import psycopg

dsn, table = sys.argv[1], sys.argv[2]
with psycopg.connect(dsn) as conn:  # not autocommit: the first execute begins a block
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {table} VALUES (2)")
    try:
        cur.execute(f"INSERT INTO {table} VALUES (1)")
        print("no violation")
    except psycopg.errors.UniqueViolation as e:
        print("violation", e.sqlstate)
    conn.rollback()
    print("state", conn.info.transaction_status.name)
    cur.execute(f"INSERT INTO {table} VALUES (3)")
    conn.commit()
    cur.execute(f"SELECT id FROM {table} ORDER BY id")
    ids = [r[0] for r in cur.fetchall()]
    conn.commit()
    print("count", len(ids), "ids", ",".join(str(i) for i in ids))
