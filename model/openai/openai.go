// Package openai owns the OpenAI (and OpenAI-compatible server) model
// provider: embeddings through the Embeddings API ([Embedder], embed.go)
// and summaries through the Chat Completions API ([Summarizer],
// openai.go).
//
//	e := &openai.Embedder{APIKey: key, ModelName: "text-embedding-3-small", Dimensions: 1536}
//	vecs, err := e.Embed(ctx, []string{"first", "second"})
//	s := &openai.Summarizer{APIKey: key, Model: "gpt-4o-mini"}
//	summary, err := s.Summarize(ctx, prompt, text)
package openai

import (
	"context"
	"errors"
	"strings"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/httpjson"
)

// Summarizer calls POST {BaseURL}/chat/completions.
type Summarizer struct {
	BaseURL         string // default https://api.openai.com/v1 (OPENAI_API_BASE)
	APIKey          string // OPENAI_API_KEY
	Model           string // SUMMARY_MODEL
	MaxTokens       int    // SUMMARY_MAX_TOKENS -> max_completion_tokens
	ReasoningEffort string // SUMMARY_OPENAI_REASONING_EFFORT ("" omits it)
	Client          httpjson.Client
}

// Summarizer is what the engine's summary seam expects.
var _ model.Summarizer = (*Summarizer)(nil)

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model               string    `json:"model"`
	Messages            []message `json:"messages"`
	MaxCompletionTokens int       `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string    `json:"reasoning_effort,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message message `json:"message"`
	} `json:"choices"`
}

// ErrResponse is an answer without a choice.
var ErrResponse = errors.New("openai: response has no choices")

// Summarize asks the model for a summary of text.
func (s *Summarizer) Summarize(ctx context.Context, prompt, text string) (string, error) {
	base := s.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	req := chatRequest{
		Model:               s.Model,
		Messages:            []message{{"system", prompt}, {"user", text}},
		MaxCompletionTokens: s.MaxTokens,
		ReasoningEffort:     s.ReasoningEffort,
	}
	headers := map[string]string{}
	if s.APIKey != "" {
		headers["Authorization"] = "Bearer " + s.APIKey
	}
	var resp chatResponse
	if err := s.Client.Post(ctx, strings.TrimRight(base, "/")+"/chat/completions", headers, req, &resp); err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", ErrResponse
	}
	return strings.TrimSpace(resp.Choices[0].Message.Content), nil
}
