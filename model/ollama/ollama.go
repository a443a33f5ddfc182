// Package ollama owns the Ollama model provider of a local or remote
// Ollama server: embeddings through /api/embed ([Embedder], embed.go) and
// summaries through /api/chat ([Summarizer], ollama.go).
//
//	e := &ollama.Embedder{ModelName: "qwen3-embedding:0.6b", Dimensions: 1024}
//	vecs, err := e.Embed(ctx, []string{"first", "second"})
//	s := &ollama.Summarizer{BaseURL: "http://localhost:11434", Model: "qwen3:0.6b"}
//	summary, err := s.Summarize(ctx, prompt, text)
package ollama

import (
	"context"
	"errors"
	"strings"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/httpjson"
)

// Summarizer calls Ollama's chat API with the prompt as the system message.
type Summarizer struct {
	BaseURL   string // default http://localhost:11434 (OLLAMA_HOST)
	Model     string // SUMMARY_MODEL, default qwen3:0.6b
	MaxTokens int    // SUMMARY_MAX_TOKENS -> options.num_predict
	NumCtx    int    // SUMMARY_OLLAMA_NUM_CTX -> options.num_ctx
	Truncate  bool   // SUMMARY_OLLAMA_TRUNCATE
	Client    httpjson.Client
}

// Summarizer is what the engine's summary seam expects.
var _ model.Summarizer = (*Summarizer)(nil)

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string         `json:"model"`
	Messages []message      `json:"messages"`
	Stream   bool           `json:"stream"`
	Truncate bool           `json:"truncate"`
	Options  map[string]any `json:"options,omitempty"`
}

type chatResponse struct {
	Message message `json:"message"`
	Error   string  `json:"error"`
}

// ErrResponse is an answer without content.
var ErrResponse = errors.New("ollama: malformed response")

// Summarize asks the model for a summary of text.
func (s *Summarizer) Summarize(ctx context.Context, prompt, text string) (string, error) {
	base := s.BaseURL
	if base == "" {
		base = "http://localhost:11434"
	}
	model := s.Model
	if model == "" {
		model = "qwen3:0.6b"
	}
	opts := map[string]any{}
	if s.MaxTokens > 0 {
		opts["num_predict"] = s.MaxTokens
	}
	if s.NumCtx > 0 {
		opts["num_ctx"] = s.NumCtx
	}
	req := chatRequest{
		Model:    model,
		Messages: []message{{"system", prompt}, {"user", text}},
		Truncate: s.Truncate,
		Options:  opts,
	}
	var resp chatResponse
	if err := s.Client.Post(ctx, strings.TrimRight(base, "/")+"/api/chat", nil, req, &resp); err != nil {
		return "", err
	}
	if resp.Error != "" {
		return "", errors.Join(ErrResponse, errors.New(resp.Error))
	}
	return stripThink(resp.Message.Content), nil
}

// stripThink removes a <think>...</think> block some reasoning models
// emit even when asked not to.
func stripThink(s string) string {
	if i := strings.Index(s, "<think>"); i >= 0 {
		if j := strings.Index(s[i:], "</think>"); j >= 0 {
			s = s[:i] + s[i+j+len("</think>"):]
		}
	}
	return strings.TrimSpace(s)
}
