package anthropic

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
		if r.Path != "/v1/messages" || r.Header.Get("x-api-key") != "k" || r.Header.Get("anthropic-version") != APIVersion {
			return fakeapi.Reply{Status: http.StatusUnauthorized, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}
		}
		return fakeapi.Reply{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"..."},{"type":"text","text":"The summary."}],"stop_reason":"end_turn"}`}
	}})
	s := &Summarizer{BaseURL: srv.URL, APIKey: "k", Model: "m", MaxTokens: 99}
	out, err := s.Summarize(context.Background(), "sys", "text")
	if err != nil || out != "The summary." {
		t.Fatalf("Summarize = %q, %v", out, err)
	}
	var got messagesRequest
	if err := srv.Requests()[0].JSON(&got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "m" || got.MaxTokens != 99 || got.System != "sys" || len(got.Messages) != 1 || got.Messages[0].Content != "text" {
		t.Fatalf("request %+v", got)
	}
}

func TestSummarizeFailsAfterRetries(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}}})
	s := &Summarizer{BaseURL: srv.URL, APIKey: "k", Model: "m", Client: httpjson.Client{Attempts: 2}}
	_, err := s.Summarize(context.Background(), "sys", "text")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 529 || srv.Calls() != 2 {
		t.Fatalf("err = %v after %d calls, want 529 after 2", err, srv.Calls())
	}
}
