package types

import (
	"errors"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestLookupErrors(t *testing.T) {
	_, err := LookupOperator("+", Int4, Boolean)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.UndefinedFunction || pe.Message != "operator does not exist: integer + boolean" ||
		pe.Hint != "No operator matches the given name and argument types. You might need to add explicit type casts." {
		t.Errorf("LookupOperator error = %+v", pe)
	}
	_, err = LookupOperator("-", Type{}, Text)
	if err == nil || err.Error() != "operator does not exist: - text" {
		t.Errorf("prefix error = %v", err)
	}
	_, err = LookupFunction("foo", []Type{Int4, Varchar(3)})
	if !errors.As(err, &pe) || pe.Code != pgerr.UndefinedFunction || pe.Message != "function foo(integer, character varying) does not exist" ||
		pe.Hint != "No function matches the given name and argument types. You might need to add explicit type casts." {
		t.Errorf("LookupFunction error = %+v", pe)
	}
	_, err = LookupOperator("+", Unknown, Unknown)
	if pgerr.Code(err) != pgerr.AmbiguousFunction || err.Error() != "operator is not unique: unknown + unknown" {
		t.Errorf("unknown + unknown: %v", err)
	}
	_, err = LookupSRF("generate_series", []Type{Text, Text})
	if pgerr.Code(err) != pgerr.UndefinedFunction || err.Error() != "function generate_series(text, text) does not exist" {
		t.Errorf("generate_series(text, text): %v", err)
	}
}

func TestResolvedArgs(t *testing.T) {
	tests := []struct {
		op          string
		left, right Type
		args        []Type
		ret         Type
	}{
		{"+", Int4, Int8, []Type{Int4, Int8}, Int8},
		{"+", Int4, Float8, []Type{Float8, Float8}, Float8},
		{"+", Int4, Float4, []Type{Float8, Float4}, Float8},
		{"+", Int4, Unknown, []Type{Int4, Int4}, Int4},
		{"=", Text, Unknown, []Type{Text, Text}, Boolean},
		{"=", Unknown, Unknown, []Type{Text, Text}, Boolean},
		{"=", Bpchar(3), Text, []Type{Text, Text}, Boolean},
		{"=", Bpchar(3), VarcharAny, []Type{BpcharAny, BpcharAny}, Boolean},
		{"=", Varchar(3), Text, []Type{Text, Text}, Boolean},
		{"<", Timestamp, Unknown, []Type{Timestamp, Timestamp}, Boolean},
		{"||", Text, Int4, []Type{Text, Int4}, Text},
		{"||", Unknown, Unknown, []Type{Text, Text}, Text},
		{"%", Int2, Int4, []Type{Int4, Int4}, Int4},
	}
	for _, tt := range tests {
		f, err := LookupOperator(tt.op, tt.left, tt.right)
		if err != nil {
			t.Errorf("%s %s %s: %v", tt.left, tt.op, tt.right, err)
			continue
		}
		if len(f.Args) != len(tt.args) || f.Args[0] != tt.args[0] || f.Args[1] != tt.args[1] || f.Ret != tt.ret || !f.Strict {
			t.Errorf("%s %s %s: Args %v Ret %v Strict %v; want %v %v", tt.left, tt.op, tt.right, f.Args, f.Ret, f.Strict, tt.args, tt.ret)
		}
	}
	f, err := LookupFunction("sqrt", []Type{Int4})
	if err != nil || f.Args[0] != Float8 || f.Ret != Float8 {
		t.Errorf("sqrt(int4) = %+v, %v", f, err)
	}
	f, err = LookupFunction("abs", []Type{Int2})
	if err != nil || f.Args[0] != Int2 || f.Ret != Int2 {
		t.Errorf("abs(int2) = %+v, %v", f, err)
	}
}

func TestFuncProperties(t *testing.T) {
	now, err := LookupFunction("now", nil)
	if err != nil || !now.NeedsTxnTime || now.Volatile || !now.Stable || now.Ret != Timestamptz {
		t.Fatalf("now() = %+v, %v", now, err)
	}
	txn := TimestampMicros(123456789)
	d, err := now.Fn([]Datum{txn})
	if err != nil || d.Micros() != 123456789 {
		t.Errorf("now() = %v, %v", d, err)
	}
	ct, err := LookupFunction("CURRENT_TIMESTAMP", nil)
	if err != nil || !ct.NeedsTxnTime {
		t.Errorf("current_timestamp: %+v %v", ct, err)
	}
	r, err := LookupFunction("random", nil)
	if err != nil || !r.Volatile || r.Ret != Float8 {
		t.Fatalf("random() = %+v, %v", r, err)
	}
	for i := 0; i < 100; i++ {
		d, _ := r.Fn(nil)
		if f := d.Float(); f < 0 || f >= 1 {
			t.Fatalf("random() = %v", f)
		}
	}
	m, err := LookupFunction("md5", []Type{Text})
	if err != nil || m.Volatile || m.Stable || !m.Strict {
		t.Errorf("md5: %+v %v", m, err)
	}
	c, err := LookupFunction("concat", []Type{Text, Int4, Unknown})
	if err != nil || c.Strict {
		t.Fatalf("concat: %+v %v", c, err)
	}
	d, err = c.Fn([]Datum{Str("a"), Null(), Str("z")})
	if err != nil || d.Str() != "az" {
		t.Errorf("concat = %q %v", d.Str(), err)
	}
}

func TestGenerateSeries(t *testing.T) {
	tests := []struct {
		args []Type
		vals []Datum
		want []int64
		code string
	}{
		{[]Type{Int4, Int4}, []Datum{Int(1), Int(5)}, []int64{1, 2, 3, 4, 5}, ""},
		{[]Type{Int4, Int4, Int4}, []Datum{Int(10), Int(1), Int(-4)}, []int64{10, 6, 2}, ""},
		{[]Type{Int4, Int4}, []Datum{Int(5), Int(1)}, nil, ""},
		{[]Type{Int4, Int4, Int4}, []Datum{Int(2147483646), Int(2147483647), Int(1)}, []int64{2147483646, 2147483647}, ""},
		{[]Type{Int8, Int8, Int8}, []Datum{Int(9223372036854775806), Int(9223372036854775807), Int(5)}, []int64{9223372036854775806}, ""},
		{[]Type{Int4, Int4, Int4}, []Datum{Int(1), Int(2), Int(0)}, nil, pgerr.InvalidParameterValue},
	}
	for _, tt := range tests {
		s, err := LookupSRF("generate_series", tt.args)
		if err != nil {
			t.Fatal(err)
		}
		it, err := s.Fn(tt.vals)
		if tt.code != "" {
			if pgerr.Code(err) != tt.code || err.Error() != "step size cannot equal zero" {
				t.Errorf("%v: err %v", tt.vals, err)
			}
			continue
		}
		var got []int64
		for {
			d, ok, err := it()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, d.Int())
		}
		if len(got) != len(tt.want) {
			t.Errorf("generate_series%v = %v, want %v", tt.vals, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("generate_series%v = %v, want %v", tt.vals, got, tt.want)
				break
			}
		}
	}
	s, err := LookupSRF("generate_series", []Type{Int4, Int8})
	if err != nil || s.Ret != Int8 {
		t.Errorf("generate_series(int4, int8) = %+v, %v", s, err)
	}
	// as in PostgreSQL (int4, int8 and numeric variants are equally good)
	_, err = LookupSRF("generate_series", []Type{Unknown, Unknown})
	if pgerr.Code(err) != pgerr.AmbiguousFunction || err.Error() != "function generate_series(unknown, unknown) is not unique" {
		t.Errorf("generate_series(unknown, unknown): %v", err)
	}
}

func BenchmarkInt4Plus(b *testing.B) {
	f, _ := LookupOperator("+", Int4, Int4)
	args := []Datum{Int(1), Int(2)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = f.Fn(args)
	}
}
