#!/usr/bin/env python3
"""Regenerates datetime_pg15.tsv from a PostgreSQL 15 (PGPORT, default 5432, user postgres).

Each case is (DateStyle, IntervalStyle, type, input); the output is what
'<input>'::<type>::text gives in that session, or the error's SQLSTATE."""
import os, subprocess

# (DateStyle, IntervalStyle, type, input)
C=[]
def add(ds, typ, inputs, ivs="postgres"):
    for i in inputs: C.append((ds, ivs, typ, i))
dates=["January 8, 1999","1999-01-08","1/8/1999","1/18/1999","18/1/1999","01/02/03","19990108","990108","1999.008","J2451187","January 8, 99 BC","99-Jan-08","08-Jan-99","Jan-08-99","99 08 Jan","08 01 99","99 01 08","4714-11-24 BC","4714-11-23 BC","5874897-12-31","5874898-01-01","epoch","infinity","-infinity","foo","2000-02-30","1999-13-01","Tue Jan 05 1999","2000-01-01 12:00 PST","2000-01-01 Europe/Paris","y2001m02d04","Mon Tue 2000-01-01","0044-03-15 BC"]
for ds in ["ISO, MDY","ISO, YMD","ISO, DMY","Postgres, MDY","Postgres, DMY","SQL, MDY","SQL, DMY","German, DMY"]:
    add(ds,"date",dates)
ts=["Mon Feb 10 17:32:01.5 1997 PST","1997-02-10 17:32:01-0800","19970210 173201 -0800","2001-09-22T18:19:20","2000-03-15 08:14:01 GMT+8","Feb 10 5:32PM 1997","1997.041 17:32:01 UTC","19970210 173201 America/New_York","Feb 29 17:32:01 1997","Feb 16 17:32:01 5097 BC","J2451187 04:05:06","J2451187.5","1999-01-08 t040506","1999-01-08 04:05:06 +02 dst","1999-01-08 24:00:01","1999-01-08 23:59:60","1999-01-08 13:00 pm","1999-01-08 04:05:06 +16","1999-01-08 04:05:06 Mars/Olympus","294277-01-01","12345-03-15 12:00"]
for ds in ["ISO, MDY","Postgres, MDY","Postgres, DMY","SQL, DMY","German, DMY"]:
    add(ds,"timestamp",ts)
    add(ds,"timestamptz",ts+["1997-07-10 17:32:01 MET DST","2005-04-03 02:30:00","2005-10-30 01:30:00","2000-07-01 12:00 Asia/Kolkata"])
times=["04:05:06","040506","04:05 PM","04:05:06 PST","2003-04-12 04:05:06 America/New_York","04:05:06 America/New_York","allballs","24:00:00","24:00:01","23:59:59.9999999","1.5","12:34.5","t040506","Jan 1 04:05","11:59:59.99 PM"]
add("ISO, MDY","time",times)
ivs=["-1 +02:03","1-2 3 4:05:06","-1-2","P1Y2M3DT4H5M6S","P0001-02-03T04:05:06","P00010203T040506","PT1.5S","P1.5Y","P-1Y-2M","PT","@ 1 year 2 mons ago","1.5 weeks",".5 hours","-.5 hours","2147483648 days","1 week 1 week","-1 2:03:04","1 day -2 hours","-1.5 sec","0","1 year 2 mons -3 days 4.25 sec","1:2:3.","9223372036854775808 us","3000000 months"]
for st in ["postgres","postgres_verbose","sql_standard","iso_8601"]:
    add("ISO, MDY","interval",ivs,st)
add("ISO, MDY","interval day to hour",["1 2"])
add("ISO, MDY","interval minute to second",["12:34"])

PORT = os.environ.get("PGPORT", "5432")
out = ["# Date/time and interval input and output as PostgreSQL 15 gives them: each line is",
       "# DateStyle, IntervalStyle, type, input, output of '<input>'::<type>::text, SQLSTATE",
       "# (tab-separated; TimeZone America/New_York). Produced by gen_datetime_pg15.py."]
for ds, ivs, typ, inp in C:
    q = inp.replace("'", "''")
    script = (f"\\set VERBOSITY verbose\nSET client_min_messages=warning; SET timezone='America/New_York'; "
              f"SET datestyle='{ds}'; SET intervalstyle='{ivs}';\nSELECT '{q}'::{typ}::text;\n")
    p = subprocess.run(["psql", "-X", "-At", "-q", "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "postgres"],
                       input=script, capture_output=True, text=True)
    text, code = p.stdout.rstrip("\n"), ""
    if "ERROR:" in p.stderr:
        text, code = "", p.stderr.split("ERROR:")[1].strip()[:5]
    out.append("\t".join([ds, ivs, typ, inp, text, code]))
with open(os.path.join(os.path.dirname(__file__), "datetime_pg15.tsv"), "w") as f:
    f.write("\n".join(out) + "\n")
