package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/httpjson"
)

// Default embedding model and its dimension (EMBEDDING_MODEL,
// EMBEDDING_DIM for EMBEDDING_PROVIDER=openai).
const (
	DefaultEmbedModel = "text-embedding-3-small"
	DefaultEmbedDim   = 1536
	// DefaultEmbedBatch is the number of texts one request carries when
	// BatchSize is 0 (the API accepts up to 2048 inputs per request).
	DefaultEmbedBatch = 128
)

// ErrEmbedResponse is an embeddings answer that does not fit the request:
// a missing, duplicated or out-of-range index, a vector of the wrong
// length, or a non-finite value.
var ErrEmbedResponse = errors.New("openai: malformed embeddings response")

// Embedder calls POST {BaseURL}/embeddings of OpenAI or of an
// OpenAI-compatible server (vLLM, LM Studio, llama.cpp, LiteLLM, ...).
// Texts are sent in batches of BatchSize; batches run concurrently up to
// the capacity of Client.Limit (one at a time without a limit). Every
// answer is checked: one vector per text (placed by its index), each of
// Dimensions values, all finite.
//
//	e := &openai.Embedder{APIKey: key, ModelName: "text-embedding-3-small", Dimensions: 1536}
//	vecs, err := e.Embed(ctx, []string{"first", "second"})
type Embedder struct {
	BaseURL      string // default https://api.openai.com/v1 (OPENAI_API_BASE)
	APIKey       string // OPENAI_API_KEY; sent as Authorization: Bearer
	Organization string // OPENAI_ORGANIZATION; sent as OpenAI-Organization ("" omits it)
	ModelName    string // EMBEDDING_MODEL; default DefaultEmbedModel
	Dimensions   int    // EMBEDDING_DIM; 0 skips the length check (Dim then reports 0)
	// SendDimensions sends Dimensions as the request's "dimensions"
	// (text-embedding-3 models shorten their vectors; older models and
	// many compatible servers reject the field).
	SendDimensions bool
	BatchSize      int // texts per request; 0 means DefaultEmbedBatch
	Client         httpjson.Client
}

// Embedder is what the engine's embedding seam expects.
var _ model.Embedder = (*Embedder)(nil)

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
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
	base := e.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	model := e.Model()
	req := embedRequest{Model: model, Input: texts, EncodingFormat: "float"}
	if e.SendDimensions && e.Dimensions > 0 {
		req.Dimensions = e.Dimensions
	}
	headers := map[string]string{}
	if e.APIKey != "" {
		headers["Authorization"] = "Bearer " + e.APIKey
	}
	if e.Organization != "" {
		headers["OpenAI-Organization"] = e.Organization
	}
	var resp embedResponse
	if err := e.Client.Post(ctx, strings.TrimRight(base, "/")+"/embeddings", headers, req, &resp); err != nil {
		return nil, fmt.Errorf("openai embeddings (model %q): %w", model, err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("%w: model %q returned %d embeddings for %d texts", ErrEmbedResponse, model, len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: model %q returned index %d twice or out of range for %d texts", ErrEmbedResponse, model, d.Index, len(texts))
		}
		f, err := httpjson.Vector(model, e.Dimensions, d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrEmbedResponse, err)
		}
		out[d.Index] = f
	}
	return out, nil
}
