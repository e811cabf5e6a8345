package types

import (
	"context"
	"testing"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// The string functions that can build hundreds of megabytes stop at a
// pending interrupt, and give the same results as before otherwise.
func TestLongStringFunctionsInterruptible(t *testing.T) {
	call := func(st *Settings, name string, args ...Datum) (Datum, error) {
		t.Helper()
		var ts []Type
		for _, a := range args {
			if a.Kind() == kInt {
				ts = append(ts, Int4)
			} else {
				ts = append(ts, Text)
			}
		}
		f, err := LookupFunction(name, ts)
		if err != nil {
			t.Fatal(err)
		}
		return f.FnWith(st, args)
	}
	quiet := &Settings{Interrupts: &interrupt.State{}}
	for _, c := range []struct {
		name string
		args []Datum
		want string
	}{
		{"repeat", []Datum{Str("ab"), Int(3)}, "ababab"},
		{"lpad", []Datum{Str("hi"), Int(7), Str("xy")}, "xyxyxhi"},
		{"rpad", []Datum{Str("hi"), Int(6), Str("xyz")}, "hixyzx"},
		{"lpad", []Datum{Str("hello"), Int(2)}, "he"},
		{"replace", []Datum{Str("abcabc"), Str("b"), Str("XX")}, "aXXcaXXc"},
		{"translate", []Datum{Str("12345"), Str("143"), Str("ax")}, "a2x5"},
	} {
		d, err := call(quiet, c.name, c.args...)
		if err != nil || d.Str() != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, d.Str(), err, c.want)
		}
	}

	st := &Settings{Interrupts: &interrupt.State{}}
	release := st.Interrupts.Watch(context.Background())
	defer release()
	st.Interrupts.Raise(interrupt.QueryCancel)
	big := Str(string(make([]byte, 4<<20)))
	for _, c := range []struct {
		name string
		args []Datum
	}{
		{"repeat", []Datum{Str("x"), Int(100 << 20)}},
		{"lpad", []Datum{Str("x"), Int(100 << 20), Str("ab")}},
		{"rpad", []Datum{Str("x"), Int(100 << 20)}},
		{"replace", []Datum{big, Str("\x00"), Str("yy")}},
		{"translate", []Datum{big, Str("\x00"), Str("y")}},
	} {
		if _, err := call(st, c.name, c.args...); pgerr.Code(err) != pgerr.QueryCanceled {
			t.Errorf("%s with a cancel pending: %v", c.name, err)
		}
	}
}
