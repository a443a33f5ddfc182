package ollama

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/httpjson"
)

// Default embedding model and its dimension (EMBEDDING_MODEL,
// EMBEDDING_DIM for EMBEDDING_PROVIDER=ollama).
const (
	DefaultEmbedModel = "qwen3-embedding:0.6b"
	DefaultEmbedDim   = 1024
	// DefaultEmbedBatch is the number of texts one /api/embed request
	// carries when BatchSize is 0.
	DefaultEmbedBatch = 32
)

// Embedder calls Ollama's POST /api/embed. Texts are sent in batches of
// BatchSize; batches run concurrently up to the capacity of Client.Limit
// (one at a time without a limit). Every answer is checked: one vector
// per text, each of Dimensions values, all finite.
//
//	e := &ollama.Embedder{ModelName: "qwen3-embedding:0.6b", Dimensions: 1024}
//	vecs, err := e.Embed(ctx, []string{"first", "second"})
type Embedder struct {
	BaseURL    string // OLLAMA_HOST; default http://localhost:11434 (a bare host:port gets http://)
	ModelName  string // EMBEDDING_MODEL; default DefaultEmbedModel
	Dimensions int    // EMBEDDING_DIM; 0 skips the length check (Dim then reports 0)
	NumCtx     int    // EMBEDDING_OLLAMA_NUM_CTX -> options.num_ctx (0 omits it)
	Truncate   bool   // EMBEDDING_OLLAMA_TRUNCATE -> truncate
	BatchSize  int    // texts per request; 0 means DefaultEmbedBatch
	Client     httpjson.Client
}

// Embedder is what the engine's embedding seam expects.
var _ model.Embedder = (*Embedder)(nil)

type embedRequest struct {
	Model    string         `json:"model"`
	Input    []string       `json:"input"`
	Truncate bool           `json:"truncate"`
	Options  map[string]any `json:"options,omitempty"`
}

type embedResponse struct {
	Model      string      `json:"model"`
	Embeddings [][]float64 `json:"embeddings"`
	Error      string      `json:"error"`
}

// Dim is the configured dimension.
func (e *Embedder) Dim() int { return e.Dimensions }

// Model is the configured model name (DefaultEmbedModel when empty).
func (e *Embedder) Model() string {
	if e.ModelName == "" {
		return DefaultEmbedModel
	}
	return e.ModelName
}

// Embed returns one vector per text, in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	size := e.BatchSize
	if size <= 0 {
		size = DefaultEmbedBatch
	}
	return httpjson.Batched(ctx, texts, size, cap(e.Client.Limit), e.embedBatch)
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	model := e.Model()
	req := embedRequest{Model: model, Input: texts, Truncate: e.Truncate}
	if e.NumCtx > 0 {
		req.Options = map[string]any{"num_ctx": e.NumCtx}
	}
	var resp embedResponse
	if err := e.Client.Post(ctx, BaseURL(e.BaseURL)+"/api/embed", nil, req, &resp); err != nil {
		return nil, fmt.Errorf("ollama embed (model %q): %w", model, err)
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("%w: %s", ErrResponse, resp.Error)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("%w: model %q returned %d embeddings for %d texts", ErrResponse, model, len(resp.Embeddings), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, v := range resp.Embeddings {
		f, err := httpjson.Vector(model, e.Dimensions, v)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrResponse, err)
		}
		out[i] = f
	}
	return out, nil
}

// BaseURL normalizes an OLLAMA_HOST value: empty means
// http://localhost:11434, a value without a scheme gets http://, and a
// trailing slash is dropped.
func BaseURL(host string) string {
	host = strings.TrimSpace(host)
	if host == "" {
		return "http://localhost:11434"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return strings.TrimRight(host, "/")
}
