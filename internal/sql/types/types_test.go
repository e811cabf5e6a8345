package types

import (
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestTypeNames(t *testing.T) {
	tests := []struct {
		typ       Type
		str, typ_ string
		cat       byte
	}{
		{Int4, "integer", "int4", 'N'},
		{Int8, "bigint", "int8", 'N'},
		{Int2, "smallint", "int2", 'N'},
		{Float8, "double precision", "float8", 'N'},
		{Float4, "real", "float4", 'N'},
		{Text, "text", "text", 'S'},
		{Boolean, "boolean", "bool", 'B'},
		{Varchar(10), "character varying(10)", "varchar", 'S'},
		{VarcharAny, "character varying", "varchar", 'S'},
		{Bpchar(5), "character(5)", "bpchar", 'S'},
		{BpcharAny, "bpchar", "bpchar", 'S'},
		{Timestamp, "timestamp without time zone", "timestamp", 'D'},
		{Type{OID: TimestampOID, Typmod: 3}, "timestamp(3) without time zone", "timestamp", 'D'},
		{Timestamptz, "timestamp with time zone", "timestamptz", 'D'},
		{Name, "name", "name", 'S'},
		{Oid, "oid", "oid", 'N'},
		{Bytea, "bytea", "bytea", 'U'},
		{Int2VectorType, "int2vector", "int2vector", 'A'},
		{Char, `"char"`, "char", 'Z'},
		{Unknown, "unknown", "unknown", 'X'},
	}
	for _, tt := range tests {
		if got := tt.typ.String(); got != tt.str {
			t.Errorf("%v.String() = %q, want %q", tt.typ, got, tt.str)
		}
		if got := tt.typ.TypName(); got != tt.typ_ {
			t.Errorf("%v.TypName() = %q, want %q", tt.typ, got, tt.typ_)
		}
		if got := Category(tt.typ); got != tt.cat {
			t.Errorf("Category(%v) = %c, want %c", tt.typ, got, tt.cat)
		}
		if got, ok := TypeByOID(tt.typ.OID); !ok || got.OID != tt.typ.OID || got.Typmod != -1 {
			t.Errorf("TypeByOID(%d) = %v, %v", tt.typ.OID, got, ok)
		}
	}
	if _, ok := TypeByOID(12345); ok {
		t.Errorf("TypeByOID(12345) found")
	}
	if Varchar(10).Typmod != 14 || Bpchar(1).Typmod != 5 || Varchar(10).CharLen() != 10 || Text.CharLen() != -1 {
		t.Errorf("typmods wrong")
	}
}

func TestLookupTypeName(t *testing.T) {
	tests := []struct {
		names   []string
		typmods []int32
		want    Type
		code    string
		msg     string
	}{
		{[]string{"pg_catalog", "int4"}, nil, Int4, "", ""},
		{[]string{"int"}, nil, Int4, "", ""},
		{[]string{"integer"}, nil, Int4, "", ""},
		{[]string{"INT8"}, nil, Int8, "", ""},
		{[]string{"pg_catalog", "int2"}, nil, Int2, "", ""},
		{[]string{"pg_catalog", "varchar"}, []int32{10}, Type{OID: VarcharOID, Typmod: 14}, "", ""},
		{[]string{"varchar"}, nil, VarcharAny, "", ""},
		{[]string{"character varying"}, []int32{3}, Varchar(3), "", ""},
		{[]string{"pg_catalog", "bpchar"}, []int32{1}, Bpchar(1), "", ""},
		{[]string{"pg_catalog", "bpchar"}, []int32{84}, Bpchar(84), "", ""},
		{[]string{"bpchar"}, nil, BpcharAny, "", ""},
		{[]string{"character"}, nil, Bpchar(1), "", ""},
		{[]string{"char"}, nil, Char, "", ""},
		{[]string{"pg_catalog", "float8"}, nil, Float8, "", ""},
		{[]string{"double precision"}, nil, Float8, "", ""},
		{[]string{"pg_catalog", "float4"}, nil, Float4, "", ""},
		{[]string{"real"}, nil, Float4, "", ""},
		{[]string{"pg_catalog", "bool"}, nil, Boolean, "", ""},
		{[]string{"text"}, nil, Text, "", ""},
		{[]string{"bytea"}, nil, Bytea, "", ""},
		{[]string{"name"}, nil, Name, "", ""},
		{[]string{"oid"}, nil, Oid, "", ""},
		{[]string{"pg_catalog", "timestamp"}, nil, Timestamp, "", ""},
		{[]string{"pg_catalog", "timestamp"}, []int32{3}, Type{OID: TimestampOID, Typmod: 3}, "", ""},
		{[]string{"pg_catalog", "timestamptz"}, nil, Timestamptz, "", ""},
		{[]string{"int2vector"}, nil, Int2VectorType, "", ""},
		{[]string{"foo"}, nil, Type{}, pgerr.UndefinedObject, `type "foo" does not exist`},
		{[]string{"myschema", "int4"}, nil, Type{}, pgerr.UndefinedObject, `type "myschema.int4" does not exist`},
		{[]string{"pg_catalog", "varchar"}, []int32{0}, Type{}, pgerr.InvalidParameterValue, "length for type varchar must be at least 1"},
		{[]string{"pg_catalog", "bpchar"}, []int32{10485761}, Type{}, pgerr.InvalidParameterValue, "length for type char cannot exceed 10485760"},
		{[]string{"pg_catalog", "int4"}, []int32{5}, Type{}, pgerr.SyntaxError, `type modifier is not allowed for type "int4"`},
		{[]string{"pg_catalog", "numeric"}, nil, Numeric, "", ""},
		{[]string{"pg_catalog", "numeric"}, []int32{10, 2}, Type{OID: NumericOID, Typmod: 10<<16 | 2 + VarHdrSz}, "", ""},
		{[]string{"decimal"}, []int32{5}, Type{OID: NumericOID, Typmod: 5<<16 + VarHdrSz}, "", ""},
	}
	for _, tt := range tests {
		got, err := LookupTypeName(tt.names, tt.typmods)
		if tt.code != "" {
			if pgerr.Code(err) != tt.code || err.Error() != tt.msg {
				t.Errorf("LookupTypeName(%v, %v) error = %v (%s), want %s %q", tt.names, tt.typmods, err, pgerr.Code(err), tt.code, tt.msg)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("LookupTypeName(%v, %v) = %v, %v; want %v", tt.names, tt.typmods, got, err, tt.want)
		}
	}
}

// Every type this package knows has its physical description (typlen,
// typalign, typbyval, typstorage, encoding) in package datum, and datum
// describes no type this package does not know.
func TestTypesHavePhysicalDescriptions(t *testing.T) {
	for oid := OID(0); oid < 1<<16; oid++ {
		typ := Type{OID: oid, Typmod: -1}
		if known, reg := info(oid) != nil, datum.Registered(typ); known != reg {
			t.Errorf("type %d (%s): known to the SQL layer %v, physical description %v", oid, typ, known, reg)
		}
	}
}
