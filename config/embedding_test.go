package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/model/ollama"
	"github.com/contextd/contextd/model/openai"
	"github.com/contextd/contextd/model/tei"
)

func embeddingConfig(t *testing.T, env map[string]string) Config {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	env["DB_PATH"] = "/tmp/x.db"
	c, err := FromEnv(lookupMap(env))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfigEmbeddingDefaults(t *testing.T) {
	c := embeddingConfig(t, nil)
	e, h, k := c.Engine.Embedding, c.Engine.Hybrid, c.Engine.Rerank
	checks := []struct {
		name      string
		got, want any
	}{
		{"EMBEDDING_PROVIDER", e.Provider, "builtin"},
		{"ENABLE_SEMANTIC_SEARCH", e.DisableSemantic, false},
		{"EMBEDDING_MAX_CONCURRENT", e.MaxConcurrent, 3},
		{"ENABLE_CHUNKING", e.DisableChunking, false},
		{"CHUNK_SIZE", e.ChunkSize, 1500},
		{"CHUNK_OVERLAP", e.ChunkOverlap, 150},
		{"Backend", e.Backend, ""},
		{"IndexDir", e.IndexDir, ""},
		{"ENABLE_HYBRID_SEARCH", h.Disable, false},
		{"HYBRID_RRF_K", h.RRFK, 60},
		{"HYBRID_SEMANTIC_WEIGHT", h.SemanticWeight, rank.DefaultSemanticWeight},
		{"HYBRID_FUSION", h.Fusion, rank.FusionConvex},
		{"HYBRID_RRF_OVERFETCH", h.Overfetch, 2},
		{"HYBRID_FTS_OR_THRESHOLD", h.ORThreshold, 4},
		{"RERANKING_PROVIDER", k.Provider, "builtin"},
		{"RERANKING_MODEL", k.Model, "lexical-semantic-v2"},
		{"ENABLE_RERANKING (off by default)", k.Reranker == nil, true},
		{"MaxPassageChars", k.MaxPassageChars, 1945},
		{"FTS_RERANK_WINDOW_SIZE", k.FTSWindow, 750},
		{"FTS_RERANK_GAP_MERGE", k.FTSGapMerge, 100},
		{"DisabledTools", len(c.Server.DisabledTools), 0},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	b, ok := e.Embedder.(*builtin.Embedder)
	if !ok || b.Dim() != 100 || b.Model() != builtin.EmbedderModel {
		t.Fatalf("embedder %#v", e.Embedder)
	}
}

func TestConfigEmbeddingOllama(t *testing.T) {
	c := embeddingConfig(t, map[string]string{
		"EMBEDDING_PROVIDER":           "Ollama",
		"OLLAMA_HOST":                  "gpu-box:11434",
		"EMBEDDING_OLLAMA_NUM_CTX":     "8192",
		"EMBEDDING_OLLAMA_TRUNCATE":    "true",
		"EMBEDDING_TIMEOUT_S":          "30",
		"EMBEDDING_RETRY_MAX_ATTEMPTS": "2",
		"EMBEDDING_RETRY_BASE_DELAY_S": "0.5",
		"EMBEDDING_MAX_CONCURRENT":     "7",
	})
	o, ok := c.Engine.Embedding.Embedder.(*ollama.Embedder)
	if !ok {
		t.Fatalf("embedder %#v", c.Engine.Embedding.Embedder)
	}
	if o.Model() != "qwen3-embedding:0.6b" || o.Dim() != 1024 || o.NumCtx != 8192 || !o.Truncate || o.BaseURL != "gpu-box:11434" ||
		o.Client.Timeout != 30*time.Second || o.Client.Attempts != 2 || o.Client.BaseDelay != 500*time.Millisecond || cap(o.Client.Limit) != 7 {
		t.Fatalf("ollama embedder %+v", o)
	}
	if c.Engine.Embedding.Provider != "ollama" || c.Engine.Embedding.MaxConcurrent != 7 {
		t.Fatalf("embedding config %+v", c.Engine.Embedding)
	}
	c = embeddingConfig(t, map[string]string{"EMBEDDING_PROVIDER": "ollama", "EMBEDDING_MODEL": "nomic-embed-text", "EMBEDDING_DIM": "768"})
	o = c.Engine.Embedding.Embedder.(*ollama.Embedder)
	if o.Model() != "nomic-embed-text" || o.Dim() != 768 || o.NumCtx != 4096 || o.Truncate || o.Client.Timeout != 240*time.Second ||
		o.Client.Attempts != 5 || o.Client.BaseDelay != time.Second || cap(o.Client.Limit) != 3 {
		t.Fatalf("ollama embedder %+v", o)
	}
}

func TestConfigEmbeddingOpenAI(t *testing.T) {
	c := embeddingConfig(t, map[string]string{"EMBEDDING_PROVIDER": "openai", "OPENAI_API_KEY": "sk-1", "OPENAI_ORGANIZATION": "org-9"})
	o, ok := c.Engine.Embedding.Embedder.(*openai.Embedder)
	if !ok || o.Model() != "text-embedding-3-small" || o.Dim() != 1536 || o.SendDimensions || o.APIKey != "sk-1" ||
		o.Organization != "org-9" || o.BaseURL != "" {
		t.Fatalf("openai embedder %#v", c.Engine.Embedding.Embedder)
	}
	c = embeddingConfig(t, map[string]string{"EMBEDDING_PROVIDER": "openai", "OPENAI_API_BASE": "http://localhost:8000/v1",
		"EMBEDDING_MODEL": "bge-m3", "EMBEDDING_DIM": "1024"})
	o = c.Engine.Embedding.Embedder.(*openai.Embedder)
	if o.Model() != "bge-m3" || o.Dim() != 1024 || !o.SendDimensions || o.BaseURL != "http://localhost:8000/v1" || o.APIKey != "" {
		t.Fatalf("openai embedder %+v", o)
	}
}

func TestConfigEmbeddingDisabled(t *testing.T) {
	c := embeddingConfig(t, map[string]string{"ENABLE_EMBEDDING_GENERATION": "false", "EMBEDDING_PROVIDER": "openai",
		"ENABLE_RERANKING": "no", "ENABLE_CHUNKING": "off"})
	if c.Engine.Embedding.Embedder != nil || c.Engine.Rerank.Reranker != nil {
		t.Fatalf("embedder %v reranker %v, want nil", c.Engine.Embedding.Embedder, c.Engine.Rerank.Reranker)
	}
	if c.Engine.Embedding.Provider != "openai" || !c.Engine.Embedding.DisableChunking {
		t.Fatalf("embedding config %+v", c.Engine.Embedding)
	}
}

func TestConfigEmbeddingToggles(t *testing.T) {
	c := embeddingConfig(t, map[string]string{"ENABLE_SEMANTIC_SEARCH": "false", "ENABLE_HYBRID_SEARCH": "disabled"})
	if !c.Engine.Embedding.DisableSemantic || !c.Engine.Hybrid.Disable ||
		strings.Join(c.Server.DisabledTools, ",") != "semantic_search_context,hybrid_search_context" {
		t.Fatalf("toggles %v %v, disabled %v", c.Engine.Embedding.DisableSemantic, c.Engine.Hybrid.Disable, c.Server.DisabledTools)
	}
	c = embeddingConfig(t, map[string]string{"ENABLE_SEMANTIC_SEARCH": "yes", "ENABLE_HYBRID_SEARCH": "AUTO"})
	if c.Engine.Embedding.DisableSemantic || c.Engine.Hybrid.Disable || len(c.Server.DisabledTools) != 0 {
		t.Fatalf("toggles %v %v, disabled %v", c.Engine.Embedding.DisableSemantic, c.Engine.Hybrid.Disable, c.Server.DisabledTools)
	}
}

func TestConfigEmbeddingValues(t *testing.T) {
	c := embeddingConfig(t, map[string]string{
		"CHUNK_SIZE": "800", "CHUNK_OVERLAP": "0", "CHUNK_AGGREGATION": "MAX",
		"HYBRID_RRF_K": "10", "HYBRID_RRF_OVERFETCH": "5", "HYBRID_FTS_OR_THRESHOLD": "3",
		"HYBRID_SEMANTIC_WEIGHT": "1", "HYBRID_FUSION": "RRF",
		"RERANKING_MAX_LENGTH": "256", "RERANKING_CHARS_PER_TOKEN": "3.5",
		"FTS_RERANK_WINDOW_SIZE": "300", "FTS_RERANK_GAP_MERGE": "0", "RERANKING_PROVIDER": "flashrank",
		"ENABLE_RERANKING": "true",
	})
	e, h, k := c.Engine.Embedding, c.Engine.Hybrid, c.Engine.Rerank
	if e.ChunkSize != 800 || e.ChunkOverlap != 0 || h.RRFK != 10 || h.Overfetch != 5 || h.ORThreshold != 3 || h.SemanticWeight != 1 || h.Fusion != rank.FusionRRF {
		t.Fatalf("embedding %+v hybrid %+v", e, h)
	}
	shared, _ := e.Embedder.(*builtin.Embedder)
	if k.Provider != "builtin" || k.Model != "lexical-semantic-v2" || k.MaxPassageChars != 851 || k.FTSWindow != 300 || k.FTSGapMerge != -1 ||
		shared == nil || blendShape(k.Reranker, shared) != "blend with the distilled table, sharing the embedder" {
		t.Fatalf("rerank %+v", k)
	}
	// RERANKING_MODEL=lexical-semantic is the first blend: the built-in
	// embedder's similarity alone.
	c = embeddingConfig(t, map[string]string{"RERANKING_MODEL": "lexical-semantic", "ENABLE_RERANKING": "true"})
	if k := c.Engine.Rerank; k.Model != "lexical-semantic" || blendShape(k.Reranker, c.Engine.Embedding.Embedder) != "blend, sharing the embedder" {
		t.Fatalf("rerank %+v", k)
	}
	// RERANKING_MODEL=lexical keeps the lexical score alone.
	c = embeddingConfig(t, map[string]string{"RERANKING_MODEL": "lexical", "ENABLE_RERANKING": "true"})
	if k := c.Engine.Rerank; k.Model != "lexical" || k.Reranker != (builtin.Lexical{}) {
		t.Fatalf("rerank %+v", k)
	}
}

func TestConfigRerankTEI(t *testing.T) {
	c := embeddingConfig(t, map[string]string{"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "TEI", "RERANKING_URL": "http://reranker:8080",
		"RERANKING_MODEL": "BAAI/bge-reranker-base", "RERANKING_BATCH_SIZE": "16"})
	tr, ok := c.Engine.Rerank.Reranker.(*tei.Reranker)
	if !ok || tr.URL != "http://reranker:8080" || tr.Model != "BAAI/bge-reranker-base" || tr.BatchSize != 16 || tr.Client.Timeout <= 0 {
		t.Fatalf("reranker %#v", c.Engine.Rerank.Reranker)
	}
	if c.Engine.Rerank.Provider != "tei" || c.Engine.Rerank.Model != "BAAI/bge-reranker-base" {
		t.Fatalf("rerank %+v", c.Engine.Rerank)
	}
	// Reranking switched off: the URL is not required.
	c = embeddingConfig(t, map[string]string{"RERANKING_PROVIDER": "tei", "ENABLE_RERANKING": "false"})
	if c.Engine.Rerank.Reranker != nil {
		t.Fatalf("reranker %#v, want nil", c.Engine.Rerank.Reranker)
	}
}

func TestConfigEmbeddingUnsupportedProviderOneError(t *testing.T) {
	_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "EMBEDDING_PROVIDER": "voyage",
		"EMBEDDING_MODEL": "voyage-3", "EMBEDDING_DIM": "1024"}))
	var ce *Error
	if !errors.As(err, &ce) || ce.Var != "EMBEDDING_PROVIDER" || strings.Contains(err.Error(), "EMBEDDING_DIM") {
		t.Fatalf("err = %v, want only the EMBEDDING_PROVIDER error", err)
	}
}

func TestConfigEmbeddingInvalid(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		bad  string // the variable the error names
		want string // substring of the message
	}{
		{"generation flag", map[string]string{"ENABLE_EMBEDDING_GENERATION": "maybe"}, "ENABLE_EMBEDDING_GENERATION", "must be a boolean"},
		{"provider unknown", map[string]string{"EMBEDDING_PROVIDER": "cohere"}, "EMBEDDING_PROVIDER", "must be one of builtin, ollama, openai"},
		{"provider azure", map[string]string{"EMBEDDING_PROVIDER": "azure"}, "EMBEDDING_PROVIDER", "not supported by this build"},
		{"provider huggingface", map[string]string{"EMBEDDING_PROVIDER": "HuggingFace"}, "EMBEDDING_PROVIDER", "not supported by this build"},
		{"provider voyage", map[string]string{"EMBEDDING_PROVIDER": "voyage"}, "EMBEDDING_PROVIDER", "not supported by this build"},
		{"builtin dim 384", map[string]string{"EMBEDDING_DIM": "384"}, "EMBEDDING_DIM", "exactly 100 dimensions"},
		{"builtin model", map[string]string{"EMBEDDING_MODEL": "all-MiniLM-L6-v2"}, "EMBEDDING_MODEL", "one model"},
		{"dim 0", map[string]string{"EMBEDDING_PROVIDER": "ollama", "EMBEDDING_DIM": "0"}, "EMBEDDING_DIM", "from 1 to 4096"},
		{"dim 4097", map[string]string{"EMBEDDING_PROVIDER": "ollama", "EMBEDDING_DIM": "4097"}, "EMBEDDING_DIM", "from 1 to 4096"},
		{"dim text", map[string]string{"EMBEDDING_PROVIDER": "openai", "OPENAI_API_KEY": "k", "EMBEDDING_DIM": "big"}, "EMBEDDING_DIM", "from 1 to 4096"},
		{"timeout 0", map[string]string{"EMBEDDING_TIMEOUT_S": "0"}, "EMBEDDING_TIMEOUT_S", "greater than 0 and at most 300"},
		{"timeout high", map[string]string{"EMBEDDING_TIMEOUT_S": "301"}, "EMBEDDING_TIMEOUT_S", "at most 300"},
		{"attempts 0", map[string]string{"EMBEDDING_RETRY_MAX_ATTEMPTS": "0"}, "EMBEDDING_RETRY_MAX_ATTEMPTS", "from 1 to 10"},
		{"attempts 11", map[string]string{"EMBEDDING_RETRY_MAX_ATTEMPTS": "11"}, "EMBEDDING_RETRY_MAX_ATTEMPTS", "from 1 to 10"},
		{"delay 0", map[string]string{"EMBEDDING_RETRY_BASE_DELAY_S": "0"}, "EMBEDDING_RETRY_BASE_DELAY_S", "greater than 0 and at most 30"},
		{"delay high", map[string]string{"EMBEDDING_RETRY_BASE_DELAY_S": "30.5"}, "EMBEDDING_RETRY_BASE_DELAY_S", "at most 30"},
		{"concurrent 0", map[string]string{"EMBEDDING_MAX_CONCURRENT": "0"}, "EMBEDDING_MAX_CONCURRENT", "from 1 to 20"},
		{"concurrent 21", map[string]string{"EMBEDDING_MAX_CONCURRENT": "21"}, "EMBEDDING_MAX_CONCURRENT", "from 1 to 20"},
		{"num ctx low", map[string]string{"EMBEDDING_OLLAMA_NUM_CTX": "511"}, "EMBEDDING_OLLAMA_NUM_CTX", "from 512 to 2097152"},
		{"num ctx high", map[string]string{"EMBEDDING_OLLAMA_NUM_CTX": "2097153"}, "EMBEDDING_OLLAMA_NUM_CTX", "from 512 to 2097152"},
		{"truncate", map[string]string{"EMBEDDING_OLLAMA_TRUNCATE": "perhaps"}, "EMBEDDING_OLLAMA_TRUNCATE", "must be a boolean"},
		{"openai without key", map[string]string{"EMBEDDING_PROVIDER": "openai"}, "OPENAI_API_KEY", "must be set"},
		{"semantic", map[string]string{"ENABLE_SEMANTIC_SEARCH": "sometimes"}, "ENABLE_SEMANTIC_SEARCH", "must be auto, true or false"},
		{"chunking", map[string]string{"ENABLE_CHUNKING": "2"}, "ENABLE_CHUNKING", "must be a boolean"},
		{"chunk size low", map[string]string{"CHUNK_SIZE": "99"}, "CHUNK_SIZE", "from 100 to 10000"},
		{"chunk size high", map[string]string{"CHUNK_SIZE": "10001"}, "CHUNK_SIZE", "from 100 to 10000"},
		{"overlap negative", map[string]string{"CHUNK_OVERLAP": "-1"}, "CHUNK_OVERLAP", "from 0 to 500"},
		{"overlap high", map[string]string{"CHUNK_OVERLAP": "501"}, "CHUNK_OVERLAP", "from 0 to 500"},
		{"overlap not below size", map[string]string{"CHUNK_SIZE": "200", "CHUNK_OVERLAP": "200"}, "CHUNK_OVERLAP", "must be less than CHUNK_SIZE (200)"},
		{"aggregation", map[string]string{"CHUNK_AGGREGATION": "mean"}, "CHUNK_AGGREGATION", "must be one of max"},
		{"hybrid", map[string]string{"ENABLE_HYBRID_SEARCH": "x"}, "ENABLE_HYBRID_SEARCH", "must be auto, true or false"},
		{"rrf k 0", map[string]string{"HYBRID_RRF_K": "0"}, "HYBRID_RRF_K", "from 1 to 1000"},
		{"rrf k high", map[string]string{"HYBRID_RRF_K": "1001"}, "HYBRID_RRF_K", "from 1 to 1000"},
		{"semantic weight 0", map[string]string{"HYBRID_SEMANTIC_WEIGHT": "0"}, "HYBRID_SEMANTIC_WEIGHT", "from 0.05 to 1"},
		{"semantic weight nan", map[string]string{"HYBRID_SEMANTIC_WEIGHT": "NaN"}, "HYBRID_SEMANTIC_WEIGHT", "from 0.05 to 1"},
		{"fusion", map[string]string{"HYBRID_FUSION": "weighted"}, "HYBRID_FUSION", "must be one of convex, rrf"},
		{"overfetch 0", map[string]string{"HYBRID_RRF_OVERFETCH": "0"}, "HYBRID_RRF_OVERFETCH", "from 1 to 10"},
		{"overfetch 11", map[string]string{"HYBRID_RRF_OVERFETCH": "11"}, "HYBRID_RRF_OVERFETCH", "from 1 to 10"},
		{"or threshold 1", map[string]string{"HYBRID_FTS_OR_THRESHOLD": "1"}, "HYBRID_FTS_OR_THRESHOLD", "from 2 to 20"},
		{"or threshold 21", map[string]string{"HYBRID_FTS_OR_THRESHOLD": "21"}, "HYBRID_FTS_OR_THRESHOLD", "from 2 to 20"},
		{"reranking flag", map[string]string{"ENABLE_RERANKING": "sure"}, "ENABLE_RERANKING", "must be a boolean"},
		{"reranking provider", map[string]string{"RERANKING_PROVIDER": "cohere"}, "RERANKING_PROVIDER", "must be one of builtin, flashrank, tei"},
		{"tei without url", map[string]string{"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "tei"}, "RERANKING_URL", "text-embeddings-inference"},
		{"tei bad url", map[string]string{"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "tei", "RERANKING_URL": "reranker:8080"}, "RERANKING_URL", "http(s) URL"},
		{"max length low", map[string]string{"RERANKING_MAX_LENGTH": "127"}, "RERANKING_MAX_LENGTH", "from 128 to 2048"},
		{"max length high", map[string]string{"RERANKING_MAX_LENGTH": "2049"}, "RERANKING_MAX_LENGTH", "from 128 to 2048"},
		{"chars per token low", map[string]string{"RERANKING_CHARS_PER_TOKEN": "1.9"}, "RERANKING_CHARS_PER_TOKEN", "from 2 to 8"},
		{"chars per token high", map[string]string{"RERANKING_CHARS_PER_TOKEN": "8.1"}, "RERANKING_CHARS_PER_TOKEN", "from 2 to 8"},
		{"chars per token nan", map[string]string{"RERANKING_CHARS_PER_TOKEN": "NaN"}, "RERANKING_CHARS_PER_TOKEN", "from 2 to 8"},
		{"rerank batch", map[string]string{"RERANKING_BATCH_SIZE": "0"}, "RERANKING_BATCH_SIZE", "from 1 to 1024"},
		{"window low", map[string]string{"FTS_RERANK_WINDOW_SIZE": "99"}, "FTS_RERANK_WINDOW_SIZE", "from 100 to 2000"},
		{"window high", map[string]string{"FTS_RERANK_WINDOW_SIZE": "2001"}, "FTS_RERANK_WINDOW_SIZE", "from 100 to 2000"},
		{"gap negative", map[string]string{"FTS_RERANK_GAP_MERGE": "-1"}, "FTS_RERANK_GAP_MERGE", "from 0 to 500"},
		{"gap high", map[string]string{"FTS_RERANK_GAP_MERGE": "501"}, "FTS_RERANK_GAP_MERGE", "from 0 to 500"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["DB_PATH"] = "/tmp/x.db"
			_, err := FromEnv(lookupMap(tc.env))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *Error", err)
			}
			if ce.Var != tc.bad {
				t.Fatalf("Var: got %s (%v), want %s", ce.Var, err, tc.bad)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.bad) || !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q must name %s and contain %q", msg, tc.bad, tc.want)
			}
		})
	}
}

// blendShape describes r as a built-in blend: with or without the
// distilled table, sharing em (the configured embedder) or not.
func blendShape(r, em any) string {
	b, ok := r.(builtin.Blend)
	if !ok {
		return fmt.Sprintf("%T", r)
	}
	s := "blend"
	if b.Distilled != nil {
		s += " with the distilled table"
	}
	if b.Embedder == nil || b.Embedder != sharedEmbedder(em) {
		return s + ", with its own embedder"
	}
	return s + ", sharing the embedder"
}

// sharedEmbedder is em as the built-in embedder, or nil.
func sharedEmbedder(em any) *builtin.Embedder {
	b, _ := em.(*builtin.Embedder)
	return b
}
