-- Constraints as psql shows them: \d sections and the errors' messages,
-- details and hints. The expected output (constraints.out) is PostgreSQL
-- 15's psql against PostgreSQL 15.
\set VERBOSITY default
CREATE TABLE dc_parent (id int PRIMARY KEY, code text UNIQUE, a int, b int, UNIQUE (a, b));
CREATE TABLE dc_child (id int PRIMARY KEY, pid int REFERENCES dc_parent (id) ON DELETE CASCADE,
  qty int CHECK (qty > 0), note text, CONSTRAINT dc_child_both CHECK (qty < 100 AND id > 0));
CREATE TABLE dc_pair (x int, y int, FOREIGN KEY (x, y) REFERENCES dc_parent (a, b) ON UPDATE CASCADE ON DELETE SET NULL);
ALTER TABLE dc_pair ADD CONSTRAINT dc_pair_x_pos CHECK (x > 0) NOT VALID;
\d dc_parent
\d dc_child
\d dc_pair
INSERT INTO dc_parent VALUES (1, 'one', 10, 11), (2, 'two', 20, 21);
INSERT INTO dc_child VALUES (1, 1, 5, 'a'), (2, 2, 6, 'b');
INSERT INTO dc_child VALUES (3, 9, 5, 'c');
INSERT INTO dc_child VALUES (3, 1, -5, 'c');
INSERT INTO dc_child (id, pid, qty) VALUES (3, 1, 500);
UPDATE dc_child SET pid = 7 WHERE id = 1;
INSERT INTO dc_pair VALUES (10, 21);
DELETE FROM dc_parent WHERE id = 2 AND false;
UPDATE dc_parent SET id = 3 WHERE id = 2;
ALTER TABLE dc_child ADD CONSTRAINT dc_note CHECK (note = 'x');
ALTER TABLE dc_child ADD CONSTRAINT dc_note CHECK (note IS NOT NULL);
ALTER TABLE dc_child ADD CONSTRAINT dc_note CHECK (true);
ALTER TABLE dc_child DROP CONSTRAINT nope;
ALTER TABLE dc_parent DROP CONSTRAINT dc_parent_pkey;
DROP INDEX dc_parent_code_key;
TRUNCATE dc_parent;
DROP TABLE dc_parent;
CREATE TABLE dc_bad (v int REFERENCES dc_parent (b));
CREATE TABLE dc_bad (v text REFERENCES dc_parent (id));
CREATE TABLE dc_bad (v int, w int, FOREIGN KEY (v, w) REFERENCES dc_parent (id));
INSERT INTO dc_child VALUES (1, 1, 5, 'a') ON CONFLICT (id) DO UPDATE SET qty = excluded.qty * 100;
INSERT INTO dc_child VALUES (1, 1, 5, 'a'), (1, 1, 6, 'b') ON CONFLICT (id) DO UPDATE SET qty = excluded.qty;
INSERT INTO dc_child VALUES (1, 1, 5, 'a') ON CONFLICT (qty) DO NOTHING;
INSERT INTO dc_child VALUES (1, 1, 5, 'a') ON CONFLICT DO UPDATE SET qty = 1;
INSERT INTO dc_child VALUES (1, 1, 7, 'z') ON CONFLICT (id) DO UPDATE SET qty = dc_child.qty + excluded.qty RETURNING *;
DROP TABLE dc_parent CASCADE;
\d dc_child
DROP TABLE dc_child, dc_pair;
-- ALTER TABLE and constraints: RENAME COLUMN rewrites CHECK expressions,
-- RENAME CONSTRAINT / ALTER INDEX RENAME, DROP COLUMN drops what uses it.
create table dr_p (id int primary key, code text unique, n int check (n > 0), m int, check (m > n));
create table dr_c (pid int references dr_p, code text references dr_p(code));
alter table dr_p rename column n to nn;
\d dr_p
insert into dr_p values (1, 'a', 0, 5);
insert into dr_p values (1, 'a', 2, 5);
alter table dr_p rename constraint dr_p_n_check to dr_p_pos;
alter table dr_p rename constraint dr_p_pkey to dr_p_pk;
alter table dr_p rename constraint nope to x;
alter table dr_p rename constraint dr_p_pos to dr_p_check;
alter index dr_p_code_key rename to dr_p_code_uq;
\d dr_p
alter table dr_p drop column code;
alter table dr_p drop column code cascade;
alter table dr_p drop column nn;
\d dr_p
\d dr_c
drop table dr_c, dr_p;
-- ADD COLUMN with constraints: existing rows are checked with the default.
create table acp (id int primary key);
insert into acp values (1);
create table acc (id int);
insert into acc values (1), (2);
alter table acc add column u int unique;
alter table acc add column q int default 5 check (q > 0);
alter table acc add column r int default 0 check (r > 0);
alter table acc add column pid int default 7 references acp;
alter table acc add column pid int default 1 references acp;
\d acc
insert into acc values (3, 3, 0);
insert into acc (id, u) values (3, 1);
insert into acc (id, u) values (4, 9) on conflict on constraint acc_u_key do nothing;
drop table acc, acp;
