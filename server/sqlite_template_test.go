package server_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contextd/contextd/persist/sqlite"
)

// The conformance suite opens a fresh SQLite store for every test and
// store kind (several hundred per run). Each open of an empty file applied
// every schema migration: 1.1 s of the package's 31 s of CPU (2026-12-04,
// pprof of the quick tier). The envs instead start from a copy of one
// migrated, empty database made once per test binary; sqlite.Open on the
// copy still runs its migration check and opens the pools as before. The
// migrations themselves are tested in persist/sqlite.

var sqliteTemplate struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sqliteTemplate.dir != "" {
		_ = os.RemoveAll(sqliteTemplate.dir)
	}
	os.Exit(code)
}

// migratedSQLiteFile writes a migrated, empty SQLite database at path.
func migratedSQLiteFile(t testing.TB, path string) {
	t.Helper()
	sqliteTemplate.once.Do(func() {
		sqliteTemplate.dir, sqliteTemplate.err = os.MkdirTemp("", "contextd-server-template")
		if sqliteTemplate.err != nil {
			return
		}
		st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(sqliteTemplate.dir, "ctx.db")})
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		sqliteTemplate.err = st.Close()
	})
	if sqliteTemplate.err != nil {
		t.Fatalf("template SQLite store: %v", sqliteTemplate.err)
	}
	files, err := os.ReadDir(sqliteTemplate.dir)
	if err != nil {
		t.Fatal(err)
	}
	copied := 0
	for _, f := range files {
		// ctx.db, and its -wal and -shm files should a close have left them.
		name, ok := strings.CutPrefix(f.Name(), "ctx.db")
		if !ok {
			continue
		}
		if err := copyFile(filepath.Join(sqliteTemplate.dir, f.Name()), path+name); err != nil {
			t.Fatal(err)
		}
		copied++
	}
	if copied == 0 {
		t.Fatalf("template SQLite store: no database file in %s", sqliteTemplate.dir)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
