package types

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestCanCast(t *testing.T) {
	const (
		I = CastImplicit
		A = CastAssignment
		E = CastExplicit
		N = -1 // no cast
	)
	tests := []struct {
		from, to Type
		min      CastContext
	}{
		{Int2, Int4, I}, {Int2, Int8, I}, {Int4, Int8, I}, {Int4, Float4, I}, {Int8, Float8, I}, {Float4, Float8, I},
		{Int8, Int4, A}, {Int4, Int2, A}, {Float8, Int4, A}, {Float8, Float4, A}, {Float4, Int8, A},
		{Int4, Boolean, E}, {Boolean, Int4, E}, {Boolean, Float8, N}, {Int4, Timestamp, N},
		{Int4, Oid, I}, {Oid, Int4, A}, {Oid, Int8, A},
		{Int4, Text, A}, {Float8, Varchar(10), A}, {Timestamp, Text, A}, {Boolean, Text, A}, {Bytea, Text, A},
		{Int4, Name, A},
		{Text, Int4, E}, {Varchar(3), Float8, E}, {Text, Timestamp, E}, {Text, Bytea, E}, {Text, Boolean, E},
		{Text, Varchar(5), I}, {Varchar(5), Text, I}, {Bpchar(3), Text, I}, {Text, Bpchar(3), I}, {Text, Name, I}, {Name, Text, I},
		{Name, Varchar(5), A}, {Text, Char, A}, {Char, Text, I}, {Int4, Char, E},
		{Unknown, Int4, I}, {Unknown, Timestamp, I}, {Unknown, Boolean, I}, {Unknown, Varchar(5), I},
		{Timestamp, Timestamptz, I}, {Timestamptz, Timestamp, A},
		{Varchar(10), Varchar(5), I}, {Int4, Int4, I},
	}
	for _, tt := range tests {
		for ctx := CastImplicit; ctx <= CastExplicit; ctx++ {
			want := tt.min != N && ctx >= tt.min
			if got := CanCast(tt.from, tt.to, ctx); got != want {
				t.Errorf("CanCast(%s, %s, %d) = %v, want %v", tt.from, tt.to, ctx, got, want)
			}
		}
	}
}

func TestCastContexts(t *testing.T) {
	tests := []struct {
		d        Datum
		from, to Type
		ctx      CastContext
		want     string
		code     string
		msg      string
	}{
		// INSERT INTO t(v varchar(5)): assignment errors unless only spaces are cut
		{Str("abcdef"), Text, Varchar(5), CastAssignment, "", pgerr.StringDataRightTruncation, "value too long for type character varying(5)"},
		{Str("abc   "), Text, Varchar(5), CastAssignment, "abc  ", "", ""},
		{Str("abcdef"), Text, Varchar(5), CastExplicit, "abcde", "", ""},
		{Str("abcdef"), Unknown, Varchar(5), CastAssignment, "", pgerr.StringDataRightTruncation, "value too long for type character varying(5)"},
		{Str("abcdef"), Unknown, Varchar(5), CastExplicit, "abcde", "", ""},
		{Str("ab"), Unknown, Bpchar(4), CastAssignment, "ab  ", "", ""},
		{Str("abcdef"), Varchar(10), Bpchar(3), CastAssignment, "", pgerr.StringDataRightTruncation, "value too long for type character(3)"},
		{Str("abcdef"), Varchar(10), Varchar(3), CastImplicit, "", pgerr.StringDataRightTruncation, "value too long for type character varying(3)"},
		{Int(12345), Int4, Varchar(3), CastAssignment, "", pgerr.StringDataRightTruncation, "value too long for type character varying(3)"},
		{Int(123), Int4, Varchar(3), CastAssignment, "123", "", ""},
		{Float(2.5), Float8, Int4, CastAssignment, "2", "", ""},
		{Int(40000), Int4, Int2, CastAssignment, "", pgerr.NumericValueOutOfRange, "smallint out of range"},
		{Int(1), Int8, Int4, CastImplicit, "", "42846", "cannot cast type bigint to integer"},
		{Str("12"), Text, Int4, CastAssignment, "", "42846", "cannot cast type text to integer"},
		{Str("x"), Unknown, Int4, CastImplicit, "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "x"`},
		{Bool(true), Boolean, Timestamp, CastExplicit, "", "42846", "cannot cast type boolean to timestamp without time zone"},
		{Null(), Text, Int4, CastExplicit, "<NULL>", "", ""},
		{Str("2024-01-01 00:00:00.123456"), Unknown, Type{OID: TimestampOID, Typmod: 2}, CastAssignment, "2024-01-01 00:00:00.12", "", ""},
	}
	for _, tt := range tests {
		d, err := Cast(tt.d, tt.from, tt.to, tt.ctx)
		if tt.code != "" {
			if err == nil || pgerr.Code(err) != tt.code || err.Error() != tt.msg {
				t.Errorf("Cast(%s -> %s, %d) = %v (%s); want %s %q", tt.from, tt.to, tt.ctx, err, pgerr.Code(err), tt.code, tt.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("Cast(%s -> %s, %d): %v", tt.from, tt.to, tt.ctx, err)
			continue
		}
		got := "<NULL>"
		if !d.IsNull() {
			got = FormatText(tt.to, d)
		}
		if got != tt.want {
			t.Errorf("Cast(%s -> %s, %d) = %q, want %q", tt.from, tt.to, tt.ctx, got, tt.want)
		}
	}
}

func TestBinaryCoercible(t *testing.T) {
	yes := [][2]Type{{Int2, Int4}, {Int4, Int8}, {Float4, Float8}, {Varchar(5), Text}, {Text, VarcharAny}, {Varchar(3), Varchar(5)}, {Name, Text}, {Int4, Int4}}
	no := [][2]Type{{Int8, Int4}, {Int4, Float8}, {Text, Varchar(5)}, {Bpchar(3), Text}, {Varchar(5), Varchar(3)}, {Unknown, Int4}, {Text, Name}}
	for _, p := range yes {
		if !BinaryCoercible(p[0], p[1]) {
			t.Errorf("BinaryCoercible(%s, %s) = false", p[0], p[1])
		}
	}
	for _, p := range no {
		if BinaryCoercible(p[0], p[1]) {
			t.Errorf("BinaryCoercible(%s, %s) = true", p[0], p[1])
		}
	}
}

// TestCommonType: results checked against PostgreSQL's UNION ALL typing.
func TestCommonType(t *testing.T) {
	tests := []struct {
		a, b Type
		want Type
		ok   bool
	}{
		{Int4, Int8, Int8, true},
		{Int8, Int4, Int8, true},
		{Int2, Float4, Float4, true},
		{Int8, Float4, Float4, true},
		{Float4, Float8, Float8, true},
		{Float8, Int4, Float8, true},
		{VarcharAny, Text, VarcharAny, true}, // PostgreSQL keeps the first of mutually coercible types
		{Text, VarcharAny, Text, true},
		{Bpchar(2), VarcharAny, BpcharAny, true},
		{Name, Text, Name, true},
		{Int4, Oid, Oid, true},
		{Varchar(3), Varchar(3), Varchar(3), true},
		{Varchar(3), Varchar(5), VarcharAny, true},
		{Timestamp, Timestamptz, Timestamptz, true},
		{Unknown, Int4, Int4, true},
		{Int4, Unknown, Int4, true},
		{Unknown, Unknown, Text, true},
		{Boolean, Int4, Type{}, false},
		{Float8, Oid, Type{}, false},
		{Text, Int4, Type{}, false},
	}
	for _, tt := range tests {
		got, ok := CommonType(tt.a, tt.b)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("CommonType(%s, %s) = %s, %v; want %s, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}
