# Declarative partitioning as PostgreSQL 15: PARTITION BY RANGE, LIST and
# HASH (columns and expressions), PARTITION OF with bounds, the catalogs,
# routing of INSERT, partition constraints, row movement on UPDATE,
# ATTACH / DETACH, partitioned indexes, pruning and DROP.

statement ok
CREATE TABLE pt_range (a int, b text, c int) PARTITION BY RANGE (a, b)

statement ok
CREATE TABLE pt_range_1 PARTITION OF pt_range FOR VALUES FROM (MINVALUE, MINVALUE) TO (-1, 'm')

statement ok
CREATE TABLE pt_range_2 PARTITION OF pt_range FOR VALUES FROM (-1, 'm') TO (10, 'a''b')

error 42P17
CREATE TABLE pt_range_bad PARTITION OF pt_range FOR VALUES FROM (5, 'a') TO (20, 'a')

error 42P17
CREATE TABLE pt_range_empty PARTITION OF pt_range FOR VALUES FROM (20, 'a') TO (20, 'a')

statement ok
CREATE TABLE pt_list (a int, b text) PARTITION BY LIST (lower(b))

statement ok
CREATE TABLE pt_list_ab PARTITION OF pt_list FOR VALUES IN ('a', NULL, 'b')

statement ok
CREATE TABLE pt_list_c PARTITION OF pt_list FOR VALUES IN ('c') PARTITION BY RANGE (a)

statement ok
CREATE TABLE pt_list_c1 PARTITION OF pt_list_c FOR VALUES FROM (1) TO (100)

statement ok
CREATE TABLE pt_list_def PARTITION OF pt_list DEFAULT

error 42P17
CREATE TABLE pt_list_def2 PARTITION OF pt_list DEFAULT

error 42P17
CREATE TABLE pt_list_dup PARTITION OF pt_list FOR VALUES IN ('x', 'b')

statement ok
CREATE TABLE pt_hash (a int, b text) PARTITION BY HASH (a)

statement ok
CREATE TABLE pt_hash_0 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 4, REMAINDER 0)

statement ok
CREATE TABLE pt_hash_1 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 4, REMAINDER 1)

error 42P17
CREATE TABLE pt_hash_2 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 2, REMAINDER 0)

error 42P17
CREATE TABLE pt_hash_3 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 3, REMAINDER 1)

statement ok
CREATE TABLE pt_hash_4 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 4, REMAINDER 2)

statement ok
CREATE TABLE pt_hash_5 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 4, REMAINDER 3)

query
SELECT c.relname, c.relkind, c.relispartition, pg_get_expr(c.relpartbound, c.oid), pg_get_partkeydef(c.oid) FROM pg_class c WHERE c.relname LIKE 'pt\_%' AND c.relnamespace = current_schema()::regnamespace ORDER BY 1
----
pt_hash|p|f|NULL|HASH (a)
pt_hash_0|r|t|FOR VALUES WITH (modulus 4, remainder 0)|NULL
pt_hash_1|r|t|FOR VALUES WITH (modulus 4, remainder 1)|NULL
pt_hash_4|r|t|FOR VALUES WITH (modulus 4, remainder 2)|NULL
pt_hash_5|r|t|FOR VALUES WITH (modulus 4, remainder 3)|NULL
pt_list|p|f|NULL|LIST (lower(b))
pt_list_ab|r|t|FOR VALUES IN ('a', NULL, 'b')|NULL
pt_list_c|p|t|FOR VALUES IN ('c')|RANGE (a)
pt_list_c1|r|t|FOR VALUES FROM (1) TO (100)|NULL
pt_list_def|r|t|DEFAULT|NULL
pt_range|p|f|NULL|RANGE (a, b)
pt_range_1|r|t|FOR VALUES FROM (MINVALUE, MINVALUE) TO ('-1', 'm')|NULL
pt_range_2|r|t|FOR VALUES FROM ('-1', 'm') TO (10, 'a''b')|NULL

query
SELECT p.partstrat, p.partnatts, p.partattrs::text, p.partdefid::regclass FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid WHERE c.relname LIKE 'pt\_%' AND c.relnamespace = current_schema()::regnamespace ORDER BY c.relname
----
h|1|1|-
l|1|0|pt_list_def
r|1|1|-
r|2|1 2|-

# Rows go to the leaf their key selects; a key no partition takes fails.
statement ok
INSERT INTO pt_range VALUES (-5, 'z', 1), (-1, 'm', 2), (3, 'q', 3), (10, 'a', 4)

error 23514
INSERT INTO pt_range VALUES (10, 'b', 5)

error 23514
INSERT INTO pt_range VALUES (NULL, 'b', 5)

query
SELECT tableoid::regclass, * FROM pt_range ORDER BY a
----
pt_range_1|-5|z|1
pt_range_2|-1|m|2
pt_range_2|3|q|3
pt_range_2|10|a|4

statement ok
INSERT INTO pt_list VALUES (1, 'A'), (2, NULL), (3, 'C'), (4, 'd'), (500, 'x')

error 23514
INSERT INTO pt_list VALUES (500, 'c')

query
SELECT tableoid::regclass, * FROM pt_list ORDER BY a
----
pt_list_ab|1|A
pt_list_ab|2|NULL
pt_list_c1|3|C
pt_list_def|4|d
pt_list_def|500|x

statement ok
INSERT INTO pt_hash SELECT g, 'v' || g FROM generate_series(1, 12) g

query
SELECT tableoid::regclass, count(*), sum(a) FROM pt_hash GROUP BY 1 ORDER BY 1
----
pt_hash_0|2|13
pt_hash_1|5|36
pt_hash_4|1|2
pt_hash_5|4|27

# A row inserted into a partition directly must satisfy its constraint.
error 23514
INSERT INTO pt_range_1 VALUES (3, 'q', 9)

error 23514
INSERT INTO pt_list_def VALUES (7, 'a')

statement ok
INSERT INTO pt_list_def VALUES (7, 'e')

# UPDATE through the parent moves a row; of the partition itself it fails.
statement ok
UPDATE pt_list SET b = 'b' WHERE a = 4

error 23514
UPDATE pt_list_def SET b = 'a' WHERE a = 7

query
SELECT tableoid::regclass, * FROM pt_list ORDER BY a
----
pt_list_ab|1|A
pt_list_ab|2|NULL
pt_list_c1|3|C
pt_list_ab|4|b
pt_list_def|7|e
pt_list_def|500|x

statement ok
DELETE FROM pt_list WHERE a > 100

query
SELECT count(*) FROM pt_list
----
5

# A new partition may not take rows the default partition holds.
error 23514
CREATE TABLE pt_list_e PARTITION OF pt_list FOR VALUES IN ('e')

# ATTACH checks the table's rows against the bound; DETACH makes it a
# table of its own.
statement ok
CREATE TABLE pt_range_3 (a int, b text, c int)

statement ok
INSERT INTO pt_range_3 VALUES (50, 'x', 1)

error 23514
ALTER TABLE pt_range ATTACH PARTITION pt_range_3 FOR VALUES FROM (10, 'a''b') TO (50, 'a')

statement ok
ALTER TABLE pt_range ATTACH PARTITION pt_range_3 FOR VALUES FROM (10, 'a''b') TO (60, 'a')

query
SELECT tableoid::regclass, a FROM pt_range WHERE a >= 10 ORDER BY a
----
pt_range_2|10
pt_range_3|50

statement ok
ALTER TABLE pt_range DETACH PARTITION pt_range_1

query
SELECT relispartition, relpartbound IS NULL FROM pg_class WHERE relname = 'pt_range_1' AND relnamespace = current_schema()::regnamespace
----
f|t

query
SELECT count(*) FROM pt_range
----
4

statement ok
INSERT INTO pt_range_1 VALUES (100, 'anything', 0)

# A primary key must include the partition key; it is made on each
# partition too.
error 0A000
ALTER TABLE pt_hash ADD PRIMARY KEY (b)

statement ok
ALTER TABLE pt_hash ADD PRIMARY KEY (a)

error 23505
INSERT INTO pt_hash VALUES (3, 'again')

query
SELECT c.relname, c.relkind FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN ('pt_hash'::regclass, 'pt_hash_1'::regclass) ORDER BY 1
----
pt_hash_1_pkey|i
pt_hash_pkey|I

# Pruning: a query reads only the partitions its quals can match.
query
EXPLAIN (COSTS OFF) SELECT * FROM pt_range WHERE a = 3
----
Seq Scan on pt_range_2 pt_range
  Filter: (a = 3)

query
EXPLAIN (COSTS OFF) SELECT * FROM pt_list WHERE a > 3
----
Append
  ->  Seq Scan on pt_list_ab pt_list_1
        Filter: (a > 3)
  ->  Seq Scan on pt_list_c1 pt_list_2
        Filter: (a > 3)
  ->  Seq Scan on pt_list_def pt_list_3
        Filter: (a > 3)

query
SELECT a FROM pt_range WHERE a < 0 ORDER BY a
----
-1

# TRUNCATE and DROP of the parent reach the partitions.
statement ok
TRUNCATE pt_list

query
SELECT count(*) FROM pt_list_ab
----
0

statement ok
DROP TABLE pt_list

query
SELECT count(*) FROM pg_class WHERE relname LIKE 'pt\_list%' AND relnamespace = current_schema()::regnamespace
----
0

error 42P17
CREATE TABLE pt_not PARTITION OF pt_range_1 FOR VALUES IN (1)

# A boolean bound prints as true / false, and reads back.
statement ok
CREATE TABLE pt_bool (a bool) PARTITION BY LIST (a)

statement ok
CREATE TABLE pt_bool_t PARTITION OF pt_bool FOR VALUES IN ('true')

statement ok
CREATE TABLE pt_bool_f PARTITION OF pt_bool FOR VALUES IN (false)

statement ok
INSERT INTO pt_bool VALUES (true), (false)

query
SELECT pt_bool.tableoid::regclass, a, pg_get_expr(c.relpartbound, c.oid) FROM pt_bool JOIN pg_class c ON c.oid = pt_bool.tableoid ORDER BY 2
----
pt_bool_f|f|FOR VALUES IN (false)
pt_bool_t|t|FOR VALUES IN (true)

# The partition constraint as pg_get_partition_constraintdef prints it,
# and the partition tree functions.
statement ok
CREATE TABLE pt_tree (a int, b text) PARTITION BY LIST (a)

statement ok
CREATE TABLE pt_tree_1 PARTITION OF pt_tree FOR VALUES IN (1, NULL)

statement ok
CREATE TABLE pt_tree_2 PARTITION OF pt_tree FOR VALUES IN (2) PARTITION BY RANGE (b)

statement ok
CREATE TABLE pt_tree_21 PARTITION OF pt_tree_2 FOR VALUES FROM ('a') TO ('m')

query
SELECT c.relname, pg_get_partition_constraintdef(c.oid) FROM pg_class c WHERE c.relname LIKE 'pt\_tree%' AND c.relnamespace = current_schema()::regnamespace ORDER BY 1
----
pt_tree|NULL
pt_tree_1|((a IS NULL) OR (a = 1))
pt_tree_2|((a IS NOT NULL) AND (a = 2))
pt_tree_21|((a IS NOT NULL) AND (a = 2) AND (b IS NOT NULL) AND (b >= 'a'::text) AND (b < 'm'::text))

query
SELECT relid::regclass, parentrelid::regclass, isleaf, level FROM pg_partition_tree('pt_tree'::regclass) ORDER BY level, relid::regclass::text
----
pt_tree|NULL|f|0
pt_tree_1|pt_tree|t|1
pt_tree_2|pt_tree|f|1
pt_tree_21|pt_tree_2|t|2

query
SELECT relid::regclass FROM pg_partition_ancestors('pt_tree_21'::regclass)
----
pt_tree_21
pt_tree_2
pt_tree

# ALTER TABLE ADD COLUMN reaches every partition; a partition may not add
# one of its own.
statement ok
ALTER TABLE pt_tree ADD COLUMN c int

error 42809
ALTER TABLE pt_tree_1 ADD COLUMN d int

statement ok
INSERT INTO pt_tree VALUES (2, 'b', 7)

query
SELECT tableoid::regclass, * FROM pt_tree
----
pt_tree_21|2|b|7

error 42P16
ALTER TABLE pt_tree DROP COLUMN a
