package e2e

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"

	"github.com/tidal-db/tidal/internal/testutil"
)

// Arrays through real drivers: pgx's extended protocol sends and reads
// them in binary (array_send / array_recv, multidimensional and with lower
// bounds), its simple protocol and lib/pq in text (array_out / array_in
// quoting). TIDAL_SQLTEST_PG runs the same against PostgreSQL 15.
func TestArrayClients(t *testing.T) {
	dsn := os.Getenv("TIDAL_SQLTEST_PG")
	onPG := dsn != ""
	if !onPG {
		dsn = testutil.Start(t, testutil.Options{}).DSN()
	}
	admin := connect(t, dsn)
	using := []string{""}
	if !onPG {
		using = append(using, " USING undo")
	}
	for _, am := range using {
		name := "heap"
		if am != "" {
			name = "undo"
		}
		t.Run(name, func(t *testing.T) {
			exec(t, admin, "DROP TABLE IF EXISTS arrcli")
			exec(t, admin, "CREATE TABLE arrcli (id int PRIMARY KEY, i int4[], t text[], m int8[][], n numeric[])"+am)
			t.Cleanup(func() { execErr(admin, "DROP TABLE IF EXISTS arrcli") })
			arrayClientsPgx(t, dsn)
			arrayClientsLibpq(t, dsn)
			if got := query(t, admin, "SELECT string_agg(id || ':' || i::text || ':' || t::text || ':' || coalesce(m::text, '-'), ' ' ORDER BY id) FROM arrcli"); got !=
				`1:{1,NULL,3}:{plain,"with space","q\"uote","back\\slash",NULL,""}:{{1,2},{3,4}} `+
					`2:[0:1]={5,6}:{x}:[2:2][-1:0]={{7,8}} 3:{10,20}:{"a,b","{c}"}:-` {
				t.Errorf("stored rows: %s", got)
			}
		})
	}
}

func arrayClientsPgx(t *testing.T, dsn string) {
	ctx := tctx(t)
	c := connectExt(t, dsn) // extended protocol: binary arrays both ways
	one, three := int32(1), int32(3)
	texts := []*string{ptr("plain"), ptr("with space"), ptr(`q"uote`), ptr(`back\slash`), nil, ptr("")}
	if _, err := c.Exec(ctx, `INSERT INTO arrcli (id, i, t, m) VALUES (1, $1, $2, $3)`,
		[]*int32{&one, nil, &three}, texts, [][]int64{{1, 2}, {3, 4}}); err != nil {
		t.Fatalf("pgx insert: %v", err)
	}
	shaped := pgtype.Array[int64]{Elements: []int64{7, 8}, Dims: []pgtype.ArrayDimension{{Length: 1, LowerBound: 2}, {Length: 2, LowerBound: -1}}, Valid: true}
	if _, err := c.Exec(ctx, `INSERT INTO arrcli (id, i, t, m) VALUES (2, '[0:1]={5,6}', $1, $2)`, []string{"x"}, shaped); err != nil {
		t.Fatalf("pgx insert of a shaped array: %v", err)
	}
	var i []*int32
	var txt []*string
	var m [][]int64
	if err := c.QueryRow(ctx, `SELECT i, t, m FROM arrcli WHERE id = 1`).Scan(&i, &txt, &m); err != nil {
		t.Fatalf("pgx select: %v", err)
	}
	if len(i) != 3 || *i[0] != 1 || i[1] != nil || *i[2] != 3 || len(txt) != 6 || *txt[3] != `back\slash` || txt[4] != nil || *txt[5] != "" ||
		len(m) != 2 || m[1][0] != 3 {
		t.Errorf("pgx binary read: %v %v %v", i, txt, m)
	}
	var got pgtype.Array[int64]
	if err := c.QueryRow(ctx, `SELECT m FROM arrcli WHERE id = 2`).Scan(&got); err != nil {
		t.Fatalf("pgx shaped select: %v", err)
	}
	if len(got.Dims) != 2 || got.Dims[0] != shaped.Dims[0] || got.Dims[1] != shaped.Dims[1] || got.Elements[1] != 8 {
		t.Errorf("pgx binary shape: %+v", got)
	}
	var lb, nd int32
	if err := c.QueryRow(ctx, `SELECT array_lower(i, 1), array_ndims($1::int8[]) FROM arrcli WHERE id = 2`, [][]int64{{1}, {2}}).Scan(&lb, &nd); err != nil || lb != 0 || nd != 2 {
		t.Errorf("lower bound %d, ndims %d, %v", lb, nd, err)
	}
	var nums pgtype.Array[pgtype.Numeric]
	if err := c.QueryRow(ctx, `UPDATE arrcli SET n[2] = 2.50 WHERE id = 1 RETURNING n`).Scan(&nums); err != nil || len(nums.Elements) != 1 ||
		nums.Dims[0].LowerBound != 2 || numericText(nums.Elements[0], "") != "2.50" {
		t.Errorf("numeric[] after n[2] = 2.50 on NULL: %+v, %v", nums, err)
	}
	// simple protocol: the text form
	s := connect(t, dsn)
	if got := query(t, s, `SELECT m[1:1][2]::text, t[3], n::text FROM arrcli WHERE id = 1`); got != "{{1,2}}|q\"uote|[2:2]={2.50}" {
		t.Errorf("pgx text read: %s", got)
	}
}

func arrayClientsLibpq(t *testing.T, dsn string) {
	ctx := tctx(t)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `INSERT INTO arrcli (id, i, t) VALUES (3, $1, $2)`, pq.Array([]int64{10, 20}), pq.Array([]string{"a,b", "{c}"})); err != nil {
		t.Fatalf("lib/pq insert: %v", err)
	}
	var ints []int64
	var strs []string
	if err := db.QueryRowContext(ctx, `SELECT i, t FROM arrcli WHERE id = 3`).Scan(pq.Array(&ints), pq.Array(&strs)); err != nil {
		t.Fatalf("lib/pq select: %v", err)
	}
	if len(ints) != 2 || ints[1] != 20 || strings.Join(strs, "|") != "a,b|{c}" {
		t.Errorf("lib/pq read: %v %q", ints, strs)
	}
	var nulls []sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT t FROM arrcli WHERE id = 1`).Scan(pq.Array(&nulls)); err != nil || len(nulls) != 6 ||
		nulls[2].String != `q"uote` || nulls[3].String != `back\slash` || nulls[4].Valid || !nulls[5].Valid {
		t.Errorf("lib/pq quoted text[]: %v, %v", nulls, err)
	}
	var dims string
	if err := db.QueryRowContext(ctx, `SELECT array_dims(m) FROM arrcli WHERE id = $1`, 2).Scan(&dims); err != nil || dims != "[2:2][-1:0]" {
		t.Errorf("lib/pq array_dims = %q, %v", dims, err)
	}
}

func ptr[T any](v T) *T { return &v }
