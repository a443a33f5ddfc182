package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/model/httpjson"
)

// embedAPI answers /api/embed like Ollama, with dim-sized vectors
// (fakeapi.Vector), each answer held back by delay.
func embedAPI(t *testing.T, dim int, delay time.Duration) *fakeapi.Server {
	t.Helper()
	return fakeapi.New(t, fakeapi.Config{Path: "/api/embed", Delay: delay, Handler: func(r fakeapi.Request) fakeapi.Reply {
		var req embedRequest
		if err := r.JSON(&req); err != nil {
			return fakeapi.Reply{Status: http.StatusBadRequest, Body: `{"error":"bad json"}`}
		}
		resp := embedResponse{Model: req.Model}
		for _, s := range req.Input {
			resp.Embeddings = append(resp.Embeddings, fakeapi.Vector(s, dim))
		}
		return fakeapi.Reply{Body: resp}
	}})
}

func TestEmbedRequestAndOrder(t *testing.T) {
	srv := embedAPI(t, 4, 0)
	e := &Embedder{BaseURL: srv.URL + "/", Dimensions: 4, NumCtx: 2048, Truncate: true, BatchSize: 3,
		Client: httpjson.Client{Limit: make(chan struct{}, 3)}}
	out, err := e.Embed(context.Background(), fakeapi.Texts(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 10 {
		t.Fatalf("got %d vectors", len(out))
	}
	for i, v := range out {
		if len(v) != 4 || v[0] != float32(i) || v[3] != float32(i+3) {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	reqs := srv.Requests()
	for _, r := range reqs {
		var req embedRequest
		if err := r.JSON(&req); err != nil {
			t.Fatal(err)
		}
		if req.Model != DefaultEmbedModel || !req.Truncate || req.Options["num_ctx"] != float64(2048) || len(req.Input) > 3 {
			t.Fatalf("request %+v", req)
		}
	}
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 batches", len(reqs))
	}
	if e.Dim() != 4 || e.Model() != DefaultEmbedModel {
		t.Fatalf("Dim/Model = %d %q", e.Dim(), e.Model())
	}
}

func TestEmbedRawRequestShape(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Body: `{"model":"m","embeddings":[[0.1,0.2]],"total_duration":1,"load_duration":1,"prompt_eval_count":2}`}}})
	e := &Embedder{BaseURL: strings.TrimPrefix(srv.URL, "http://"), ModelName: "m", Dimensions: 2}
	out, err := e.Embed(context.Background(), []string{"hello"})
	if err != nil || len(out) != 1 || out[0][1] != float32(0.2) {
		t.Fatalf("Embed = %v, %v", out, err)
	}
	var raw map[string]any
	if err := srv.Requests()[0].JSON(&raw); err != nil {
		t.Fatal(err)
	}
	if raw["model"] != "m" || raw["truncate"] != false || fmt.Sprint(raw["input"]) != "[hello]" {
		t.Fatalf("request %v", raw)
	}
	if _, ok := raw["options"]; ok {
		t.Fatalf("options sent without num_ctx: %v", raw)
	}
}

func TestEmbedEmpty(t *testing.T) {
	e := &Embedder{BaseURL: "http://127.0.0.1:1"}
	out, err := e.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("Embed(nil) = %v, %v", out, err)
	}
}

func TestEmbedRetriesThenSucceeds(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusTooManyRequests},
		{Status: http.StatusServiceUnavailable},
		{Body: `{"model":"m","embeddings":[[1,2,3]]}`},
	}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 3, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
	out, err := e.Embed(context.Background(), []string{"x"})
	if err != nil || len(out) != 1 || srv.Calls() != 3 {
		t.Fatalf("Embed = %v, %v after %d calls", out, err, srv.Calls())
	}
}

func TestEmbedGivesUp(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusInternalServerError, Body: `{"error":"llama runner process has terminated"}`}}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 3, Client: httpjson.Client{Attempts: 4, BaseDelay: time.Millisecond}}
	_, err := e.Embed(context.Background(), []string{"x"})
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 500 || srv.Calls() != 4 || !strings.Contains(err.Error(), "llama runner") {
		t.Fatalf("err = %v after %d calls, want HTTP 500 after 4", err, srv.Calls())
	}
}

func TestEmbedTimeout(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Delay: 5 * time.Second})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 3, Client: httpjson.Client{Timeout: 50 * time.Millisecond}}
	start := time.Now()
	_, err := e.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %v, want a deadline error", err, time.Since(start))
	}
}

func TestEmbedBadResponses(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"dimension", `{"embeddings":[[1,2,3]]}`, []string{"3 dimensions", "1024", `"qwen3-embedding:0.6b"`}},
		{"count", `{"embeddings":[]}`, []string{"0 embeddings for 1 texts"}},
		{"non-finite", `{"embeddings":[[1e39` + strings.Repeat(",0", 1023) + `]]}`, []string{"non-finite"}},
		{"error field", `{"error":"boom"}`, []string{"boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{{Body: tc.body}}})
			e := &Embedder{BaseURL: srv.URL, Dimensions: DefaultEmbedDim}
			_, err := e.Embed(context.Background(), []string{"x"})
			if !errors.Is(err, ErrResponse) {
				t.Fatalf("err = %v, want ErrResponse", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want it to mention %s", err, w)
				}
			}
		})
	}
}

func TestEmbedConcurrencyBound(t *testing.T) {
	srv := embedAPI(t, 2, 20*time.Millisecond)
	// Copies share the limit, as the engine's callers do.
	client := httpjson.Client{Limit: make(chan struct{}, 2)}
	err := fakeapi.Parallel(4, func() error {
		e := &Embedder{BaseURL: srv.URL, Dimensions: 2, BatchSize: 1, Client: client}
		out, err := e.Embed(context.Background(), fakeapi.Texts(5))
		if err == nil && out[4][0] != 4 {
			err = fmt.Errorf("order: %v", out)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := srv.Peak(); p > 2 || p < 1 {
		t.Fatalf("peak in-flight requests = %d, want at most 2", p)
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "http://localhost:11434",
		"localhost:11434":         "http://localhost:11434",
		"https://ollama.example/": "https://ollama.example",
	} {
		if got := BaseURL(in); got != want {
			t.Errorf("BaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}
