# tidal only
# Query syntax tidal does not implement must fail with 0A000 rather than
# be ignored (PostgreSQL runs all of these).

statement ok
CREATE TABLE agu (g int, x int, s text)

statement ok
INSERT INTO agu VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 3, 'c')

error 0A000
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM agu

error 0A000
SELECT count(*) WITHIN GROUP (ORDER BY x) FROM agu

error 0A000
SELECT * FROM agu TABLESAMPLE SYSTEM (50)

error 0A000
SELECT DISTINCT ON (g) g, x FROM agu

error 0A000
SELECT x FROM agu ORDER BY x FETCH FIRST 1 ROWS WITH TIES

error 0A000
SELECT x FROM agu ORDER BY x USING ~<~

error 0A000
SELECT x FROM agu UNION SELECT x FROM agu ORDER BY 1 FETCH FIRST 1 ROWS WITH TIES

error 0A000
SELECT x FROM agu UNION SELECT x FROM agu ORDER BY 1 USING ~<~

# tidal compares strings bytewise: only C-equivalent collations are honoured
query
SELECT s FROM agu ORDER BY s COLLATE "C" DESC
----
c
b
a

error 0A000
SELECT s FROM agu ORDER BY s COLLATE "en_US"

error 0A000
SELECT 'a' < 'B' COLLATE "und-x-icu"

error 0A000
CREATE TABLE agu_coll (s text COLLATE "de_DE")

# an aggregate over only outer columns belongs to the outer query
error 0A000
SELECT (SELECT sum(agu.x) FROM agu AS inner1) FROM agu

error 0A000
SELECT (SELECT count(*) FILTER (WHERE agu.x > 1) FROM agu AS inner1) FROM agu

query
SELECT x, (SELECT sum(i.x + agu.x) FROM agu AS i) FROM agu ORDER BY x
----
1|9
2|12
3|15
