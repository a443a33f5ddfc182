package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/model2vec"
)

const fixtureModel2Vec = "../model/model2vec/testdata/f16-norm"

// TestConfigLocalModel2Vec: EMBEDDING_PROVIDER=local with a Model2Vec
// folder loads the static model, with its table's width as the
// dimension (for compression too); EMBEDDING_DIM against it (a
// sentence-transformers static model's too) and a damaged folder are
// errors naming the variable.
func TestConfigLocalModel2Vec(t *testing.T) {
	c := embeddingConfig(t, map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": fixtureModel2Vec})
	em, ok := c.Engine.Embedding.Embedder.(*model2vec.Embedder)
	if !ok || em.Dim() != 24 || em.Model() != "f16-norm" || c.Planned.Compression.Dim != 24 {
		t.Fatalf("embedder %T dim %d compression dim %d", c.Engine.Embedding.Embedder, c.Engine.Embedding.Embedder.Dim(), c.Planned.Compression.Dim)
	}
	for _, tc := range []struct {
		env      map[string]string
		bad      string
		contains string
	}{
		{map[string]string{"EMBEDDING_DIM": "384"}, "EMBEDDING_DIM", "has 24 dimensions (the width of its embeddings table)"},
		{map[string]string{"EMBEDDING_MODEL_PATH": "../model/model2vec/testdata"}, "EMBEDDING_MODEL_PATH", "config.json"},
		{map[string]string{"EMBEDDING_MODEL_PATH": "../model/model2vec/testdata/st-static", "EMBEDDING_DIM": "32"}, "EMBEDDING_DIM", "has 24 dimensions"},
	} {
		env := map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": fixtureModel2Vec, "DB_PATH": "/tmp/x.db"}
		for k, v := range tc.env {
			env[k] = v
		}
		_, err := FromEnv(lookupMap(env))
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != tc.bad || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("%v: err = %v, want an error naming %s and %q", tc.env, err, tc.bad, tc.contains)
		}
	}
}
