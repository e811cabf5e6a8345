package tableam

import "testing"

type fakeAM struct {
	AM
	name string
	oid  uint32
}

func (f fakeAM) Name() string { return f.name }
func (f fakeAM) OID() uint32  { return f.oid }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	r.Register(fakeAM{name: "undo", oid: 9000})
	r.Register(fakeAM{name: "heap", oid: 2})
	if am, ok := r.ByName("heap"); !ok || am.OID() != 2 {
		t.Fatalf("ByName(heap) = %v, %v", am, ok)
	}
	if _, ok := r.ByName("nosuch"); ok {
		t.Fatal("ByName(nosuch) found something")
	}
	if am, ok := r.ByOID(9000); !ok || am.Name() != "undo" {
		t.Fatalf("ByOID(9000) = %v, %v", am, ok)
	}
	all := r.All()
	if len(all) != 2 || all[0].Name() != "heap" || all[1].Name() != "undo" {
		t.Fatalf("All() not in OID order: %v", all)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering heap twice did not panic")
		}
	}()
	r.Register(fakeAM{name: "heap", oid: 3})
}

func TestUpdateHintIndexes(t *testing.T) {
	var h UpdateHint
	h.MarkIndexChanged(2)
	h.MarkIndexChanged(70)
	for i, want := range map[int]bool{0: false, 2: true, 5: false, 63: true, 64: true, 100: true} {
		if h.IndexChanged(i) != want {
			t.Errorf("IndexChanged(%d) = %v, want %v", i, !want, want)
		}
	}
}

func TestComboCids(t *testing.T) {
	var c ComboCids
	a, b := c.ID(1, 2), c.ID(3, 4)
	if a == b || c.ID(1, 2) != a {
		t.Fatalf("ids %d %d, again %d", a, b, c.ID(1, 2))
	}
	if cmin, cmax, ok := c.Pair(b); !ok || cmin != 3 || cmax != 4 {
		t.Fatalf("Pair(%d) = %d %d %v", b, cmin, cmax, ok)
	}
	c.Reset()
	if _, _, ok := c.Pair(a); ok {
		t.Fatal("Pair after Reset still found")
	}
	var nilC *ComboCids
	if _, _, ok := nilC.Pair(0); ok {
		t.Fatal("nil ComboCids found a pair")
	}
}
