package session

import (
	"fmt"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestCopySplitText(t *testing.T) {
	o := &copyOptions{format: "text", delim: '\t', null: `\N`}
	ci := &copyIn{o: o}
	tests := []struct{ line, want string }{
		{"a\tb", `["a" "b"]`},
		{`\N` + "\t" + `x\ty\\z\n`, `[NULL "x\ty\\z\n"]`},
		{`\101\x41\x4G\q`, `["AA\x04Gq"]`},
		{"", `[""]`},
		{"a\t", `["a" ""]`},
		{`a\` + "\tb", `["a\tb"]`}, // escaped delimiter
	}
	for _, tt := range tests {
		if err := ci.splitText([]byte(tt.line)); err != nil {
			t.Fatal(err)
		}
		if got := fieldsString(ci); got != tt.want {
			t.Errorf("splitText(%q) = %s, want %s", tt.line, got, tt.want)
		}
	}
}

func TestCopySplitCSV(t *testing.T) {
	o := &copyOptions{format: "csv", delim: ',', null: "", quote: '"', escape: '"'}
	ci := &copyIn{o: o}
	tests := []struct{ line, want string }{
		{`a,b`, `["a" "b"]`},
		{`,""`, `[NULL ""]`},
		{`"x,y","q""q"`, `["x,y" "q\"q"]`},
		{"\"multi\nline\",z", `["multi\nline" "z"]`},
		{`ab"c"d,e`, `["abcd" "e"]`},
	}
	for _, tt := range tests {
		if csvOpenQuote([]byte(tt.line), o) {
			t.Errorf("csvOpenQuote(%q) = true", tt.line)
		}
		if err := ci.splitCSV([]byte(tt.line)); err != nil {
			t.Fatal(err)
		}
		if got := fieldsString(ci); got != tt.want {
			t.Errorf("splitCSV(%q) = %s, want %s", tt.line, got, tt.want)
		}
	}
	if !csvOpenQuote([]byte(`1,"open`), o) || !csvOpenQuote([]byte(`"a""`), o) {
		t.Error("open quotes not detected")
	}
	// A different escape character.
	o2 := &copyOptions{format: "csv", delim: ',', quote: '"', escape: '\\'}
	ci.o = o2
	if err := ci.splitCSV([]byte(`"a\"b\\c"`)); err != nil || fieldsString(ci) != `["a\"b\\c"]` {
		t.Errorf("escape: %s %v", fieldsString(ci), err)
	}
}

func fieldsString(ci *copyIn) string {
	s := "["
	for i, f := range ci.fields {
		if i > 0 {
			s += " "
		}
		if ci.nulls[i] {
			s += "NULL"
		} else {
			s += fmt.Sprintf("%q", f)
		}
	}
	return s + "]"
}

func TestCopyOptions(t *testing.T) {
	parse := func(sql string) (*copyOptions, error) {
		tree, err := pg.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		return parseCopyOptions(tree.Stmts[0].Stmt.GetCopyStmt())
	}
	o, err := parse(`COPY t FROM STDIN WITH CSV HEADER DELIMITER ';' NULL 'x'`)
	if err != nil || o.format != "csv" || !o.header || o.delim != ';' || o.null != "x" || o.quote != '"' {
		t.Errorf("old syntax: %+v %v", o, err)
	}
	o, err = parse(`copy pgbench_accounts from stdin with (freeze on)`)
	if err != nil || o.format != "text" || o.delim != '\t' || o.null != `\N` {
		t.Errorf("freeze: %+v %v", o, err)
	}
	for sql, code := range map[string]string{
		`COPY t FROM STDIN (FORMAT xml)`:              "22023",
		`COPY t FROM STDIN (DELIMITER 'ab')`:          "0A000",
		`COPY t FROM STDIN (FORMAT binary, NULL 'x')`: "42601",
		`COPY t FROM STDIN (QUOTE '''')`:              "0A000",
		`COPY t FROM STDIN (FREEZE maybe)`:            "42601",
	} {
		if _, err := parse(sql); err == nil || codeOf(err) != code {
			t.Errorf("%s: %v, want %s", sql, err, code)
		}
	}
}

func TestMaxParam(t *testing.T) {
	for sql, want := range map[string]int{
		`SELECT 1`: 0,
		`SELECT * FROM t WHERE a = $2 AND b IN (SELECT $5) LIMIT $1`: 5,
		`INSERT INTO t VALUES ($3, lower($1))`:                       3,
	} {
		tree, err := pg.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := maxParam(tree.Stmts[0].Stmt); got != want {
			t.Errorf("maxParam(%s) = %d, want %d", sql, got, want)
		}
	}
}

func codeOf(err error) string { return pgerr.Code(err) }
