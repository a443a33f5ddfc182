package openai

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

type datum struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float64 `json:"embedding"`
}

// answer builds a /v1/embeddings answer with the data in reverse order, as
// the API allows: clients must place vectors by index.
func answer(req embedRequest, dim int) map[string]any {
	var data []datum
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, datum{"embedding", i, fakeapi.Vector(req.Input[i], dim)})
	}
	return map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
}

// embedAPI answers /v1/embeddings like OpenAI, with dim-sized vectors
// (fakeapi.Vector), each answer held back by delay.
func embedAPI(t *testing.T, dim int, delay time.Duration) *fakeapi.Server {
	t.Helper()
	return fakeapi.New(t, fakeapi.Config{Path: "/v1/embeddings", Delay: delay, Handler: func(r fakeapi.Request) fakeapi.Reply {
		var req embedRequest
		var raw map[string]any
		if r.JSON(&req) != nil || r.JSON(&raw) != nil {
			return fakeapi.Reply{Status: http.StatusBadRequest, Body: `{"error":{"message":"bad json"}}`}
		}
		return fakeapi.Reply{Body: answer(req, dim)}
	}})
}

// seen is what a test checks of one request.
type seen struct {
	raw    map[string]any
	auth   string
	org    string
	path   string
	inputs int
}

func requests(t *testing.T, srv *fakeapi.Server) []seen {
	t.Helper()
	var out []seen
	for _, r := range srv.Requests() {
		var req embedRequest
		var raw map[string]any
		if err := r.JSON(&req); err != nil {
			t.Fatal(err)
		}
		if err := r.JSON(&raw); err != nil {
			t.Fatal(err)
		}
		out = append(out, seen{raw, r.Header.Get("Authorization"), r.Header.Get("OpenAI-Organization"), r.Path, len(req.Input)})
	}
	return out
}

func TestEmbedRequestAndOrder(t *testing.T) {
	srv := embedAPI(t, 3, 0)
	e := &Embedder{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Organization: "org-1", Dimensions: 3, BatchSize: 4,
		Client: httpjson.Client{Limit: make(chan struct{}, 3)}}
	out, err := e.Embed(context.Background(), fakeapi.Texts(10))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if len(v) != 3 || v[0] != float32(i) || v[2] != float32(i+2) {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	reqs := requests(t, srv)
	for _, s := range reqs {
		if s.auth != "Bearer sk-test" || s.org != "org-1" || s.raw["model"] != DefaultEmbedModel ||
			s.raw["encoding_format"] != "float" || s.inputs > 4 {
			t.Fatalf("request %+v", s)
		}
		if _, ok := s.raw["dimensions"]; ok {
			t.Fatalf("dimensions sent without SendDimensions: %v", s.raw)
		}
	}
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 batches", len(reqs))
	}
}

func TestEmbedSendsDimensions(t *testing.T) {
	srv := embedAPI(t, 256, 0)
	e := &Embedder{BaseURL: srv.URL + "/v1", ModelName: "text-embedding-3-large", Dimensions: 256, SendDimensions: true}
	if _, err := e.Embed(context.Background(), []string{"t1"}); err != nil {
		t.Fatal(err)
	}
	s := requests(t, srv)[0]
	if s.raw["dimensions"] != float64(256) || s.raw["model"] != "text-embedding-3-large" || s.auth != "" || s.org != "" {
		t.Fatalf("request %+v", s)
	}
	if e.Model() != "text-embedding-3-large" || e.Dim() != 256 {
		t.Fatalf("Model/Dim = %q %d", e.Model(), e.Dim())
	}
}

func TestEmbedRetriesThenSucceeds(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusTooManyRequests, Body: `{"error":{"message":"Rate limit reached","type":"requests"}}`},
		{Status: http.StatusBadGateway},
		{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}],"model":"m"}`},
	}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 5, BaseDelay: time.Millisecond}}
	out, err := e.Embed(context.Background(), []string{"x"})
	if err != nil || len(out) != 1 || out[0][1] != 2 || srv.Calls() != 3 {
		t.Fatalf("Embed = %v, %v after %d calls", out, err, srv.Calls())
	}
}

func TestEmbedGivesUp(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusTooManyRequests, Body: `{"error":{"message":"You exceeded your current quota"}}`}}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
	_, err := e.Embed(context.Background(), []string{"x"})
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 429 || srv.Calls() != 3 || !strings.Contains(err.Error(), "quota") {
		t.Fatalf("err = %v after %d calls, want HTTP 429 after 3", err, srv.Calls())
	}
}

func TestEmbedNotRetried(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusUnauthorized, Body: `{"error":{"message":"Incorrect API key provided"}}`}}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
	_, err := e.Embed(context.Background(), []string{"x"})
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 401 || srv.Calls() != 1 {
		t.Fatalf("err = %v after %d calls, want one 401", err, srv.Calls())
	}
}

func TestEmbedTimeout(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Delay: 5 * time.Second})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Timeout: 50 * time.Millisecond, Attempts: 2, BaseDelay: time.Millisecond}}
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
		{"dimension", `{"data":[{"index":0,"embedding":[1,2,3]}],"model":"m"}`, []string{"3 dimensions", "1536", `"text-embedding-3-small"`}},
		{"count", `{"data":[],"model":"m"}`, []string{"0 embeddings for 1 texts"}},
		{"index", `{"data":[{"index":1,"embedding":[1]}]}`, []string{"index 1"}},
		{"non-finite", `{"data":[{"index":0,"embedding":[-1e300` + strings.Repeat(",0", 1535) + `]}]}`, []string{"non-finite"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{{Body: tc.body}}})
			e := &Embedder{BaseURL: srv.URL, Dimensions: DefaultEmbedDim}
			_, err := e.Embed(context.Background(), []string{"x"})
			if !errors.Is(err, ErrEmbedResponse) {
				t.Fatalf("err = %v, want ErrEmbedResponse", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want it to mention %s", err, w)
				}
			}
		})
	}
}

func TestEmbedDuplicateIndex(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Body: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`}}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 1}
	if _, err := e.Embed(context.Background(), []string{"a", "b"}); !errors.Is(err, ErrEmbedResponse) {
		t.Fatalf("err = %v, want ErrEmbedResponse", err)
	}
}

func TestEmbedConcurrencyBound(t *testing.T) {
	srv := embedAPI(t, 2, 20*time.Millisecond)
	client := httpjson.Client{Limit: make(chan struct{}, 3)}
	err := fakeapi.Parallel(4, func() error {
		e := &Embedder{BaseURL: srv.URL + "/v1", Dimensions: 2, BatchSize: 2, Client: client}
		out, err := e.Embed(context.Background(), fakeapi.Texts(9))
		if err == nil && (out[8][0] != 8 || out[3][1] != 4) {
			err = fmt.Errorf("order: %v", out)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := srv.Peak(); p > 3 || p < 1 {
		t.Fatalf("peak in-flight requests = %d, want at most 3", p)
	}
}

func TestEmbedFirstErrorStopsBatches(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Script: []fakeapi.Reply{
		{Status: http.StatusBadRequest, Body: `{"error":{"message":"maximum context length is 8192 tokens"}}`}}})
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, BatchSize: 1}
	_, err := e.Embed(context.Background(), fakeapi.Texts(50))
	if err == nil || !strings.Contains(err.Error(), "8192") || srv.Calls() > 2 {
		t.Fatalf("err = %v after %d calls", err, srv.Calls())
	}
}
