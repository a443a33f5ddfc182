package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/local"
)

const (
	fixtureEmbedder = "../model/local/testdata/mean-norm"
	fixtureCross    = "../model/local/testdata/cross"
)

// TestConfigLocal: EMBEDDING_PROVIDER=local loads the folder, takes its
// dimension (for compression too) and its name, the prefixes override
// the folder's prompts, and RERANKING_PROVIDER=local loads a
// cross-encoder.
func TestConfigLocal(t *testing.T) {
	c := embeddingConfig(t, map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": fixtureEmbedder,
		"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "local", "RERANKING_MODEL_PATH": fixtureCross})
	em, ok := c.Engine.Embedding.Embedder.(*local.Embedder)
	if !ok || em.Dim() != 32 || em.Model() != "mean-norm" || c.Planned.Compression.Dim != 32 {
		t.Fatalf("embedder %T dim %d compression dim %d", c.Engine.Embedding.Embedder, c.Engine.Embedding.Embedder.Dim(), c.Planned.Compression.Dim)
	}
	if _, ok := c.Engine.Rerank.Reranker.(*local.CrossEncoder); !ok || c.Engine.Rerank.Model != "cross" {
		t.Fatalf("reranker %T model %q", c.Engine.Rerank.Reranker, c.Engine.Rerank.Model)
	}
	ctx := context.Background()
	withPrompt, _ := em.Embed(ctx, []string{"engine"})
	c = embeddingConfig(t, map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": fixtureEmbedder,
		"EMBEDDING_MODEL": "mini", "EMBEDDING_DIM": "32", "EMBEDDING_PASSAGE_PREFIX": ""})
	em = c.Engine.Embedding.Embedder.(*local.Embedder)
	bare, _ := em.Embed(ctx, []string{"engine"})
	if em.Model() != "mini" || withPrompt[0][0] == bare[0][0] {
		t.Fatalf("model %q; the empty EMBEDDING_PASSAGE_PREFIX did not replace the folder's prompt", em.Model())
	}
}

// TestConfigLocalInvalid: each bad folder is one error naming the
// variable, the file at fault and what to do.
func TestConfigLocalInvalid(t *testing.T) {
	broken := t.TempDir()
	if err := os.Mkdir(filepath.Join(broken, "1_Pooling"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.json", "vocab.txt", "modules.json", "1_Pooling/config.json", "model.safetensors"} {
		b, err := os.ReadFile(filepath.Join(fixtureEmbedder, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "model.safetensors" {
			b = b[:len(b)/2] // truncated download
		}
		if err := os.WriteFile(filepath.Join(broken, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roberta := t.TempDir()
	if err := os.WriteFile(filepath.Join(roberta, "config.json"), []byte(`{"model_type":"xlm-roberta","hidden_size":32}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		bad  string
		want []string
	}{
		{"no path", map[string]string{"EMBEDDING_PROVIDER": "local"}, "EMBEDDING_MODEL_PATH", []string{"must name a sentence-transformers model folder"}},
		{"no folder", map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": "/nonexistent/minilm"}, "EMBEDDING_MODEL_PATH", []string{"/nonexistent/minilm/", "missing", "huggingface-cli download"}},
		{"truncated weights", map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": broken}, "EMBEDDING_MODEL_PATH", []string{"model.safetensors", "download the file again"}},
		{"architecture", map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": roberta}, "EMBEDDING_MODEL_PATH", []string{"config.json", `model_type "xlm-roberta" is not supported`}},
		{"cross-encoder as embedder", map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": fixtureCross}, "EMBEDDING_MODEL_PATH", []string{"cross-encoder", "RERANKING_MODEL_PATH"}},
		{"dimension", map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": fixtureEmbedder, "EMBEDDING_DIM": "384"}, "EMBEDDING_DIM", []string{"has 32 dimensions"}},
		{"reranker no path", map[string]string{"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "local"}, "RERANKING_MODEL_PATH", []string{"cross-encoder folder"}},
		{"embedder as reranker", map[string]string{"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "local", "RERANKING_MODEL_PATH": fixtureEmbedder}, "RERANKING_MODEL_PATH", []string{"no classification head"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["DB_PATH"] = "/tmp/x.db"
			_, err := FromEnv(lookupMap(tc.env))
			var ce *Error
			if !errors.As(err, &ce) || ce.Var != tc.bad {
				t.Fatalf("err = %v, want an error naming %s", err, tc.bad)
			}
			if strings.Count(err.Error(), "invalid configuration") != 1 {
				t.Fatalf("err = %v, want one error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}
