# Triggers: an updated_at trigger and an audit trigger with transition
# tables (the forms ORMs' documentation shows), BEFORE ROW return values,
# WHEN, UPDATE OF, statement triggers, firing order, transition tables,
# deferred constraint triggers, savepoints, pg_get_triggerdef.

statement ok
CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL, note text, updated_at timestamptz NOT NULL DEFAULT '2000-01-01 00:00:00+00')

statement ok
CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := '2024-06-01 12:00:00+00';
  RETURN NEW;
END $$

statement ok
CREATE TRIGGER accounts_updated_at BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION set_updated_at()

statement ok
CREATE TABLE audit_log (seq serial, op text, id int, old_balance int, new_balance int)

statement ok
CREATE FUNCTION audit_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_log (op, id, old_balance, new_balance)
    SELECT TG_OP, n.id, o.balance, n.balance FROM new_rows n JOIN old_rows o ON o.id = n.id ORDER BY n.id;
  RETURN NULL;
END $$

statement ok
CREATE TRIGGER accounts_audit AFTER UPDATE ON accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_update()

statement ok
CREATE FUNCTION audit_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_log (op, id, new_balance) SELECT TG_OP, id, balance FROM new_rows ORDER BY id;
  RETURN NULL;
END $$

statement ok
CREATE TRIGGER accounts_audit_ins AFTER INSERT ON accounts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_insert()

statement ok
INSERT INTO accounts (id, balance) VALUES (1, 100), (2, 200), (3, 300)

query
SELECT id, balance, updated_at FROM accounts ORDER BY id
----
1|100|2000-01-01 00:00:00+00
2|200|2000-01-01 00:00:00+00
3|300|2000-01-01 00:00:00+00

query
UPDATE accounts SET balance = balance + 10 WHERE id <= 2 RETURNING id, balance, updated_at
----
1|110|2024-06-01 12:00:00+00
2|210|2024-06-01 12:00:00+00

query
SELECT op, id, old_balance, new_balance FROM audit_log ORDER BY seq
----
INSERT|1|NULL|100
INSERT|2|NULL|200
INSERT|3|NULL|300
UPDATE|1|100|110
UPDATE|2|200|210

# An UPDATE that touches no row still fires the statement trigger, with
# empty transition tables.
statement ok
UPDATE accounts SET balance = 0 WHERE id = 99

query
SELECT count(*) FROM audit_log
----
5

# BEFORE ROW: returning NULL skips the row; a WHEN condition picks rows;
# UPDATE OF fires only when the column is in the SET list.
statement ok
CREATE FUNCTION refuse_negative() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.balance < 0 THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$

statement ok
CREATE TRIGGER b_refuse BEFORE INSERT OR UPDATE ON accounts FOR EACH ROW WHEN (NEW.balance < 0) EXECUTE FUNCTION refuse_negative()

statement ok
UPDATE accounts SET balance = balance - 150

query
SELECT id, balance FROM accounts ORDER BY id
----
1|110
2|60
3|150

query
INSERT INTO accounts (id, balance) VALUES (4, -1), (5, 5) RETURNING id
----
5

statement ok
CREATE FUNCTION note_it() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.note := TG_NAME || ':' || TG_ARGV[0] || ':' || TG_NARGS;
  RETURN NEW;
END $$

statement ok
CREATE TRIGGER c_note BEFORE UPDATE OF balance ON accounts FOR EACH ROW EXECUTE FUNCTION note_it('x', 'y')

statement ok
UPDATE accounts SET updated_at = updated_at WHERE id = 1

statement ok
UPDATE accounts SET balance = balance WHERE id = 2

query
SELECT id, note FROM accounts WHERE id IN (1, 2) ORDER BY id
----
1|NULL
2|c_note:x:2

# Triggers of one event fire in name order; each sees the NEW the one
# before returned.
statement ok
CREATE TABLE chain (v text)

statement ok
CREATE FUNCTION append_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.v := NEW.v || TG_NAME;
  RETURN NEW;
END $$

statement ok
CREATE TRIGGER zz BEFORE INSERT ON chain FOR EACH ROW EXECUTE FUNCTION append_name()

statement ok
CREATE TRIGGER aa BEFORE INSERT ON chain FOR EACH ROW EXECUTE FUNCTION append_name()

statement ok
CREATE TRIGGER mm BEFORE INSERT ON chain FOR EACH ROW EXECUTE FUNCTION append_name()

query
INSERT INTO chain VALUES ('-') RETURNING v
----
-aammzz

statement ok
ALTER TABLE chain DISABLE TRIGGER mm

statement ok
ALTER TRIGGER zz ON chain RENAME TO bb

query
INSERT INTO chain VALUES ('+') RETURNING v
----
+aabb

query
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'chain'::regclass ORDER BY tgname
----
aa|O
bb|O
mm|D

query
SELECT pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgname IN ('accounts_audit', 'c_note', 'b_refuse') ORDER BY tgname
----
CREATE TRIGGER accounts_audit AFTER UPDATE ON accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_update()
CREATE TRIGGER b_refuse BEFORE INSERT OR UPDATE ON accounts FOR EACH ROW WHEN (new.balance < 0) EXECUTE FUNCTION refuse_negative()
CREATE TRIGGER c_note BEFORE UPDATE OF balance ON accounts FOR EACH ROW EXECUTE FUNCTION note_it('x', 'y')

# DELETE triggers see OLD; an AFTER ROW trigger's queries see the
# statement's changes.
statement ok
CREATE TABLE del_log (id int, remaining bigint)

statement ok
CREATE FUNCTION log_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO del_log SELECT OLD.id, count(*) FROM accounts;
  RETURN OLD;
END $$

statement ok
CREATE TRIGGER accounts_del AFTER DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION log_delete()

statement ok
DELETE FROM accounts WHERE id IN (3, 5)

query
SELECT id, remaining FROM del_log ORDER BY id
----
3|2
5|2

# Errors.
error 42809
CREATE TRIGGER bad INSTEAD OF INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION note_it()

error 0A000
CREATE TRIGGER bad BEFORE TRUNCATE ON accounts FOR EACH ROW EXECUTE FUNCTION note_it()

error 42P17
CREATE TRIGGER bad BEFORE INSERT ON accounts REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION note_it()

error 42P17
CREATE TRIGGER bad BEFORE INSERT ON accounts FOR EACH ROW WHEN (OLD.id > 0) EXECUTE FUNCTION note_it()

error 42710
CREATE TRIGGER aa BEFORE INSERT ON chain FOR EACH ROW EXECUTE FUNCTION append_name()

error 42883
CREATE TRIGGER bad BEFORE INSERT ON chain FOR EACH ROW EXECUTE FUNCTION no_such_function()

error 42704
DROP TRIGGER no_such ON chain

statement ok
DROP TRIGGER IF EXISTS no_such ON chain

error 2BP01
DROP FUNCTION append_name()

# A deferred constraint trigger fires at COMMIT; a savepoint rolled back
# discards what it queued.
statement ok
CREATE TABLE dlog (what text)

statement ok
CREATE TABLE dtab (v int)

statement ok
CREATE FUNCTION dlog_it() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dlog VALUES ('deferred ' || NEW.v);
  RETURN NULL;
END $$

statement ok
CREATE CONSTRAINT TRIGGER dtab_check AFTER INSERT ON dtab DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION dlog_it()

statement ok
BEGIN

statement ok
INSERT INTO dtab VALUES (1)

query
SELECT count(*) FROM dlog
----
0

statement ok
SAVEPOINT s

statement ok
INSERT INTO dtab VALUES (2)

statement ok
ROLLBACK TO SAVEPOINT s

statement ok
INSERT INTO dtab VALUES (3)

statement ok
COMMIT

query
SELECT what FROM dlog ORDER BY what
----
deferred 1
deferred 3

statement ok
BEGIN

statement ok
INSERT INTO dtab VALUES (4)

statement ok
SET CONSTRAINTS dtab_check IMMEDIATE

query
SELECT what FROM dlog ORDER BY what
----
deferred 1
deferred 3
deferred 4

statement ok
COMMIT

query
SELECT pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgname = 'dtab_check'
----
CREATE CONSTRAINT TRIGGER dtab_check AFTER INSERT ON dtab DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION dlog_it()

# TRUNCATE triggers.
statement ok
CREATE FUNCTION note_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dlog VALUES (TG_WHEN || ' ' || TG_OP || ' ' || TG_TABLE_NAME);
  RETURN NULL;
END $$

statement ok
CREATE TRIGGER dtab_trunc AFTER TRUNCATE ON dtab FOR EACH STATEMENT EXECUTE FUNCTION note_truncate()

statement ok
TRUNCATE dtab

query
SELECT what FROM dlog WHERE what LIKE 'AFTER%'
----
AFTER TRUNCATE dtab
