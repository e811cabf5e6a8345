package catalog

import (
	"slices"
	"testing"
)

func TestSplitIdentifierList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`"$user", public`, []string{"$user", "public"}},
		{`Public,  PG_TEMP ,pg_catalog`, []string{"public", "pg_temp", "pg_catalog"}},
		{`"My Schema", "a""b"`, []string{"My Schema", `a"b`}},
		{``, nil},
		{` , x,`, []string{"x"}},
		{`"", y`, []string{"y"}},
	} {
		if got := SplitIdentifierList(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SplitIdentifierList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSortMembersDropsRelationsFirst(t *testing.T) {
	m := []NamespaceMember{{OID: 5, Kind: 'f'}, {OID: 9, Kind: KindTable}, {OID: 3, Kind: 'T'}, {OID: 7, Kind: KindView}}
	sortMembers(m)
	var got []uint32
	for _, x := range m {
		got = append(got, x.OID)
	}
	if want := []uint32{7, 9, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestIsSharedCatalog(t *testing.T) {
	if !IsSharedCatalog(PgAuthidRelID) || !IsSharedCatalog(PgDatabaseRelID) || IsSharedCatalog(PgClassRelID) {
		t.Error("roles and databases are shared, relations are not")
	}
}
