package model2vec_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/model/model2vec"
	_ "github.com/contextd/contextd/persist/sqlite" // registers the default backend
)

// TestEngineWithModel2Vec drives the engine the way a user does with a
// Model2Vec folder: entries stored with its vectors are found by
// semantic search in the fixture's vocabulary, and reopening the
// database with another model is refused until it is re-embedded.
func TestEngineWithModel2Vec(t *testing.T) {
	load := func(name string) *model2vec.Embedder {
		e, err := model2vec.Load(filepath.Join("testdata", name), model2vec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	open := func(dir string, e contextd.Embedder) (*contextd.Engine, error) {
		return contextd.Open(context.Background(), contextd.Config{
			DBPath:    filepath.Join(dir, "ctx.db"),
			FTS:       contextd.FTSConfig{Progress: &strings.Builder{}},
			Embedding: contextd.EmbeddingConfig{Embedder: e, Provider: "local"},
		})
	}
	dir := t.TempDir()
	eng, err := open(dir, load("f16-norm"))
	if err != nil {
		t.Fatal(err)
	}
	alice := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
	texts := []string{
		"the database server failure in winter",
		"a cat sat on the dog",
		"hello world from the agent model",
	}
	ids := map[string]string{}
	for _, s := range texts {
		r, err := eng.Store(alice, contextd.StoreRequest{ThreadID: "t", Source: "user", Text: s})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Message, "embedding generated") {
			t.Fatalf("store message %q", r.Message)
		}
		ids[s] = r.ContextID
	}
	res, err := eng.SemanticSearch(alice, contextd.SemanticSearchRequest{Query: "database server failure", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 3 || res.Results[0].ID != ids[texts[0]] || res.Model != "f16-norm" {
		t.Fatalf("search: %+v", res)
	}
	eng.Close()

	_, err = open(dir, load("quant-f32"))
	if !errors.Is(err, contextd.ErrEmbeddingModelChanged) {
		t.Fatalf("reopen with another model: %v, want ErrEmbeddingModelChanged", err)
	}
}
