package server_test

import (
	"context"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/config"
)

// localModelEnv names a model folder for EMBEDDING_PROVIDER=local: with it
// set, every env of the suite that configures no embedder of its own
// embeds every write and serves semantic and hybrid search with that
// model, loaded the way the binary loads it (config.FromEnv), so one run
// of the suite shows every tool working with a local model:
//
//	CONTEXTD_TEST_EMBEDDING_MODEL_PATH=$PWD/model/local/testdata/mean-norm go test ./server
//
// Tests that pin the built-in embedder's rankings keep it (they configure
// it themselves).
const localModelEnv = "CONTEXTD_TEST_EMBEDDING_MODEL_PATH"

var localModel struct {
	once sync.Once
	em   contextd.Embedder
	err  error
}

// localTestEmbedder is the model of localModelEnv (nil when unset).
func localTestEmbedder(t testing.TB) contextd.Embedder {
	t.Helper()
	path := os.Getenv(localModelEnv)
	if path == "" {
		return nil
	}
	localModel.once.Do(func() {
		vars := map[string]string{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": path, "DB_PATH": "unused.db"}
		c, err := config.FromEnv(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
		localModel.em, localModel.err = c.Engine.Embedding.Embedder, err
	})
	if localModel.err != nil {
		t.Fatalf("%s: %v", localModelEnv, localModel.err)
	}
	return localModel.em
}

// withNoEmbedder marks a test about the configuration without an
// embedder (tool registration, full-text-only hybrid search, response
// messages without "embedding generated"): localModelEnv leaves it so.
func withNoEmbedder() envOption {
	return func(s *envSettings) { s.noEmbedder = true }
}

// TestLocalCrossEncoderReranks: RERANKING_PROVIDER=local (the fixture
// cross-encoder, loaded through config.FromEnv) reranks semantic and
// hybrid results: every rerank_score is the model's own sigmoid score of
// (query, text), and the results come in descending order of it.
func TestLocalCrossEncoderReranks(t *testing.T) {
	vars := map[string]string{"DB_PATH": "unused.db", "ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "local",
		"RERANKING_MODEL_PATH": "../model/local/testdata/cross"}
	c, err := config.FromEnv(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	ce := c.Engine.Rerank.Reranker
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		env.storeAll(t, "alice", []M{
			{"thread_id": "r", "source": "user", "text": "The car engine failure in winter was caused by the battery."},
			{"thread_id": "r", "source": "user", "text": "A song about the sea and a bird."},
			{"thread_id": "r", "source": "user", "text": "Write a test, run it, then patch the code and commit the fix."},
			{"thread_id": "r", "source": "user", "text": "The driver checked the oil and the brake before the winter."},
		})
		const query = "engine failure in winter"
		for _, tool := range []string{"semantic_search_context", "hybrid_search_context"} {
			resp := env.call(t, "alice", tool, M{"query": query, "limit": 10}).ok(t)
			results := objs(t, arr(t, resp, "results"))
			if len(results) == 0 {
				t.Fatalf("%s: no results", tool)
			}
			prev := 2.0
			for _, r := range results {
				got := num(t, obj(t, r, "scores"), "rerank_score")
				want, err := ce.Rerank(context.Background(), query, []string{str(t, r, "text_content")})
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want[0]) > 1e-3 || got > prev {
					t.Fatalf("%s: rerank_score %v after %v, the model scores %v", tool, got, prev, want[0])
				}
				prev = got
			}
		}
	}, withReranker(ce))
}
