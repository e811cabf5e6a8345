package e2e

import (
	"bytes"
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/lib/pq"

	_ "github.com/tidal-db/tidal/driver"
	"github.com/tidal-db/tidal/internal/testutil"
)

// Large values (TOAST) through every client path: 100 kB, 10 MB and 100 MB
// values of text, bytea and jsonb are written and read back by pgx (binary
// parameters and results), lib/pq, the embedded database/sql driver, and
// COPY in text and binary format. Half of each value is an md5 chain
// (incompressible for pglz), half repeats, so values are both compressed
// and stored out of line.

var toastSizes = []int{100 << 10, 10 << 20, 100 << 20}

// toastValue is a deterministic value of about n bytes: for text and
// jsonb its text (jsonb in jsonb's canonical output form), for bytea its
// bytes.
func toastValue(typ string, n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 64)
	if typ == "jsonb" {
		b.WriteByte('[')
	}
	for i := 0; b.Len() < n; i++ {
		var part string
		if (i/64)%2 == 0 {
			sum := md5.Sum([]byte(fmt.Sprint(i)))
			part = hex.EncodeToString(sum[:])
		} else {
			part = "abcdefghijklmnopqrstuvwxyz012345"
		}
		if typ == "jsonb" {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`"` + part + `"`)
		} else {
			b.WriteString(part)
		}
	}
	if typ == "jsonb" {
		b.WriteByte(']')
	}
	if typ == "bytea" {
		// Bytes ≥ 0x80 too.
		out := b.Bytes()
		for i := 0; i < len(out); i += 7 {
			out[i] ^= 0x80
		}
	}
	return b.Bytes()
}

func digest(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

func TestToastRoundTripClients(t *testing.T) {
	dir := t.TempDir()
	s := testutil.Start(t, testutil.Options{Dir: filepath.Join(dir, "srv")})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE big (id int PRIMARY KEY, t text, b bytea, j jsonb)`)

	pq, err := sql.Open("postgres", s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer pq.Close()
	emb, err := sql.Open("tidal", filepath.Join(dir, "embedded"))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if _, err := emb.Exec(`CREATE TABLE big (id int PRIMARY KEY, t text, b bytea, j jsonb)`); err != nil {
		t.Fatal(err)
	}

	id := 0
	for _, n := range toastSizes {
		for _, typ := range []string{"text", "bytea", "jsonb"} {
			want := toastValue(typ, n)
			col := typ[:1]
			name := fmt.Sprintf("%s/%dkB", typ, n>>10)
			t.Run("pgx/"+name, func(t *testing.T) {
				id++
				start := time.Now()
				var arg any = string(want)
				if typ == "bytea" {
					arg = want
				}
				if _, err := c.Exec(tctxLong(t), fmt.Sprintf(`INSERT INTO big (id, %s) VALUES ($1, $2)`, col), id, arg); err != nil {
					t.Fatal(err)
				}
				var got []byte
				if typ == "bytea" {
					err = c.QueryRow(tctxLong(t), `SELECT b FROM big WHERE id = $1`, id).Scan(&got)
				} else {
					var s string
					err = c.QueryRow(tctxLong(t), fmt.Sprintf(`SELECT %s::text FROM big WHERE id = $1`, col), id).Scan(&s)
					got = []byte(s)
				}
				checkValue(t, err, got, want, start)
			})
			t.Run("libpq/"+name, func(t *testing.T) {
				id++
				start := time.Now()
				var arg any = string(want)
				if typ == "bytea" {
					arg = want
				}
				if _, err := pq.Exec(fmt.Sprintf(`INSERT INTO big (id, %s) VALUES ($1, $2)`, col), id, arg); err != nil {
					t.Fatal(err)
				}
				var got []byte
				err := pq.QueryRow(fmt.Sprintf(`SELECT %s FROM big WHERE id = $1`, col), id).Scan(&got)
				checkValue(t, err, got, want, start)
			})
			t.Run("embedded/"+name, func(t *testing.T) {
				id++
				start := time.Now()
				var arg any = string(want)
				if typ == "bytea" {
					arg = want
				}
				if _, err := emb.Exec(fmt.Sprintf(`INSERT INTO big (id, %s) VALUES ($1, $2)`, col), id, arg); err != nil {
					t.Fatal(err)
				}
				var got []byte
				err := emb.QueryRow(fmt.Sprintf(`SELECT %s FROM big WHERE id = $1`, col), id).Scan(&got)
				checkValue(t, err, got, want, start)
			})
			t.Run("copytext/"+name, func(t *testing.T) {
				id++
				start := time.Now()
				field := string(want)
				if typ == "bytea" {
					field = `\\x` + hex.EncodeToString(want)
				}
				if _, err := c.PgConn().CopyFrom(tctxLong(t), strings.NewReader(fmt.Sprintf("%d\t%s\n", id, field)), fmt.Sprintf(`COPY big (id, %s) FROM STDIN`, col)); err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				_, err := c.PgConn().CopyTo(tctxLong(t), &out, fmt.Sprintf(`COPY (SELECT %s FROM big WHERE id = %d) TO STDOUT`, col, id))
				got := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
				if typ == "bytea" && err == nil {
					got, err = hex.DecodeString(strings.TrimPrefix(string(got), `\\x`))
				}
				checkValue(t, err, got, want, start)
			})
			t.Run("copybinary/"+name, func(t *testing.T) {
				id++
				start := time.Now()
				payload := want
				if typ == "jsonb" {
					payload = append([]byte{1}, want...) // jsonb's binary format: version 1, then the text
				}
				in := binaryCopy(id, payload)
				if _, err := c.PgConn().CopyFrom(tctxLong(t), bytes.NewReader(in), fmt.Sprintf(`COPY big (id, %s) FROM STDIN (FORMAT binary)`, col)); err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				_, err := c.PgConn().CopyTo(tctxLong(t), &out, fmt.Sprintf(`COPY (SELECT id, %s FROM big WHERE id = %d) TO STDOUT (FORMAT binary)`, col, id))
				var got []byte
				if err == nil {
					got, err = binaryCopyField(out.Bytes())
				}
				if typ == "jsonb" && err == nil {
					got = got[1:]
				}
				checkValue(t, err, got, want, start)
			})
		}
	}
	// The large values were stored out of line, and read back intact
	// after a checkpoint too.
	if got := query(t, c, `SELECT count(*) FROM big WHERE pg_column_size(t) < octet_length(t) OR pg_column_size(b) < octet_length(b)`); got == "0" {
		t.Errorf("no value was stored compressed")
	}
	if got := query(t, c, `SELECT pg_relation_size(reltoastrelid) > 300000000 FROM pg_class WHERE relname = 'big'`); got != "true" {
		t.Errorf("TOAST table holds less than the values: %s", got)
	}
	if got := query(t, c, `SELECT tidal_check('big')`); got != "ok" {
		t.Errorf("tidal_check: %s", got)
	}
}

func tctxLong(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func checkValue(t *testing.T, err error, got, want []byte, start time.Time) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("value differs: got %d bytes (md5 %s), want %d (md5 %s)", len(got), digest(got), len(want), digest(want))
	}
	t.Logf("%d bytes in %v", len(want), time.Since(start).Round(time.Millisecond))
}

// binaryCopy is COPY's binary format for one row (int4 id, one value).
func binaryCopy(id int, v []byte) []byte {
	var b bytes.Buffer
	b.WriteString("PGCOPY\n\xff\r\n\x00")
	b.Write(make([]byte, 8)) // flags, header extension length
	b.Write(binary.BigEndian.AppendUint16(nil, 2))
	b.Write(binary.BigEndian.AppendUint32(nil, 4))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(id)))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(v))))
	b.Write(v)
	b.Write([]byte{0xff, 0xff})
	return b.Bytes()
}

// binaryCopyField returns the second field of the one row of a binary
// COPY.
func binaryCopyField(b []byte) ([]byte, error) {
	const hdr = 19
	if len(b) < hdr+2+4+4+4 {
		return nil, fmt.Errorf("binary COPY output too short (%d bytes)", len(b))
	}
	p := b[hdr:]
	if n := binary.BigEndian.Uint16(p); n != 2 {
		return nil, fmt.Errorf("row has %d fields", n)
	}
	p = p[2:]
	l := int(binary.BigEndian.Uint32(p))
	p = p[4+l:]
	l = int(binary.BigEndian.Uint32(p))
	p = p[4:]
	if l > len(p) {
		return nil, fmt.Errorf("field length %d beyond the data", l)
	}
	return p[:l], nil
}

var _ = pgx.Identifier{}
