package ollama

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
	var got chatRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = w.Write([]byte(`{"model":"qwen3:0.6b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"<think>hmm</think>\nThe summary."},"done":true}`))
	}))
	defer srv.Close()
	s := &Summarizer{BaseURL: srv.URL, MaxTokens: 77, NumCtx: 1024}
	out, err := s.Summarize(context.Background(), "sys", "text")
	if err != nil || out != "The summary." {
		t.Fatalf("Summarize = %q, %v", out, err)
	}
	if got.Model != "qwen3:0.6b" || got.Stream || got.Options["num_predict"] != float64(77) || got.Options["num_ctx"] != float64(1024) ||
		got.Messages[0].Role != "system" || got.Messages[1].Content != "text" {
		t.Fatalf("request %+v", got)
	}
}

func TestSummarizeFailsAfterRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"model 'x' not found"}`))
	}))
	defer srv.Close()
	s := &Summarizer{BaseURL: srv.URL, Model: "x", Client: httpjson.Client{Attempts: 5}}
	_, err := s.Summarize(context.Background(), "sys", "text")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 404 || calls.Load() != 1 {
		t.Fatalf("err = %v after %d calls, want one non-retried 404", err, calls.Load())
	}
}
