package anthropic

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
	var got messagesRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get("x-api-key") != "k" || r.Header.Get("anthropic-version") != APIVersion {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"..."},{"type":"text","text":"The summary."}],"stop_reason":"end_turn"}`))
	}))
	defer srv.Close()
	s := &Summarizer{BaseURL: srv.URL, APIKey: "k", Model: "m", MaxTokens: 99}
	out, err := s.Summarize(context.Background(), "sys", "text")
	if err != nil || out != "The summary." {
		t.Fatalf("Summarize = %q, %v", out, err)
	}
	if got.Model != "m" || got.MaxTokens != 99 || got.System != "sys" || len(got.Messages) != 1 || got.Messages[0].Content != "text" {
		t.Fatalf("request %+v", got)
	}
}

func TestSummarizeFailsAfterRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(529)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	}))
	defer srv.Close()
	s := &Summarizer{BaseURL: srv.URL, APIKey: "k", Model: "m", Client: httpjson.Client{Attempts: 2}}
	_, err := s.Summarize(context.Background(), "sys", "text")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 529 || calls.Load() != 2 {
		t.Fatalf("err = %v after %d calls, want 529 after 2", err, calls.Load())
	}
}
