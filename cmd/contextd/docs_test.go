package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/config"
)

// TestDocsGenerated: docs/tools.md and docs/configuration.md are what
// `contextd docs` generates from the code, so they list every tool the
// server serves and every environment variable the configuration reads.
// When this fails after a change to a tool or a variable, run
// `go run ./cmd/contextd docs` and commit the two pages.
func TestDocsGenerated(t *testing.T) {
	t.Parallel()
	tools, err := servedTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 32 {
		t.Errorf("the server serves %d tools with the default configuration, want 32", len(tools))
	}
	toolsPage, err := toolsMarkdown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if !strings.Contains(toolsPage, "\n## "+tool.Name+"\n") {
			t.Errorf("tools.md has no section for %s", tool.Name)
		}
	}
	configPage := configurationMarkdown()
	for _, v := range config.Variables() {
		if !strings.Contains(configPage, "| `"+v.Name+"` |") {
			t.Errorf("configuration.md has no row for %s", v.Name)
		}
	}
	for name, want := range map[string]string{"tools.md": toolsPage, "configuration.md": configPage} {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("docs/%s is stale: run `go run ./cmd/contextd docs` and commit it", name)
		}
	}
}

// TestDocsCommand: -check exits 1 on a stale page and 0 once the command
// has written them.
func TestDocsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tools.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"docs", "-out", dir, "-check"}, os.LookupEnv, nil, &out, &errb); code != exitFail {
		t.Fatalf("docs -check on a stale folder: exit %d, want %d (stderr %q)", code, exitFail, errb.String())
	}
	if !strings.Contains(errb.String(), "tools.md is not what the code generates") {
		t.Errorf("stderr %q does not name the stale page", errb.String())
	}
	if code := run(context.Background(), []string{"docs", "-out", dir}, os.LookupEnv, nil, &out, &errb); code != exitOK {
		t.Fatalf("docs: exit %d (stderr %q)", code, errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"docs", "-out", dir, "-check"}, os.LookupEnv, nil, &out, &errb); code != exitOK {
		t.Fatalf("docs -check after writing: exit %d (stderr %q)", code, errb.String())
	}
}

// TestHelpListsCommands: the top-level help names every command,
// eval paraphrase and docs included.
func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"help"}, os.LookupEnv, nil, &out, &errb); code != exitOK {
		t.Fatalf("help: exit %d", code)
	}
	for _, cmd := range []string{"version", "help", "eval cranfield", "eval paraphrase", "ingest", "bench", "migrate", "docs", "health", "ui"} {
		if !strings.Contains(out.String(), "\n  "+cmd) {
			t.Errorf("help does not list %q:\n%s", cmd, out.String())
		}
	}
}
