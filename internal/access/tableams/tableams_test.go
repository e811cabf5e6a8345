package tableams

import "testing"

func TestBuiltin(t *testing.T) {
	r := Builtin()
	heap, ok := r.ByName("heap")
	if !ok || heap.OID() != 2 {
		t.Fatalf("heap: %v %v", heap, ok)
	}
	if Builtin() == r {
		t.Fatal("Builtin shares one registry between engines")
	}
}
