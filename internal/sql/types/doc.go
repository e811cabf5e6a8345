// Package types implements SQL types and values: names, text and binary
// I/O, comparison, casts, operators and builtin functions. The value
// representation (Datum), type ids (Type, the OID constants) and
// PostgreSQL's on-disk attribute layout are package datum's, the layer
// below the access methods; this package re-exports them under their old
// names (type aliases, constants, small wrappers) and gives them their SQL
// behaviour, including Type's names (String, TypName, BaseName) and the
// stored text form of arrays, which it installs in datum.
//
// # Types
//
// A [Type] is a pg_type OID plus a typmod (-1 when absent; for varchar(n)
// and char(n) the typmod is n+4 as in PostgreSQL; for timestamp(p) it is p).
// [LookupTypeName] resolves the names pg_query puts in a TypeName node,
// [TypeByOID] resolves catalog OIDs. Type.String gives format_type() output
// and Type.Layout gives pg_type's typlen/typalign/typbyval/typstorage.
//
// Convenience Type values: Int2, Int4, Int8, Float4, Float8, Numeric, Text,
// Name, Oid, Regtype, Bytea, Char ("char"), Timestamp, Timestamptz, Date,
// Time, Interval, UUID, JSON, JSONB, Unknown, Boolean (not
// Bool: that name is the Datum constructor), Int2VectorType, VarcharAny,
// BpcharAny; Varchar(n) and Bpchar(n) build length-limited types.
//
// # Datums
//
// A [Datum] is a small value struct (no allocation for numbers, booleans and
// timestamps). The zero Datum is SQL NULL. Every integer type (int2, int4,
// int8, oid, "char") is held as an int64, float4 and float8 as a float64
// (a float4 value is always exactly representable as float32), bool as a
// bool, timestamp/timestamptz as int64 microseconds since 2000-01-01
// 00:00:00, and text-like types (text, varchar, bpchar, name, bytea, unknown)
// as a Go string holding the raw bytes (bpchar values are stored padded),
// numeric as a Go string holding PostgreSQL's on-disk numeric payload
// (base-10000 digits; see numeric.go), regtype like oid.
// Datums do not carry their SQL type: the caller always knows it from the
// plan or the tuple descriptor and passes it to the functions of this
// package. Accessors (Int, Float, Str, ...) do not check the kind.
//
// date is an int64 of days since 2000-01-01, time an int64 of microseconds
// since midnight; interval, uuid, json and jsonb are held in the string
// field (see newtypes.go: interval as its 16-byte PostgreSQL layout, jsonb
// as PostgreSQL's binary JsonbContainer, see jsonb_binary.go); jsonpath
// holds its canonical text (jsonpath_parse.go, jsonpath_exec.go).
//
// Text I/O: [Parse] is the input function (with typmod enforcement),
// [AppendText] / [FormatText] the output function, both in PostgreSQL's
// default settings (DateStyle ISO, MDY; IntervalStyle postgres;
// extra_float_digits 1, the shortest exact float output; bytea_output
// hex); [ParseWith] and [AppendTextWith] follow a session's [Settings].
// The session is assumed to use the C locale (bytewise collation,
// ASCII-only upper/lower).
//
// Date/time input (datetime_decode.go) is PostgreSQL's field decoding: the
// text is cut into typed fields and each is claimed by the part it can
// only be, bare numbers in DateStyle's field order; interval input
// (interval_decode.go) reads fields right to left, then tries ISO 8601.
// Output in every DateStyle and IntervalStyle is datetime_out.go's.
//
// # Session settings
//
// [Settings] carries what depends on the session: its TimeZone (a [Zone]:
// an IANA zone from Go's time package with tzdata embedded, or a fixed
// offset), DateStyle (output style and field order), IntervalStyle,
// extra_float_digits, bytea_output and the transaction's start (what 'now'
// means in input). Its zero value is PostgreSQL's defaults.
// [ParseWith], [AppendTextWith], [FormatTextWith] and [CastWith] take it;
// the plain functions use the defaults and TimeZone UTC. timestamptz input
// without a zone, output, the casts between timestamptz and timestamp,
// date, time and text, timestamptz ± interval (months and days move in
// local time) and date_trunc/date_part on timestamptz use the zone.
// Functions and operators that depend on it have Func.FnWith set (Fn then
// runs them in UTC); the expression evaluator calls FnWith with the
// session's settings. [DependsOnSettings] tells the planner which literal
// conversions must wait until the settings are known, and [CheckInput]
// checks such a literal at plan time in every DateStyle order.
// [CanonicalDateStyle] is SET DateStyle's check and SHOW value.
//
// # NULLs
//
// Compare, Equal and Hash never see NULLs: the caller applies SQL NULL
// semantics (NULLs sort last ascending as in PostgreSQL, NULL = x is NULL,
// etc.). Operators and functions with Func.Strict set must not be called with
// a NULL argument: the caller returns NULL instead. Non-strict functions
// (concat, concat_ws) handle NULLs themselves.
//
// # Operator and function resolution
//
// [LookupOperator], [LookupFunction] and [LookupSRF] follow PostgreSQL's
// resolution rules (exact match, then implicit coercions, most exact
// matches, preferred types, unknown-literal resolution by category). The
// returned Func.Args are the declared parameter types of the chosen
// operator/function: the caller must coerce every argument whose type differs
// from Args[i] with [Cast](d, argType, Args[i], CastImplicit) (or skip it when
// [BinaryCoercible] says the conversion is a no-op, e.g. int4 -> int8,
// varchar -> text, float4 -> float8). Unknown-typed literals are coerced the
// same way (through the input function). Fn then sees values of exactly the
// declared types.
//
// Functions that read the transaction start time (now(), current_timestamp,
// transaction_timestamp(), localtimestamp) have Func.NeedsTxnTime set: the
// caller appends the transaction start time as one extra final argument
// (a TimestampMicros datum) when calling Fn. now(), current_timestamp and
// transaction_timestamp() return timestamptz; localtimestamp, localtime and
// current_date convert the start time to the session's zone.
//
// # Formatting templates
//
// to_char, to_number, to_timestamp and to_date read PostgreSQL's templates
// (formatting.c): numformat*.go cuts a number template into keyword and
// literal nodes and a description (digit positions, sign style, FM, V,
// RN, EEEE), each number type prepares its digit string, and one
// processor lays it out as PostgreSQL's NUM_processor does, NUL
// truncation of a too-short float included; dchformat*.go does the same
// for date/time templates (FM/TM prefixes, TH suffix), and dchparse*.go
// reads input by a template and combines the fields (PostgreSQL 15:
// offsets by TZH/TZM only, no zone names). The session's locale is C, so
// D, G, L and S are '.', ',', ' ' and '+'/'-'.
//
// # On-disk layout
//
// DataSize, FillData, FillNullBitmap, DeformData and [Deformer] (package
// datum's) produce and read exactly PostgreSQL's heap/index tuple data area
// (little-endian, MAXALIGN 8), including 1-byte short varlena headers.
package types
