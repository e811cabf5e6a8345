package e2e

import (
	"bufio"
	"encoding/hex"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tidal-db/tidal/internal/testutil"
)

// numericOf builds a pgtype.Numeric from its decimal text.
func numericOf(t *testing.T, s string) pgtype.Numeric {
	t.Helper()
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		t.Fatalf("pgtype.Numeric.Scan(%q): %v", s, err)
	}
	return n
}

// numericText formats a pgtype.Numeric as PostgreSQL prints it: the
// coefficient with -Exp decimals (pgx keeps the display scale in Exp,
// except for zero, which pgx decodes without its scale even from
// PostgreSQL: zero prints as "0.00…" with want's scale).
func numericText(n pgtype.Numeric, want string) string {
	if n.Valid && !n.NaN && n.InfinityModifier == pgtype.Finite && n.Int.Sign() == 0 {
		if i := strings.IndexByte(want, '.'); i >= 0 && strings.Trim(want, "0.") == "" {
			return "0." + strings.Repeat("0", len(want)-i-1)
		}
		return "0"
	}
	switch {
	case !n.Valid:
		return "NULL"
	case n.NaN:
		return "NaN"
	case n.InfinityModifier == pgtype.Infinity:
		return "Infinity"
	case n.InfinityModifier == pgtype.NegativeInfinity:
		return "-Infinity"
	}
	s := new(big.Int).Abs(n.Int).String()
	if n.Exp > 0 {
		s += strings.Repeat("0", int(n.Exp))
	} else if scale := int(-n.Exp); scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if n.Int.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// TestNumericPgxBinary stores and reads numeric values with pgx's default
// configuration, which sends and receives numeric in binary format.
func TestNumericPgxBinary(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	if _, err := c.Exec(ctx, `CREATE TABLE money (id int PRIMARY KEY, exact numeric, cents numeric(12,2))`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in, exact, cents string
	}{
		{"0", "0", "0.00"},
		{"1.005", "1.005", "1.01"},
		{"-1.005", "-1.005", "-1.01"},
		{"123456789.987654321", "123456789.987654321", "123456789.99"},
		{"0.0001", "0.0001", "0.00"},
		{"99999999999999999999999999999999.5", "99999999999999999999999999999999.5", ""},
		{"NaN", "NaN", "NaN"},
		{"Infinity", "Infinity", ""},
		{"-Infinity", "-Infinity", ""},
	}
	for i, tc := range cases {
		n := numericOf(t, tc.in)
		var cents any = n
		if tc.cents == "" {
			cents = nil
		}
		if _, err := c.Exec(ctx, `INSERT INTO money VALUES ($1, $2, $3)`, i, n, cents); err != nil {
			t.Fatalf("insert %s: %v", tc.in, err)
		}
	}
	for i, tc := range cases {
		var exact, cents pgtype.Numeric
		if err := c.QueryRow(ctx, `SELECT exact, cents FROM money WHERE id = $1`, i).Scan(&exact, &cents); err != nil {
			t.Fatalf("select %s: %v", tc.in, err)
		}
		wantCents := tc.cents
		if wantCents == "" {
			wantCents = "NULL"
		}
		if got := numericText(exact, tc.exact); got != tc.exact {
			t.Errorf("%s: exact = %s, want %s", tc.in, got, tc.exact)
		}
		if got := numericText(cents, wantCents); got != wantCents {
			t.Errorf("%s: cents = %s, want %s", tc.in, got, wantCents)
		}
	}

	// typmod overflow of a binary parameter
	_, err := c.Exec(ctx, `INSERT INTO money VALUES (100, 1, $1)`, numericOf(t, "12345678901.5"))
	wantState(t, "numeric(12,2) overflow", err, "22003")
	_, err = c.Exec(ctx, `INSERT INTO money VALUES (101, 1, $1)`, numericOf(t, "Infinity"))
	wantState(t, "infinity in numeric(12,2)", err, "22003")

	// arithmetic on parameters and aggregates come back as numeric
	var sum, avg pgtype.Numeric
	if err := c.QueryRow(ctx, `SELECT sum(cents), avg(cents) FROM money WHERE id BETWEEN 1 AND 4`).Scan(&sum, &avg); err != nil {
		t.Fatal(err)
	}
	if numericText(sum, "") != "123456789.99" || numericText(avg, "") != "30864197.497500000000" {
		t.Errorf("sum, avg = %s, %s", numericText(sum, ""), numericText(avg, ""))
	}
	var quo pgtype.Numeric
	if err := c.QueryRow(ctx, `SELECT $1::numeric / $2::numeric`, numericOf(t, "10"), numericOf(t, "3")).Scan(&quo); err != nil {
		t.Fatal(err)
	}
	if numericText(quo, "") != "3.3333333333333333" {
		t.Errorf("10/3 = %s", numericText(quo, ""))
	}
	var f float64
	if err := c.QueryRow(ctx, `SELECT exact FROM money WHERE id = 4`).Scan(&f); err != nil || f != 0.0001 {
		t.Errorf("numeric into float64 = %v, %v", f, err)
	}

	// Go numbers and strings as numeric parameters (pgx encodes them in
	// numeric's binary format)
	if _, err := c.Exec(ctx, `CREATE TABLE fromgo (k text, v numeric(10,3))`); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"float": 1.2345, "int": int64(-42), "string": "7.0005", "int32": int32(1 << 20)} {
		if _, err := c.Exec(ctx, `INSERT INTO fromgo VALUES ($1, $2)`, k, v); err != nil {
			t.Fatalf("insert %s %v: %v", k, v, err)
		}
	}
	if got := query(t, c, `SELECT k || '=' || v::text FROM fromgo ORDER BY k`); got != "float=1.235,int=-42.000,int32=1048576.000,string=7.001" {
		t.Errorf("Go parameters stored as %s", got)
	}

	// numeric[] in binary both ways
	var arr []pgtype.Numeric
	if err := c.QueryRow(ctx, `SELECT $1::numeric[]`, []pgtype.Numeric{numericOf(t, "1.5"), numericOf(t, "-3"), numericOf(t, "2.50")}).Scan(&arr); err != nil {
		t.Fatalf("numeric[]: %v", err)
	}
	var parts []string
	for _, n := range arr {
		parts = append(parts, numericText(n, ""))
	}
	if got := strings.Join(parts, ","); got != "1.5,-3,2.50" {
		t.Errorf("numeric[] = %s", got)
	}
	var ints []int32
	if err := c.QueryRow(ctx, `SELECT ARRAY[1, NULL, 3]::int4[]`).Scan(&ints); err == nil {
		t.Errorf("NULL element scanned into []int32: %v", ints)
	}
	var nullable []*int32
	if err := c.QueryRow(ctx, `SELECT $1::int4[]`, []int32{7, -8}).Scan(&nullable); err != nil || len(nullable) != 2 || *nullable[1] != -8 {
		t.Errorf("int4[] round trip = %v, %v", nullable, err)
	}

	// The result really is binary and byte-identical to PostgreSQL's
	// numeric_send output.
	for in, want := range map[string]string{
		"123.45":    "0002000000000002007b1194",
		"-0.00012":  "0002ffff40000005000107d0",
		"0.000":     "0000000000000003",
		"-Infinity": "00000000f0000020",
	} {
		res := c.PgConn().ExecParams(ctx, `SELECT $1::numeric`, [][]byte{[]byte(in)}, nil, nil, []int16{1}).Read()
		if res.Err != nil {
			t.Fatalf("%s: %v", in, res.Err)
		}
		if got := hex.EncodeToString(res.Rows[0][0]); got != want {
			t.Errorf("binary %s = %s, want %s", in, got, want)
		}
		if res.FieldDescriptions[0].DataTypeOID != 1700 || res.FieldDescriptions[0].Format != 1 {
			t.Errorf("%s: field %+v", in, res.FieldDescriptions[0])
		}
	}
}

// TestNumericTypeCases runs testdata/types/numeric.txt (expected outputs
// from PostgreSQL 15): each input is stored through a text parameter and
// read back both as text and through pgx's binary numeric decoding.
func TestNumericTypeCases(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	f, err := os.Open("testdata/types/numeric.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			t.Fatalf("bad line %q", line)
		}
		typ, in, want := fields[0], fields[1], fields[2]
		n++
		var text string
		var bin pgtype.Numeric
		err := c.QueryRow(ctx, `SELECT v::text, v FROM (SELECT $1::text::`+typ+` AS v) s`, pgx.QueryExecModeCacheStatement, in).Scan(&text, &bin)
		if err != nil {
			t.Errorf("%s %q: %v", typ, in, err)
			continue
		}
		if text != want {
			t.Errorf("%s %q as text = %q, want %q", typ, in, text, want)
		}
		if got := numericText(bin, want); got != want {
			t.Errorf("%s %q through binary = %q, want %q", typ, in, got, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d cases read", n)
	}
}
