create table pt (id int primary key, name varchar(20) not null, v float8 default 5, ts timestamp, u int unique);
create index pt_name on pt(name);
create unique index pt_v on pt(v, id);
