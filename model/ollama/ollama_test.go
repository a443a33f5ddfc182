package ollama

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/model/httpjson"
)

func TestSummarize(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Path: "/api/chat", Script: []fakeapi.Reply{
		{Body: `{"model":"qwen3:0.6b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"<think>hmm</think>\nThe summary."},"done":true}`}}})
	s := &Summarizer{BaseURL: srv.URL, MaxTokens: 77, NumCtx: 1024}
	out, err := s.Summarize(context.Background(), "sys", "text")
	if err != nil || out != "The summary." {
		t.Fatalf("Summarize = %q, %v", out, err)
	}
	var got chatRequest
	if err := srv.Requests()[0].JSON(&got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "qwen3:0.6b" || got.Stream || got.Options["num_predict"] != float64(77) || got.Options["num_ctx"] != float64(1024) ||
		got.Messages[0].Role != "system" || got.Messages[1].Content != "text" {
		t.Fatalf("request %+v", got)
	}
}

func TestSummarizeFailsAfterRetries(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusNotFound, Body: `{"error":"model 'x' not found"}`}}})
	s := &Summarizer{BaseURL: srv.URL, Model: "x", Client: httpjson.Client{Attempts: 5}}
	_, err := s.Summarize(context.Background(), "sys", "text")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 404 || srv.Calls() != 1 {
		t.Fatalf("err = %v after %d calls, want one non-retried 404", err, srv.Calls())
	}
}
