create table doc (id int primary key, body text compression lz4, raw bytea, meta jsonb, n numeric, code varchar(10)) with (toast_tuple_target = 256);
alter table doc alter column raw set storage external;
alter table doc alter column meta set storage main;
alter table doc alter column n set compression pglz;
alter table doc alter column code set storage plain;
