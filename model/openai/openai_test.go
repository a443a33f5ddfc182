package openai

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/model/httpjson"
)

func TestSummarize(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Handler: func(r fakeapi.Request) fakeapi.Reply {
		switch {
		case r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k":
			return fakeapi.Reply{Status: http.StatusUnauthorized, Body: `{"error":{"message":"bad route or key"}}`}
		case r.N == 1:
			return fakeapi.Reply{Status: http.StatusServiceUnavailable, Body: `{"error":{"message":"overloaded"}}`}
		}
		return fakeapi.Reply{Body: `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":" A summary. "},"finish_reason":"stop"}]}`}
	}})
	s := &Summarizer{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", MaxTokens: 50, ReasoningEffort: "low",
		Client: httpjson.Client{Attempts: 3}}
	out, err := s.Summarize(context.Background(), "sys", "text")
	if err != nil || out != "A summary." {
		t.Fatalf("Summarize = %q, %v", out, err)
	}
	var got chatRequest
	if err := srv.Requests()[1].JSON(&got); err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 || got.Model != "m" || got.MaxCompletionTokens != 50 || got.ReasoningEffort != "low" ||
		len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[1].Content != "text" {
		t.Fatalf("calls %d request %+v", srv.Calls(), got)
	}
}

func TestSummarizeFailsAfterRetries(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusInternalServerError, Body: `{"error":{"message":"down"}}`}}})
	s := &Summarizer{BaseURL: srv.URL, Model: "m", Client: httpjson.Client{Attempts: 3}}
	_, err := s.Summarize(context.Background(), "sys", "text")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 500 || srv.Calls() != 3 {
		t.Fatalf("err = %v after %d calls, want HTTP 500 after 3", err, srv.Calls())
	}
}
