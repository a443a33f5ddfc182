package openai

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
		data = append(data, datum{"embedding", i, vecFor(req.Input[i], dim)})
	}
	return map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
}

type seen struct {
	raw    map[string]any
	auth   string
	org    string
	path   string
	inputs int
}

func embedServer(t *testing.T, dim int, reqs chan<- seen) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req embedRequest
		var raw map[string]any
		if json.Unmarshal(b, &req) != nil || json.Unmarshal(b, &raw) != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		if reqs != nil {
			reqs <- seen{raw, r.Header.Get("Authorization"), r.Header.Get("OpenAI-Organization"), r.URL.Path, len(req.Input)}
		}
		_ = json.NewEncoder(w).Encode(answer(req, dim))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEmbedRequestAndOrder(t *testing.T) {
	reqs := make(chan seen, 100)
	srv := embedServer(t, 3, reqs)
	e := &Embedder{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Organization: "org-1", Dimensions: 3, BatchSize: 4,
		Client: httpjson.Client{Limit: make(chan struct{}, 3)}}
	out, err := e.Embed(context.Background(), texts(10))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if len(v) != 3 || v[0] != float32(i) || v[2] != float32(i+2) {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	close(reqs)
	n := 0
	for s := range reqs {
		n++
		if s.auth != "Bearer sk-test" || s.org != "org-1" || s.raw["model"] != DefaultEmbedModel ||
			s.raw["encoding_format"] != "float" || s.inputs > 4 {
			t.Fatalf("request %+v", s)
		}
		if _, ok := s.raw["dimensions"]; ok {
			t.Fatalf("dimensions sent without SendDimensions: %v", s.raw)
		}
	}
	if n != 3 {
		t.Fatalf("%d requests, want 3 batches", n)
	}
}

func TestEmbedSendsDimensions(t *testing.T) {
	reqs := make(chan seen, 1)
	srv := embedServer(t, 256, reqs)
	e := &Embedder{BaseURL: srv.URL + "/v1", ModelName: "text-embedding-3-large", Dimensions: 256, SendDimensions: true}
	if _, err := e.Embed(context.Background(), []string{"t1"}); err != nil {
		t.Fatal(err)
	}
	s := <-reqs
	if s.raw["dimensions"] != float64(256) || s.raw["model"] != "text-embedding-3-large" || s.auth != "" || s.org != "" {
		t.Fatalf("request %+v", s)
	}
	if e.Model() != "text-embedding-3-large" || e.Dim() != 256 {
		t.Fatalf("Model/Dim = %q %d", e.Model(), e.Dim())
	}
}

func TestEmbedRetriesThenSucceeds(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
			return
		case 2:
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}],"model":"m"}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 5, BaseDelay: time.Millisecond}}
	out, err := e.Embed(context.Background(), []string{"x"})
	if err != nil || len(out) != 1 || out[0][1] != 2 || calls.Load() != 3 {
		t.Fatalf("Embed = %v, %v after %d calls", out, err, calls.Load())
	}
}

func TestEmbedGivesUp(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"message":"You exceeded your current quota"}}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
	_, err := e.Embed(context.Background(), []string{"x"})
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 429 || calls.Load() != 3 || !strings.Contains(err.Error(), "quota") {
		t.Fatalf("err = %v after %d calls, want HTTP 429 after 3", err, calls.Load())
	}
}

func TestEmbedNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
	_, err := e.Embed(context.Background(), []string{"x"})
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Code != 401 || calls.Load() != 1 {
		t.Fatalf("err = %v after %d calls, want one 401", err, calls.Load())
	}
}

func TestEmbedTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
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
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 1}
	if _, err := e.Embed(context.Background(), []string{"a", "b"}); !errors.Is(err, ErrEmbedResponse) {
		t.Fatalf("err = %v, want ErrEmbedResponse", err)
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
		_ = json.NewEncoder(w).Encode(answer(req, 2))
	}))
	defer srv.Close()
	client := httpjson.Client{Limit: make(chan struct{}, 3)}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := &Embedder{BaseURL: srv.URL, Dimensions: 2, BatchSize: 2, Client: client}
			out, err := e.Embed(context.Background(), texts(9))
			if err == nil && (out[8][0] != 8 || out[3][1] != 4) {
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
	if p := peak.Load(); p > 3 || p < 1 {
		t.Fatalf("peak in-flight requests = %d, want at most 3", p)
	}
}

func TestEmbedFirstErrorStopsBatches(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"maximum context length is 8192 tokens"}}`))
	}))
	defer srv.Close()
	e := &Embedder{BaseURL: srv.URL, Dimensions: 2, BatchSize: 1}
	_, err := e.Embed(context.Background(), texts(50))
	if err == nil || !strings.Contains(err.Error(), "8192") || calls.Load() > 2 {
		t.Fatalf("err = %v after %d calls", err, calls.Load())
	}
}
