package snapfmt

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "snap")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := io.WriteString(w, s)
			return err
		}
	}
	if err := WriteFile(path, 0o644, write("first")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, 0o644, write("second")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "second" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	// A failing writer leaves the old snapshot whole and no temporary file.
	boom := errors.New("disk full")
	err := WriteFile(path, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, "torn")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failing writer: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second" {
		t.Fatalf("the old snapshot became %q", b)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("directory holds %v, %v", ents, err)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "snap"), 0o644, write("x")); err == nil {
		t.Fatal("a missing directory is not an error")
	}
}

// TestWriteFileRemovesStaleTemps: the temporary file a killed writer left
// (path.<digits>, untouched for more than staleTemp) goes with the next
// successful write; a fresh one (a writer at work) and unrelated names
// stay.
func TestWriteFileRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hnsw.snap")
	old := time.Now().Add(-2 * staleTemp)
	files := map[string]bool{"hnsw.snap.123456": false, "hnsw.snap.789": true, "hnsw.snap.bak": true, "other.42": true}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != "hnsw.snap.789" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteFile(path, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, "graph"); return err }); err != nil {
		t.Fatal(err)
	}
	for name, stays := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != stays {
			t.Errorf("%s: present %v, want %v", name, err == nil, stays)
		}
	}
}
