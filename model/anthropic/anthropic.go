// Package anthropic owns the Anthropic model provider: summaries through
// the Messages API ([Summarizer]).
//
//	s := &anthropic.Summarizer{APIKey: key, Model: "claude-haiku-4-5"}
//	summary, err := s.Summarize(ctx, prompt, text)
package anthropic

import (
	"context"
	"errors"
	"strings"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/httpjson"
)

// APIVersion is the anthropic-version header value.
const APIVersion = "2023-06-01"

// Summarizer calls POST {BaseURL}/v1/messages.
type Summarizer struct {
	BaseURL   string // default https://api.anthropic.com
	APIKey    string // ANTHROPIC_API_KEY
	Model     string // SUMMARY_MODEL
	MaxTokens int    // SUMMARY_MAX_TOKENS (default 4000)
	Effort    string // SUMMARY_ANTHROPIC_EFFORT ("" omits it)
	Client    httpjson.Client
}

// Summarizer is what the engine's summary seam expects.
var _ model.Summarizer = (*Summarizer)(nil)

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type messagesRequest struct {
	Model        string         `json:"model"`
	MaxTokens    int            `json:"max_tokens"`
	System       string         `json:"system,omitempty"`
	Messages     []message      `json:"messages"`
	OutputConfig map[string]any `json:"output_config,omitempty"`
}

type messagesResponse struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// ErrResponse is an answer without a text block.
var ErrResponse = errors.New("anthropic: response has no text content")

// Summarize asks the model for a summary of text.
func (s *Summarizer) Summarize(ctx context.Context, prompt, text string) (string, error) {
	base := s.BaseURL
	if base == "" {
		base = "https://api.anthropic.com"
	}
	maxTokens := s.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 4000
	}
	req := messagesRequest{
		Model: s.Model, MaxTokens: maxTokens, System: prompt,
		Messages: []message{{"user", text}},
	}
	if s.Effort != "" {
		req.OutputConfig = map[string]any{"effort": s.Effort}
	}
	headers := map[string]string{"x-api-key": s.APIKey, "anthropic-version": APIVersion}
	var resp messagesResponse
	if err := s.Client.Post(ctx, strings.TrimRight(base, "/")+"/v1/messages", headers, req, &resp); err != nil {
		return "", err
	}
	var parts []string
	for _, c := range resp.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 0 {
		return "", ErrResponse
	}
	return strings.TrimSpace(strings.Join(parts, "")), nil
}
