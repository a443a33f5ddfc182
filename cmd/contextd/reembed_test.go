package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/model/builtin"
)

// fakeOllama answers /api/embed with dim-dimensional vectors derived from
// each text's length, the shape of Ollama's API.
func fakeOllama(t *testing.T, dim int) *fakeapi.Server {
	t.Helper()
	return fakeapi.New(t, fakeapi.Config{Path: "/api/embed", Handler: ollamaHandler(dim)})
}

// ollamaHandler answers /api/embed as fakeOllama does.
func ollamaHandler(dim int) func(r fakeapi.Request) fakeapi.Reply {
	return func(r fakeapi.Request) fakeapi.Reply {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := r.JSON(&req); err != nil {
			return fakeapi.Reply{Status: http.StatusBadRequest, Body: err.Error()}
		}
		out := struct {
			Model      string      `json:"model"`
			Embeddings [][]float32 `json:"embeddings"`
		}{Model: req.Model}
		for _, s := range req.Input {
			v := make([]float32, dim)
			v[len(s)%dim] = 1
			out.Embeddings = append(out.Embeddings, v)
		}
		return fakeapi.Reply{Body: out}
	}
}

// TestEmbeddingModelChange: a database with built-in vectors refuses a
// server configured with another model (exit 78, naming the migration),
// `contextd migrate reembed` migrates it, and the server then starts.
func TestEmbeddingModelChange(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ctx.db")
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})
	eng, err := contextd.Open(ctx, contextd.Config{DBPath: db, Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Store(ctx, contextd.StoreRequest{ThreadID: "t", Source: "user", Text: "a stored text"}); err != nil {
		t.Fatal(err)
	}
	eng.Close()

	ollama := fakeOllama(t, 8)
	env := map[string]string{
		"DB_PATH": db, "EMBEDDING_PROVIDER": "ollama", "EMBEDDING_MODEL": "fake-embed",
		"EMBEDDING_DIM": "8", "OLLAMA_HOST": ollama.URL, "ENABLE_SUMMARY_GENERATION": "false",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, lookup, strings.NewReader(""), &stdout, &stderr); code != exitConfig {
		t.Fatalf("serve with a changed model: exit %d, want %d (stderr %q)", code, exitConfig, stderr.String())
	}
	if !strings.Contains(stderr.String(), contextd.ReembedCommand) {
		t.Fatalf("stderr %q does not name %q", stderr.String(), contextd.ReembedCommand)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"migrate", "reembed"}, lookup, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("reembed: exit %d (stderr %q)", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 entries embedded with fake-embed (8 dimensions)") {
		t.Fatalf("reembed progress %q", stderr.String())
	}
	stderr.Reset()
	// Serving now starts: stdin at EOF ends the session at once.
	if code := run(context.Background(), nil, lookup, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("serve after reembed: exit %d (stderr %q)", code, stderr.String())
	}
}
