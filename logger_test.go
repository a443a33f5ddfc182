package contextd

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextd/contextd/persist/sqlite"
)

// TestLoggerReceivesProgress: with no FTS.Progress, a full-text rebuild
// reports through Config.Logger, one Info record a line; an explicit
// Progress writer still takes the lines instead.
func TestLoggerReceivesProgress(t *testing.T) {
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	db := filepath.Join(t.TempDir(), "ctx.db")
	eng, err := Open(ctx, Config{DBPath: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first entry", "second entry"} {
		if _, err := eng.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	reopen := func(cfg Config) {
		t.Helper()
		if err := os.RemoveAll(db + ".index"); err != nil {
			t.Fatal(err)
		}
		cfg.DBPath = db
		eng, err := Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var logged bytes.Buffer
	reopen(Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if !strings.Contains(logged.String(), `level=INFO msg="full-text index: rebuilt 2 entries`) {
		t.Errorf("the logger got %q, want the rebuild of 2 entries", logged.String())
	}
	var progress bytes.Buffer
	logged.Reset()
	reopen(Config{Logger: slog.New(slog.NewTextHandler(&logged, nil)), FTS: FTSConfig{Progress: &progress}})
	if !strings.Contains(progress.String(), "rebuilt 2 entries") || strings.Contains(logged.String(), "rebuilt") {
		t.Errorf("progress %q, logger %q: want the rebuild on Progress only", progress.String(), logged.String())
	}
}
