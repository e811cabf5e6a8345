package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/testutil"
)

// listing describes every file and directory under dir: path, mode, size,
// modification time and a hash of the contents.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := fmt.Sprintf("%s %v %d %d", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// tidalDir makes a real tidal data directory (created, used, shut down).
func tidalDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE keep (id int PRIMARY KEY)")
	exec(t, c, "INSERT INTO keep VALUES (1)")
	c.Close(context.Background())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dataDirCases are directories tidal must refuse to open. Each returns the
// directory; want lists fragments the error message must contain.
var dataDirCases = []struct {
	name string
	make func(t *testing.T) string
	want []string
}{
	{
		name: "not a tidal directory",
		make: func(t *testing.T) string {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "notes.txt"), "my precious notes\n")
			writeFile(t, filepath.Join(dir, "photos", "cat.jpg"), "\xff\xd8\xff\xe0 not really a jpeg")
			writeFile(t, filepath.Join(dir, "base"), "a file named base")
			return dir
		},
		want: []string{"is not a tidal data directory", "TIDAL_VERSION"},
	},
	{
		name: "newer format version",
		make: func(t *testing.T) string {
			dir := tidalDir(t)
			writeFile(t, filepath.Join(dir, engine.VersionFile), "999\n")
			return dir
		},
		want: []string{"incompatible", "999"},
	},
	{
		name: "control file missing",
		make: func(t *testing.T) string {
			dir := tidalDir(t)
			if err := os.Remove(filepath.Join(dir, "global", "pg_control")); err != nil {
				t.Fatal(err)
			}
			return dir
		},
		want: []string{"missing", "pg_control"},
	},
	{
		name: "PostgreSQL data directory",
		make: func(t *testing.T) string {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "PG_VERSION"), "15\n")
			return dir
		},
		want: []string{"PostgreSQL data directory"},
	},
}

// A data directory that is not tidal's, or is of another format version,
// or is damaged, is refused with a clear message, and nothing in it is
// created, changed or removed.
func TestDataDirRefused(t *testing.T) {
	for _, tc := range dataDirCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.make(t)
			// Let a rewrite show in the modification times.
			time.Sleep(10 * time.Millisecond)
			before := listing(t, dir)
			s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
			if err == nil {
				s.Close()
				t.Fatalf("the server started on %s", tc.name)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the directory %s", err, dir)
			}
			if after := listing(t, dir); after != before {
				t.Fatalf("directory changed by the refused start:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// The same through the server binary: it exits with a FATAL message and
// a non-zero status, and leaves the directory alone.
func TestDataDirRefusedByServer(t *testing.T) {
	bin := testutil.Binary(t)
	for _, tc := range dataDirCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.make(t)
			time.Sleep(10 * time.Millisecond)
			before := listing(t, dir)
			cmd := osexec.Command(bin, "serve", "-D", dir, "-p", fmt.Sprint(testutil.FreePort(t)))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatalf("server exited with status 0:\n%s", out.String())
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("server started on %s:\n%s", tc.name, out.String())
			}
			msg := out.String()
			if !strings.Contains(msg, "FATAL") {
				t.Errorf("output lacks FATAL:\n%s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("output does not mention %q:\n%s", w, msg)
				}
			}
			if after := listing(t, dir); after != before {
				t.Fatalf("directory changed by the refused start:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}
