package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/contextd/contextd/model/httpjson"
)

func TestSummarize(t *testing.T) {
	var calls atomic.Int32
	var got chatRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, `{"error":{"message":"bad route or key"}}`, http.StatusUnauthorized)
			return
		}
		if calls.Add(1) == 1 {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":" A summary. "},"finish_reason":"stop"}]}`))
	}))
	defer srv.Close()
	s := &Summarizer{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", MaxTokens: 50, ReasoningEffort: "low",
		Client: httpjson.Client{Attempts: 3}}
	out, err := s.Summarize(context.Background(), "sys", "text")
	if err != nil || out != "A summary." {
		t.Fatalf("Summarize = %q, %v", out, err)
	}
	if calls.Load() != 2 || got.Model != "m" || got.MaxCompletionTokens != 50 || got.ReasoningEffort != "low" ||
		len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[1].Content != "text" {
		t.Fatalf("calls %d request %+v", calls.Load(), got)
	}
}

func TestSummarizeFailsAfterRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error":{"message":"down"}}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	s := &Summarizer{BaseURL: srv.URL, Model: "m", Client: httpjson.Client{Attempts: 3}}
	_, err := s.Summarize(context.Background(), "sys", "text")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 500 || calls.Load() != 3 {
		t.Fatalf("err = %v after %d calls, want HTTP 500 after 3", err, calls.Load())
	}
}
