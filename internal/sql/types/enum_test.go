package types

import (
	"sort"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Enum values order bytewise as their sort orders do, whatever the signs
// and fractions, so sorts and B-trees need no catalog.
func TestEnumDatumOrder(t *testing.T) {
	orders := []float64{-3, -1.5, -0.25, 0, 0.125, 1, 1.5, 1.75, 2, 1e9}
	var labels []EnumLabel
	for i, o := range orders {
		labels = append(labels, EnumLabel{OID: OID(20000 - i), Order: o})
	}
	vals := make([]Datum, len(labels))
	for i, l := range labels {
		vals[i] = EnumDatum(l)
	}
	shuffled := append([]Datum(nil), vals...)
	sort.Slice(shuffled, func(i, j int) bool { return shuffled[i].Str() > shuffled[j].Str() })
	sort.Slice(shuffled, func(i, j int) bool { return Compare(Type{OID: 30000, Typmod: -1}, shuffled[i], shuffled[j]) < 0 })
	for i := range vals {
		if shuffled[i].Str() != vals[i].Str() {
			t.Fatalf("position %d: got label OID %d, want %d", i, EnumLabelOID(shuffled[i]), EnumLabelOID(vals[i]))
		}
		if EnumLabelOID(vals[i]) != labels[i].OID {
			t.Errorf("EnumLabelOID = %d, want %d", EnumLabelOID(vals[i]), labels[i].OID)
		}
	}
}

func TestEnumIO(t *testing.T) {
	e := &Enum{OID: 30000, Name: "mood", Labels: []EnumLabel{{OID: 30001, Order: 1, Label: "sad"}, {OID: 30002, Order: 2, Label: "happy"}}}
	d, err := e.Parse("happy")
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := e.Label(d); !ok || l != "happy" {
		t.Errorf("Label = %q, %v", l, ok)
	}
	_, err = e.Parse("meh")
	if pgerr.Code(err) != pgerr.InvalidTextRepresentation || !strings.Contains(err.Error(), `invalid input value for enum mood: "meh"`) {
		t.Errorf("Parse(meh) error = %v", err)
	}
	st := &Settings{UserTypes: fakeTypes{e}}
	if s := FormatTextWith(st, Type{OID: 30000, Typmod: -1}, d); s != "happy" {
		t.Errorf("output = %q", s)
	}
	// Through the text form: an assignment to varchar(3) is too long, an
	// explicit cast truncates.
	if _, err := CastWith(st, d, Type{OID: 30000, Typmod: -1}, Varchar(3), CastAssignment); pgerr.Code(err) != pgerr.StringDataRightTruncation {
		t.Errorf("enum to varchar(3) on assignment: %v", err)
	}
	if v, err := CastWith(st, d, Type{OID: 30000, Typmod: -1}, Varchar(3), CastExplicit); err != nil || v.Str() != "hap" {
		t.Errorf("enum to varchar(3) explicitly: %q, %v", v.Str(), err)
	}
	if _, err := CastWith(st, Str("sad"), Text, Type{OID: 30000, Typmod: -1}, CastAssignment); err == nil {
		t.Error("text to enum in assignment context: want an error (explicit only)")
	}
	if !IsUserType(Type{OID: 30000}) || IsUserType(Int4) {
		t.Error("IsUserType")
	}
}

type fakeTypes struct{ e *Enum }

func (f fakeTypes) TypeName(oid OID) string { return f.e.Name }
func (f fakeTypes) TypeOID([]string) OID    { return f.e.OID }
func (f fakeTypes) Enum(oid OID) *Enum {
	if oid == f.e.OID {
		return f.e
	}
	return nil
}

func (f fakeTypes) Composite(OID) *Composite { return nil }

// A composite value is a record datum with the composite's field types:
// record_in's rules, and output without the catalog.
func TestCompositeIO(t *testing.T) {
	c := &Composite{OID: 30010, Name: "fullname", Fields: []string{"first", "last"}, Types: []Type{Text, Text}}
	st := &Settings{UserTypes: compositeTypes{c}}
	typ := Type{OID: 30010, Typmod: -1}
	for in, want := range map[string]string{
		`(Joe,Blow)`:         `(Joe,Blow)`,
		` (Joe,"von Blow") `: `(Joe,"von Blow")`,
		`(Joe,"a""b\\c")`:    `(Joe,"a""b\\c")`,
		`(Joe,)`:             `(Joe,)`,
	} {
		d, err := ParseWith(st, typ, in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := FormatText(typ, d); got != want {
			t.Errorf("%s: output %s, want %s", in, got, want)
		}
	}
	for in, detail := range map[string]string{
		`(Joe)`:        "Too few columns.",
		`(Joe,Blow,x)`: "Too many columns.",
		`[]`:           "Missing left parenthesis.",
		`(Joe,Blow) /`: "Junk after right parenthesis.",
		`(Joe,"Blow`:   "Unexpected end of input.",
	} {
		_, err := ParseWith(st, typ, in)
		pe, ok := err.(*pgerr.Error)
		if !ok || pe.Code != pgerr.InvalidTextRepresentation || pe.Detail != detail {
			t.Errorf("%s: error %v, want 22P02 with %q", in, err, detail)
		}
	}
	a, _ := ParseWith(st, typ, "(a,b)")
	b, _ := ParseWith(st, typ, "(a,c)")
	if Compare(typ, a, b) >= 0 || !Equal(typ, a, a) || Hash(typ, a) != Hash(typ, RecordValue([]Type{Text, Text}, []Datum{Str("a"), Str("b")})) {
		t.Error("composite order, equality or hash")
	}
}

type compositeTypes struct{ c *Composite }

func (f compositeTypes) TypeName(OID) string      { return f.c.Name }
func (f compositeTypes) TypeOID([]string) OID     { return f.c.OID }
func (f compositeTypes) Enum(OID) *Enum           { return nil }
func (f compositeTypes) Composite(OID) *Composite { return f.c }
