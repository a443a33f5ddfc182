package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/server/setup"
)

// TestIngestUnsupportedBreakdown: the skipped line says which formats
// were left out, most common first.
func TestIngestUnsupportedBreakdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"a.md": "# A\n\ntext\n", "x1.png": "p", "x2.png": "p", "x3.png": "p", "y.svg": "s", "z.bin": "b"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "HOME": t.TempDir()}
	code, out := ingestRun(t, env, dir, "--thread", "kb:x")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !strings.Contains(out, "skipped: 0 ignored, 5 of unsupported formats (.png 3, .bin 1, .svg 1)") {
		t.Fatalf("no breakdown of the unsupported formats:\n%s", out)
	}
	if strings.Contains(out, "kept as stored") {
		t.Fatalf("%q for files never stored:\n%s", "kept as stored", out)
	}
}

// TestIngestEmptyFileWording: a file without text is reported as not
// stored, not as "kept as stored" (it never was).
func TestIngestEmptyFileWording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"a.md": "# A\n\ntext\n", "blank.md": "   \n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "HOME": t.TempDir()}
	_, out := ingestRun(t, env, dir, "--thread", "kb:x")
	if !strings.Contains(out, "empty: 1 files without text, not stored") || strings.Contains(out, "kept as stored") {
		t.Fatalf("empty-file line:\n%s", out)
	}
}

// TestPostgresRefusedExits78: on PostgreSQL, a server that refuses the
// connection is a configuration error: exit 78, and the message names
// the host, port and database (never a SQLite path) and the cause.
func TestPostgresRefusedExits78(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the connection is refused
	host, port, _ := net.SplitHostPort(addr)
	env := map[string]string{
		"STORAGE_BACKEND": "postgresql", "POSTGRESQL_HOST": host, "POSTGRESQL_PORT": port,
		"POSTGRESQL_DATABASE": "contextd_db", "POSTGRESQL_CONNECT_TIMEOUT_S": "5",
		"DB_PATH": filepath.Join(t.TempDir(), "never.db"), "HOME": t.TempDir(),
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), nil, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, strings.NewReader(""), &out, &errb)
	msg := errb.String()
	if code != exitConfig {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitConfig, msg)
	}
	for _, want := range []string{"postgresql://" + addr + "/contextd_db", "refused", "POSTGRESQL_HOST"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "never.db") {
		t.Errorf("stderr names the SQLite path: %q", msg)
	}
}

// TestDBTargetPostgres: the start-up line's database is PostgreSQL's
// host, port, database and schema, without the user or password.
func TestDBTargetPostgres(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"STORAGE_BACKEND":              "postgresql",
		"POSTGRESQL_CONNECTION_STRING": "postgresql://alice:s3cret@db.example:6543/memory?sslmode=require",
		"POSTGRESQL_SCHEMA":            "agents", "HOME": t.TempDir(),
	}
	cfg := configFrom(t, env)
	got := dbTarget(cfg.Engine)
	if got != "postgresql://db.example:6543/memory (schema agents)" {
		t.Fatalf("dbTarget = %q", got)
	}
	cfg = configFrom(t, map[string]string{"DB_PATH": "/tmp/x/ctx.db"})
	if got := dbTarget(cfg.Engine); got != "/tmp/x/ctx.db" {
		t.Fatalf("dbTarget on SQLite = %q", got)
	}
}

// configFrom reads the configuration env describes.
func configFrom(t *testing.T, env map[string]string) setup.Config {
	t.Helper()
	cfg, err := setup.FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
