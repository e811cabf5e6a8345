package expr

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func arrayValue(t *testing.T, s string) types.ArrayValue {
	t.Helper()
	ia, _ := types.ArrayOf(types.Int4)
	d, err := types.Parse(ia, s)
	if err != nil {
		t.Fatal(err)
	}
	return types.ArrayParts(d)
}

func bounds(vs ...int) []bound {
	out := make([]bound, len(vs))
	for i, v := range vs {
		out[i] = bound{v: v, set: true}
	}
	return out
}

func TestSetElementAndSlice(t *testing.T) {
	ia, _ := types.ArrayOf(types.Int4)
	show := func(d types.Datum, err error) string {
		if err != nil {
			return "error " + pgerr.Code(err)
		}
		return types.FormatText(ia, d)
	}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"grow up", show(setElement(arrayValue(t, "{1,2}"), bounds(5), types.Int(9))), "{1,2,NULL,NULL,9}"},
		{"grow down", show(setElement(arrayValue(t, "{1,2}"), bounds(-1), types.Int(9))), "[-1:2]={9,NULL,1,2}"},
		{"into empty", show(setElement(arrayValue(t, "{}"), bounds(0, 3), types.Int(9))), "[0:0][3:3]={{9}}"},
		{"2-D in range", show(setElement(arrayValue(t, "{{1,2},{3,4}}"), bounds(2, 1), types.Int(9))), "{{1,2},{9,4}}"},
		{"2-D out of range", show(setElement(arrayValue(t, "{{1,2},{3,4}}"), bounds(3, 1), types.Int(9))), "error 2202E"},
		{"wrong subscripts", show(setElement(arrayValue(t, "{1,2}"), bounds(1, 1), types.Int(9))), "error 2202E"},
		{"slice grows", show(setSlice(arrayValue(t, "{1,2}"), bounds(4), bounds(5), arrayValue(t, "{8,9,10}"))), "{1,2,NULL,8,9}"},
		{"slice 2-D", show(setSlice(arrayValue(t, "{{1,2},{3,4}}"), bounds(1, 2), bounds(2, 2), arrayValue(t, "{8,9}"))), "{{1,8},{3,9}}"},
		{"source too small", show(setSlice(arrayValue(t, "{1,2}"), bounds(1), bounds(2), arrayValue(t, "{8}"))), "error 2202E"},
		{"empty needs bounds", show(setSlice(arrayValue(t, "{}"), []bound{{}}, bounds(2), arrayValue(t, "{8,9}"))), "error 2202E"},
		{"empty takes shape", show(setSlice(arrayValue(t, "{}"), bounds(0, 1), bounds(1, 1), arrayValue(t, "{7,8,9}"))), "[0:1][1:1]={{7},{8}}"},
		{"fetch slice", types.FormatText(ia, fetchSlice(arrayValue(t, "[0:2]={1,2,3}"), bounds(1), []bound{{}})), "{2,3}"},
		{"fetch outside", types.FormatText(ia, fetchSlice(arrayValue(t, "{1,2}"), bounds(5), bounds(6))), "{}"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	if _, err := growAndSet(arrayValue(t, "[-2147483648:-2147483647]={1,2}"), 2147483647, 2147483647, []types.Datum{types.Int(1)}); pgerr.Code(err) != pgerr.ProgramLimitExceeded {
		t.Errorf("huge growth: %v", err)
	}
}
