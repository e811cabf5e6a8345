package acl

import (
	"reflect"
	"testing"
)

func TestItemTextRoundTrip(t *testing.T) {
	for _, s := range []string{"=r/postgres", "alice=a*r*wdDxt/bob", `"a b"=U/"x""y"`, "u=X*/o"} {
		it, err := ParseItem(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := it.String(); got != s {
			t.Errorf("%s: round trip gave %s", s, got)
		}
	}
	it, _ := ParseItem("alice=a*r/bob")
	if it.Grantee != "alice" || it.Grantor != "bob" || it.Privs != Insert|Select || it.Grant != Insert {
		t.Errorf("parsed %+v", it)
	}
	for _, bad := range []string{"alice", "alice=q/bob", "alice=r", `"x=r/y`} {
		if _, err := ParseItem(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestDefault(t *testing.T) {
	cases := map[Kind][]string{
		Table:    {"o=arwdDxt/o"},
		Sequence: {"o=rwU/o"},
		Function: {"=X/o", "o=X/o"},
		Schema:   {"o=UC/o"},
		Database: {"=Tc/o", "o=CTc/o"},
		Type:     {"=U/o", "o=U/o"},
	}
	for k, want := range cases {
		if got := Default(k, "o").Strings(); !reflect.DeepEqual(got, want) {
			t.Errorf("kind %d: %v, want %v", k, got, want)
		}
	}
}

func TestGrantRevokeCascade(t *testing.T) {
	a := Default(Table, "o")
	a = a.Grant("u1", "o", Select|Insert, Select)
	a = a.Grant("u2", "u1", Select, 0)
	a = a.Grant("u1", "o", Update, 0) // merges into u1's item from o
	if got := a.Strings(); !reflect.DeepEqual(got, []string{"o=arwdDxt/o", "u1=ar*w/o", "u2=r/u1"}) {
		t.Fatalf("after grants: %v", got)
	}
	if _, err := a.Revoke("u1", "o", Select, false, false); err != ErrDependentPrivileges {
		t.Fatalf("revoke without cascade: %v", err)
	}
	b, err := a.Revoke("u1", "o", Select, true, true) // GRANT OPTION FOR … CASCADE
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Strings(); !reflect.DeepEqual(got, []string{"o=arwdDxt/o", "u1=arw/o"}) {
		t.Fatalf("after revoking the grant option: %v", got)
	}
	c, _ := b.Revoke("u1", "o", All(Table), false, false)
	if got := c.Strings(); !reflect.DeepEqual(got, []string{"o=arwdDxt/o"}) {
		t.Fatalf("after revoking all: %v", got)
	}
	// A grant option held from another grantor keeps the onward grant.
	d := Default(Table, "o").Grant("u1", "o", Select, Select).Grant("u1", "x", Select, Select).Grant("u2", "u1", Select, 0)
	e, err := d.Revoke("u1", "o", Select, false, false)
	if err != nil || len(e) != 3 {
		t.Fatalf("revoke with another grantor's option: %v %v", e.Strings(), err)
	}
}

func TestMaskAndNewOwner(t *testing.T) {
	a := ACL{{Grantee: "", Grantor: "o", Privs: Select}, {Grantee: "g", Grantor: "o", Privs: Update, Grant: Update}}
	p, g := a.Mask(func(r string) bool { return r == "g" })
	if p != Select|Update || g != Update {
		t.Errorf("mask: %v %v", p, g)
	}
	p, _ = a.Mask(func(string) bool { return false })
	if p != Select {
		t.Errorf("PUBLIC only: %v", p)
	}
	b := ACL{{Grantee: "old", Grantor: "old", Privs: Select}, {Grantee: "new", Grantor: "old", Privs: Insert}}
	if got := b.NewOwner("old", "new").Strings(); !reflect.DeepEqual(got, []string{"new=ar/new"}) {
		t.Errorf("new owner: %v", got)
	}
}

func TestNames(t *testing.T) {
	if m, ok := ParseName("temp"); !ok || m != CreateTemp {
		t.Errorf("TEMP: %v %v", m, ok)
	}
	if _, ok := ParseName("frobnicate"); ok {
		t.Error("unknown name accepted")
	}
	if Name(Truncate) != "TRUNCATE" || Letters(Select|Update) != "rw" {
		t.Error("names")
	}
}
