package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalModelFolderChange: a database embedded by a local model (the
// 32-dimensional fixture) refuses to serve with a model folder of another
// dimension (the 48-dimensional one): exit 78 with a message naming both
// models, both dimensions and the migration; `contextd migrate reembed`
// moves it over with progress, and the server then starts.
func TestLocalModelFolderChange(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ctx.db")
	fixtures, err := filepath.Abs("../../model/local/testdata")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DB_PATH": db, "EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": filepath.Join(fixtures, "mean-norm"),
		"ENABLE_SUMMARY_GENERATION": "false"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var stdout, stderr bytes.Buffer
	store := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":"the car engine failure in winter"}}}
`
	if code := run(context.Background(), nil, lookup, strings.NewReader(store), &stdout, &stderr); code != exitOK {
		t.Fatalf("serve with the 32-d model: exit %d (stderr %q)", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `context_id`) {
		t.Fatalf("store_context answered %q", stdout.String())
	}

	env["EMBEDDING_MODEL_PATH"] = filepath.Join(fixtures, "cls")
	stderr.Reset()
	if code := run(context.Background(), nil, lookup, strings.NewReader(""), &stdout, &stderr); code != exitConfig {
		t.Fatalf("serve with the 48-d model: exit %d, want %d (stderr %q)", code, exitConfig, stderr.String())
	}
	t.Logf("refused: %s", stderr.String())
	for _, want := range []string{"mean-norm (32 dimensions)", "cls (48 dimensions)", "contextd migrate reembed"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("stderr %q does not name %q", stderr.String(), want)
		}
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"migrate", "reembed"}, lookup, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("reembed: exit %d (stderr %q)", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 entries embedded with cls (48 dimensions)") {
		t.Fatalf("reembed progress %q", stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), nil, lookup, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("serve after reembed: exit %d (stderr %q)", code, stderr.String())
	}

	// A folder that is not a model: exit 78 naming the file and the fix.
	env["EMBEDDING_MODEL_PATH"] = t.TempDir()
	stderr.Reset()
	if code := run(context.Background(), nil, lookup, strings.NewReader(""), &stdout, &stderr); code != exitConfig ||
		!strings.Contains(stderr.String(), "config.json: missing") || !strings.Contains(stderr.String(), "huggingface-cli download") {
		t.Fatalf("serve with an empty folder: exit %d (stderr %q)", code, stderr.String())
	}
}
