package types

import "github.com/tidal-db/tidal/internal/datum"

// TOAST at the datum level is package datum's (toast.go there): a Datum
// decoded from a tuple holds the plain bytes and remembers its stored
// form, for pg_column_size() and pg_column_compression().

func init() {
	addFunc("pg_column_size", &Func{Args: []Type{Any}, Ret: Int4, Strict: true, Stable: true, poly: func(actual []Type) *Func {
		t := actual[0]
		return &Func{Name: "pg_column_size", Args: actual, Ret: Int4, Strict: true, Stable: true, Fn: func(a []Datum) (Datum, error) {
			return Int(int64(datum.ColumnSize(t, a[0]))), nil
		}}
	}})
	addFunc("pg_column_compression", &Func{Args: []Type{Any}, Ret: Text, Strict: true, Stable: true, poly: func(actual []Type) *Func {
		t := actual[0]
		return &Func{Name: "pg_column_compression", Args: actual, Ret: Text, Strict: true, Stable: true, Fn: func(a []Datum) (Datum, error) {
			if m, ok := datum.ColumnCompression(t, a[0]); ok {
				return Str(m.String()), nil
			}
			return Null(), nil
		}}
	}})
}
