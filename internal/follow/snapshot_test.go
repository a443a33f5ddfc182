package follow

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
