package types

import "strings"

func init() {
	// pg_partition_ancestors(regclass): the partition and its ancestors;
	// no rows for a relation that is not a partition, which every tidal
	// table is (psql's \d asks for it to list the foreign keys referencing
	// a table or its ancestors).
	srfs["pg_partition_ancestors"] = []*SRF{{Name: "pg_partition_ancestors", Args: []Type{Oid}, Ret: Oid,
		Fn: func([]Datum) (func() (Datum, bool, error), error) {
			return func() (Datum, bool, error) { return Datum{}, false, nil }, nil
		}}}
}

// IsSRF reports whether name is a set-returning function.
func IsSRF(name string) bool { return len(srfs[strings.ToLower(name)]) > 0 }
