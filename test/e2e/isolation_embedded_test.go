package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	tidal "github.com/tidal-db/tidal/driver"
)

// isoEmbeddedPrefix marks a "DSN" of the isolation specs that is a data
// directory opened in-process with the embedded driver.
const isoEmbeddedPrefix = "embedded:"

// TestIsolationSpecsEmbedded runs the isolation specs through the embedded
// database/sql driver, every session a connection of its own on one data
// directory: the engine in-process must give the same outcomes as the
// server (and PostgreSQL 15).
func TestIsolationSpecsEmbedded(t *testing.T) {
	specs, err := filepath.Glob("testdata/isolation/*.spec")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	runIsoSpecFiles(t, specs, isoEmbeddedPrefix+filepath.Join(t.TempDir(), "data"))
}

func isoConnectEmbedded(t *testing.T, dir, name string) *isoConn {
	t.Helper()
	db, err := sql.Open("tidal", embeddedDSN(dir, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("connect %s: %v", name, err)
	}
	t.Cleanup(func() { c.Close(); db.Close() })
	return &isoConn{name: name, db: c}
}

// execEmbeddedInto is execInto for a session of the embedded driver: the
// values it returns are printed back as the server would send them.
func (ic *isoConn) execEmbeddedInto(query string, out *bytes.Buffer, limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var buf bytes.Buffer
	err := func() error {
		rows, err := ic.db.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for {
			colTypes, err := rows.ColumnTypes()
			if err != nil {
				return err
			}
			var printed [][][]byte
			vals := make([]any, len(colTypes))
			ptrs := make([]any, len(colTypes))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			for rows.Next() {
				if err := rows.Scan(ptrs...); err != nil {
					return err
				}
				row := make([][]byte, len(vals))
				for i, v := range vals {
					if v == nil {
						continue
					}
					s, err := formatGoValue(colTypes[i].DatabaseTypeName(), v)
					if err != nil {
						return err
					}
					row[i] = []byte(s)
				}
				printed = append(printed, row)
			}
			if err := rows.Err(); err != nil {
				return err
			}
			if len(colTypes) > 0 {
				names := make([]string, len(colTypes))
				for i, ct := range colTypes {
					names[i] = ct.Name()
				}
				buf.WriteString(pqPrint(names, printed))
			}
			if !rows.NextResultSet() {
				return rows.Err()
			}
		}
	}()
	ic.mu.Lock()
	defer ic.mu.Unlock()
	out.Write(buf.Bytes())
	if err != nil {
		var pe *tidal.Error
		if errors.As(err, &pe) {
			fmt.Fprintf(out, "%s:  %s\n", pe.Severity, pe.Message)
		} else {
			fmt.Fprintf(out, "%v\n", err)
		}
	}
}
