package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapshotPrefix: beside a database file; nothing in memory; for a
// server database a folder under ~/.mcp/contextd-index named without the
// url's password, one per url; nothing when it cannot be made.
func TestSnapshotPrefix(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got := SnapshotPrefix("/x/ctx.db", "", nil); got != "/x/ctx.db" {
		t.Fatalf("file: %q", got)
	}
	if got := SnapshotPrefix(":memory:", "", nil); got != "" {
		t.Fatalf("memory: %q", got)
	}
	a := SnapshotPrefix("", "postgres://u:secret@db:5432/one", nil)
	b := SnapshotPrefix("", "postgres://u:secret@db:5432/two", nil)
	c := SnapshotPrefix("", "postgres://u:secret@db:5432/one", schema("tenant2"))
	if a == "" || b == "" || c == "" || a == b || a == c || !strings.HasPrefix(a, filepath.Join(home, ".mcp", "contextd-index")+string(filepath.Separator)) {
		t.Fatalf("server databases: %q, %q", a, b)
	}
	if strings.Contains(a, "secret") {
		t.Fatalf("the password is in the path %q", a)
	}
	if fi, err := os.Stat(filepath.Dir(a)); err != nil || !fi.IsDir() {
		t.Fatalf("folder not made: %v", err)
	}
	if got := SnapshotPrefix("", "postgres://u:secret@db:5432/one", nil); got != a {
		t.Fatalf("the same url gives %q, then %q", a, got)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", blocked) // ~/.mcp cannot be made under a file
	if got := SnapshotPrefix("", "postgres://u@db/one", nil); got != "" {
		t.Fatalf("unwritable home: %q", got)
	}
}

// schema stands for a backend's options naming a part of the database.
type schema string

func (s schema) Identity() string { return string(s) }
