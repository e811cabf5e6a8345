package types

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// Expected strings are PostgreSQL 15's float8out/float4out output.
func TestFloatOutputMatchesPostgres(t *testing.T) {
	cases := []struct {
		in   string
		bits int
		want string
	}{
		{"41682372644697136", 64, "4.1682372644697136e+16"},
		{"1.23382031554022208000e+17", 64, "1.2338203155402221e+17"},
		{"3.03763422728309120000e+16", 64, "3.0376342272830912e+16"},
		{"-1.57138372518494412800e+18", 64, "-1.5713837251849441e+18"},
		{"-8.70158217396305920000e+16", 64, "-8.701582173963059e+16"},
		{"1.36523035141452791808e+20", 64, "1.3652303514145279e+20"},
		{"2.88639086810266368000e+17", 64, "2.8863908681026637e+17"},
		{"1e22", 64, "1e+22"},
		{"9007199254740993", 64, "9.007199254740992e+15"},
		{"0.1", 64, "0.1"},
		{"1.5e-7", 64, "1.5e-07"},
		{"-1.054112768e9", 32, "-1.05411277e+09"},
		{"-2.85221184e8", 32, "-2.8522118e+08"},
		{"1.20572704e8", 32, "1.20572704e+08"},
		{"1.692920064e9", 32, "1.6929201e+09"},
		{"6.82845568e8", 32, "6.8284557e+08"},
		{"-1.1238246e8", 32, "-1.12382464e+08"},
		{"123456789012", 32, "1.2345679e+11"},
		{"0.1", 32, "0.1"},
	}
	for _, c := range cases {
		f, err := strconv.ParseFloat(c.in, c.bits)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(appendFloat(nil, f, c.bits)); got != c.want {
			t.Errorf("float%d %s: got %s, want %s", c.bits/8, c.in, got, c.want)
		}
	}
}

// Whatever digits are chosen must read back as the same float, and never
// need more than the round-trip maximum.
func TestFloatOutputRoundTrips(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 200000; i++ {
		bits := 64
		f := math.Float64frombits(r.Uint64())
		if i%2 == 1 {
			bits = 32
			f = float64(math.Float32frombits(r.Uint32()))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := string(appendShortestE(nil, f, bits))
		back, err := strconv.ParseFloat(s, bits)
		if err != nil || back != f {
			t.Fatalf("float%d %v printed as %s reads back as %v (%v)", bits/8, f, s, back, err)
		}
		if n := significantDigits([]byte(s)); n > 17 || (bits == 32 && n > 9) {
			t.Fatalf("float%d %v printed with %d digits: %s", bits/8, f, n, s)
		}
	}
}
