# psycopg 3 (Debian's python3-psycopg) against a server: server-side
# cursors (DECLARE with parameters, FETCH FORWARD itersize loops, scroll),
# error diagnostics and notifications. TestPsycopg runs it against tidal;
# its output against PostgreSQL 15 is the test's expected output.
import sys, psycopg, threading, time
dsn = sys.argv[1]
with psycopg.connect(dsn, autocommit=False) as conn:
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS psy_t")
        cur.execute("CREATE TABLE psy_t (a int PRIMARY KEY, b text)")
        cur.execute("INSERT INTO psy_t SELECT i, 'r' || i FROM generate_series(1, 1234) i")
    conn.commit()
    total = 0
    with conn.cursor(name="srv", withhold=False) as cur:
        cur.itersize = 100
        cur.execute("SELECT a, b FROM psy_t WHERE a > %s ORDER BY a", (4,))
        for row in cur:
            total += row[0]
    print("server cursor sum", total)
    with conn.cursor(name="srv2", scrollable=True) as cur:
        cur.execute("SELECT a FROM psy_t ORDER BY a")
        print("fetchmany", [r[0] for r in cur.fetchmany(3)])
        cur.scroll(-2)
        print("after scroll", cur.fetchone())
        cur.scroll(10, mode="absolute")
        print("absolute", cur.fetchone())
    conn.commit()
    try:
        with conn.cursor() as cur:
            cur.execute("INSERT INTO psy_t VALUES (1, 'dup')")
    except psycopg.errors.UniqueViolation as e:
        d = e.diag
        print("diag", d.sqlstate, d.schema_name, d.table_name, d.constraint_name, d.column_name)
    conn.rollback()
with psycopg.connect(dsn, autocommit=True) as l, psycopg.connect(dsn, autocommit=True) as s:
    l.execute("LISTEN psy")
    s.execute("SELECT pg_notify('psy', 'hello')")
    for n in l.notifies():
        print("notify", n.channel, n.payload, n.pid == s.info.backend_pid)
        break
