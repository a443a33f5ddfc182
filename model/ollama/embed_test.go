package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd/model/httpjson"
)

// vecFor is the vector the fake server returns for text "t<i>": dim values
// i, i+1, ...
func vecFor(text string, dim int) []float64 {
	i, _ := strconv.Atoi(strings.TrimPrefix(text, "t"))
	v := make([]float64, dim)
	for k := range v {
		v[k] = float64(i + k)
	}
	return v
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

// embedServer answers /api/embed like Ollama, with dim-sized vectors.
func embedServer(t *testing.T, dim int, reqs chan<- embedRequest) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/embed" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req embedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
			return
		}
		if reqs != nil {
			reqs <- req
		}
		resp := embedResponse{Model: req.Model}
		for _, s := range req.Input {
			resp.Embeddings = append(resp.Embeddings, vecFor(s, dim))
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEmbedRequestAndOrder(t *testing.T) {
	reqs := make(chan embedRequest, 100)
	srv := embedServer(t, 4, reqs)
	e := &Embedder{BaseURL: srv.URL + "/", Dimensions: 4, NumCtx: 2048, Truncate: true, BatchSize: 3,
		Client: httpjson.Client{Limit: make(chan struct{}, 3)}}
	in := texts(10)
	out, err := e.Embed(context.Background(), in)
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
	close(reqs)
	n := 0
	for req := range reqs {
		n++
		if req.Model != DefaultEmbedModel || !req.Truncate || req.Options["num_ctx"] != float64(2048) || len(req.Input) > 3 {
			t.Fatalf("request %+v", req)
		}
	}
	if n != 4 {
		t.Fatalf("%d requests, want 4 batches", n)
	}
	if e.Dim() != 4 || e.Model() != DefaultEmbedModel {
		t.Fatalf("Dim/Model = %d %q", e.Dim(), e.Model())
	}
}

func TestEmbedRawRequestShape(t *testing.T) {
	var raw map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&raw)
		_, _ = w.Write([]byte(`{"model":"m","embeddings":[[0.1,0.2]],"total_duration":1,"load_duration":1,"prompt_eval_count":2}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: strings.TrimPrefix(srv.URL, "http://"), ModelName: "m", Dimensions: 2}
	out, err := e.Embed(context.Background(), []string{"hello"})
	if err != nil || len(out) != 1 || out[0][1] != float32(0.2) {
		t.Fatalf("Embed = %v, %v", out, err)
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
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusTooManyRequests)
			return
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"model":"m","embeddings":[[1,2,3]]}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 3, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
	out, err := e.Embed(context.Background(), []string{"x"})
	if err != nil || len(out) != 1 || calls.Load() != 3 {
		t.Fatalf("Embed = %v, %v after %d calls", out, err, calls.Load())
	}
}

func TestEmbedGivesUp(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"llama runner process has terminated"}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 3, Client: httpjson.Client{Attempts: 4, BaseDelay: time.Millisecond}}
	_, err := e.Embed(context.Background(), []string{"x"})
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 500 || calls.Load() != 4 || !strings.Contains(err.Error(), "llama runner") {
		t.Fatalf("err = %v after %d calls, want HTTP 500 after 4", err, calls.Load())
	}
}

func TestEmbedTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
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
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
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
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		var req embedRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(20 * time.Millisecond)
		resp := embedResponse{}
		for _, s := range req.Input {
			resp.Embeddings = append(resp.Embeddings, vecFor(s, 2))
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	// Copies share the limit, as the engine's callers do.
	client := httpjson.Client{Limit: make(chan struct{}, 2)}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := &Embedder{BaseURL: srv.URL, Dimensions: 2, BatchSize: 1, Client: client}
			out, err := e.Embed(context.Background(), texts(5))
			if err == nil && out[4][0] != 4 {
				err = fmt.Errorf("order: %v", out)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p > 2 || p < 1 {
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
