package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// seed003Table is seed 003's boat table (fewer rows), vacuumed and
// checkpointed, so an UPDATE's first changes write full-page images.
func seed003Table(t *testing.T, c *pgx.Conn, name string) {
	t.Helper()
	exec(t, c, fmt.Sprintf("CREATE TABLE %s (id integer, name text, reg double precision)", name))
	exec(t, c, fmt.Sprintf("INSERT INTO %s(id, name, reg) SELECT i, md5(i::text), log(i) FROM generate_series(1, 50000) AS i", name))
	exec(t, c, fmt.Sprintf("CREATE INDEX %s_idx1 ON %s(id)", name, name))
	exec(t, c, fmt.Sprintf("CREATE INDEX %s_idx2 ON %s(reg)", name, name))
	exec(t, c, "VACUUM ANALYZE "+name)
}

func explainRows(t *testing.T, c *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// textFigures are the counters of a text-format EXPLAIN (ANALYZE,
// BUFFERS, WAL) of seed 003's UPDATE, keyed as the JSON format keys them
// ("Update/Shared Dirtied Blocks", "Scan/Actual Rows", …).
func textFigures(t *testing.T, lines []string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	node := ""
	num := func(k, v string) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: %q", k, v)
		}
		out[node+"/"+k] = f
	}
	kv := regexp.MustCompile(`(\w+)=(\d+)`)
	for _, l := range lines {
		s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "->"))
		switch {
		case strings.HasPrefix(s, "Update on"):
			node = "Update"
		case strings.HasPrefix(s, "Seq Scan on"):
			node = "Scan"
		case strings.HasPrefix(s, "Planning:"):
			node = "Planning"
		case strings.HasPrefix(s, "Buffers:"):
			names := map[string]string{"hit": "Shared Hit Blocks", "read": "Shared Read Blocks", "dirtied": "Shared Dirtied Blocks", "written": "Shared Written Blocks"}
			for _, m := range kv.FindAllStringSubmatch(s, -1) {
				num(names[m[1]], m[2])
			}
			continue
		case strings.HasPrefix(s, "WAL:"):
			names := map[string]string{"records": "WAL Records", "fpi": "WAL FPI", "bytes": "WAL Bytes"}
			for _, m := range kv.FindAllStringSubmatch(s, -1) {
				num(names[m[1]], m[2])
			}
			continue
		case strings.HasPrefix(s, "Rows Removed by Filter:"):
			num("Rows Removed by Filter", strings.TrimPrefix(s, "Rows Removed by Filter: "))
			continue
		default:
			continue
		}
		if m := regexp.MustCompile(`rows=(\d+) loops=(\d+)`).FindStringSubmatch(s); m != nil {
			num("Actual Rows", m[1])
			num("Actual Loops", m[2])
		}
	}
	return out
}

// EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) of seed 003's UPDATE is
// PostgreSQL's JSON document, and its counters are the text format's:
// two identical tables, each updated once right after a checkpoint, one
// explained in each format.
func TestExplainJSONSeed003Update(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	c := connect(t, srv.DSN())
	seed003Table(t, c, "boat_t")
	seed003Table(t, c, "boat_j")
	exec(t, c, "SET wal_compression = off") // WAL bytes then depend only on the rows
	update := "UPDATE %s SET name = 'trade winds' WHERE mod(id, 1000) = 1"

	exec(t, c, "CHECKPOINT")
	text := explainRows(t, c, "EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) "+fmt.Sprintf(update, "boat_t"))
	exec(t, c, "CHECKPOINT")
	doc := explainRows(t, c, "EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF, FORMAT JSON) "+fmt.Sprintf(update, "boat_j"))
	if len(doc) != 1 {
		t.Fatalf("JSON EXPLAIN gave %d rows", len(doc))
	}
	var parsed []map[string]any
	if err := json.Unmarshal([]byte(doc[0]), &parsed); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc[0])
	}
	if len(parsed) != 1 {
		t.Fatalf("want one query, got %d", len(parsed))
	}
	q := parsed[0]
	for _, k := range []string{"Plan", "Planning", "Planning Time", "Triggers", "Execution Time"} {
		if _, ok := q[k]; !ok {
			t.Errorf("no %q in %v", k, q)
		}
	}
	plan := q["Plan"].(map[string]any)
	if plan["Node Type"] != "ModifyTable" || plan["Operation"] != "Update" || plan["Relation Name"] != "boat_j" {
		t.Errorf("plan head: %v", plan)
	}
	scan := plan["Plans"].([]any)[0].(map[string]any)
	if scan["Node Type"] != "Seq Scan" || scan["Parent Relationship"] != "Outer" || scan["Filter"] != "(mod(id, 1000) = 1)" {
		t.Errorf("scan head: %v", scan)
	}
	want := textFigures(t, text)
	t.Logf("text figures: %v", want)
	if want["Update/WAL FPI"] == 0 || want["Update/Shared Dirtied Blocks"] == 0 || want["Scan/Actual Rows"] != 50 {
		t.Fatalf("text figures look wrong: %v\n%s", want, strings.Join(text, "\n"))
	}
	nodes := map[string]map[string]any{"Update": plan, "Scan": scan, "Planning": q["Planning"].(map[string]any)}
	for _, n := range []map[string]any{plan, scan} {
		for _, k := range []string{"Shared Hit Blocks", "Shared Read Blocks", "Shared Dirtied Blocks", "Shared Written Blocks",
			"Local Hit Blocks", "Temp Written Blocks", "WAL Records", "WAL FPI", "WAL Bytes", "Actual Startup Time", "Actual Total Time"} {
			if _, ok := n[k].(float64); !ok {
				t.Errorf("%v: %q is not a number: %v", n["Node Type"], k, n[k])
			}
		}
	}
	for key, v := range want {
		if strings.HasPrefix(key, "Planning/") {
			continue // catalog look-ups differ between the two statements
		}
		node, k, _ := strings.Cut(key, "/")
		if got := nodes[node][k]; got != v {
			t.Errorf("%s: JSON %v, text %v", key, got, v)
		}
	}
	// Counters the text format leaves out when zero are 0 in JSON.
	for _, k := range []string{"WAL Records", "WAL FPI", "WAL Bytes"} {
		if _, inText := want["Scan/"+k]; !inText && scan[k] != float64(0) {
			t.Errorf("Scan %s: %v", k, scan[k])
		}
	}
}

// The structured formats name and nest as PostgreSQL's; bad FORMAT values
// are refused as PostgreSQL refuses them.
func TestExplainFormatsAndOptions(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	c := connect(t, srv.DSN())
	exec(t, c, "CREATE TABLE t (a int, b text)")
	exec(t, c, "INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g")
	yaml := explainRows(t, c, "EXPLAIN (COSTS OFF, FORMAT YAML) SELECT * FROM t WHERE a > 3")
	wantYAML := "- Plan: \n    Node Type: \"Seq Scan\"\n    Parallel Aware: false\n    Async Capable: false\n    Relation Name: \"t\"\n    Alias: \"t\"\n    Filter: \"(a > 3)\""
	if len(yaml) != 1 || yaml[0] != wantYAML {
		t.Errorf("YAML:\n%q\nwant\n%q", yaml, wantYAML)
	}
	xml := explainRows(t, c, "EXPLAIN (COSTS OFF, VERBOSE, FORMAT XML) SELECT a FROM t x")
	for _, frag := range []string{"<explain xmlns=\"http://www.postgresql.org/2009/explain\">\n  <Query>\n    <Plan>\n      <Node-Type>Seq Scan</Node-Type>",
		"<Schema>public</Schema>\n      <Alias>x</Alias>", "<Output>\n        <Item>a</Item>\n      </Output>", "</Plan>\n  </Query>\n</explain>"} {
		if !strings.Contains(xml[0], frag) {
			t.Errorf("XML lacks %q:\n%s", frag, xml[0])
		}
	}
	exec(t, c, "SET work_mem = '8MB'")
	exec(t, c, "SET enable_seqscan = off")
	text := explainRows(t, c, "EXPLAIN (SETTINGS, COSTS OFF) SELECT * FROM t")
	if last := text[len(text)-1]; last != "Settings: enable_seqscan = 'off', work_mem = '8MB'" {
		t.Errorf("settings line %q", last)
	}
	js := explainRows(t, c, "EXPLAIN (SETTINGS, FORMAT JSON) SELECT * FROM t")
	var parsed []map[string]map[string]any
	if err := json.Unmarshal([]byte(js[0]), &parsed); err != nil {
		t.Fatal(err)
	}
	if s := parsed[0]["Settings"]; s["work_mem"] != "8MB" || s["enable_seqscan"] != "off" || len(s) != 2 {
		t.Errorf("Settings: %v", s)
	}
	summary := explainRows(t, c, "EXPLAIN (SUMMARY, COSTS OFF) SELECT * FROM t")
	if !strings.HasPrefix(summary[len(summary)-1], "Planning Time: ") {
		t.Errorf("SUMMARY without ANALYZE: %q", summary)
	}
	timing := explainRows(t, c, "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, SUMMARY OFF) SELECT * FROM t")
	if len(timing) != 1 || timing[0] != "Seq Scan on t (actual rows=100 loops=1)" {
		t.Errorf("TIMING OFF: %q", timing)
	}
	// VERBOSE's Query Identifier (compute_query_id = on) is the query's
	// pg_stat_statements queryid.
	exec(t, c, "SET compute_query_id = on")
	verbose := explainRows(t, c, "EXPLAIN (VERBOSE, COSTS OFF) SELECT b FROM t WHERE a = 5")
	exec(t, c, "SELECT b FROM t WHERE a = 6")
	want := "Query Identifier: " + query(t, c, "SELECT queryid FROM pg_stat_statements WHERE query = 'SELECT b FROM t WHERE a = $1'")
	if last := verbose[len(verbose)-1]; last != want {
		t.Errorf("VERBOSE ends %q, want %q", last, want)
	}
	exec(t, c, "RESET compute_query_id")
	if v := explainRows(t, c, "EXPLAIN (VERBOSE, COSTS OFF) SELECT b FROM t"); strings.HasPrefix(v[len(v)-1], "Query Identifier") {
		t.Errorf("Query Identifier with compute_query_id = auto: %q", v)
	}
	_, err := c.Exec(context.Background(), "EXPLAIN (FORMAT foo) SELECT 1")
	if e := wantState(t, "FORMAT foo", err, "22023"); e.Message != `unrecognized value for EXPLAIN option "format": "foo"` {
		t.Errorf("message %q", e.Message)
	}
	exec(t, c, "SELECT 1") // the session goes on
}
