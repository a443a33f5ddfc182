package tei

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/model/httpjson"
)

// fakeTEI speaks the text-embeddings-inference /rerank shape. The score
// of a text is the number after "s=" in it (for example "doc s=0.7"),
// answers are shuffled, and the first fail503 requests answer 503.
type fakeTEI struct {
	fail503 int
	mutate  func(req rerankRequest, resp []map[string]any) any // nil: answer as is

	mu      sync.Mutex
	batches [][]string // texts of the requests answered
	bodies  []map[string]any
}

func (f *fakeTEI) start(t *testing.T) *fakeapi.Server {
	t.Helper()
	return fakeapi.New(t, fakeapi.Config{
		Path:    "/rerank",
		Script:  slices.Repeat([]fakeapi.Reply{{Status: http.StatusServiceUnavailable, Body: "model loading"}}, f.fail503),
		Handler: f.answer,
	})
}

func (f *fakeTEI) answer(r fakeapi.Request) fakeapi.Reply {
	var raw map[string]any
	var req rerankRequest
	if err := r.JSON(&raw); err != nil {
		return fakeapi.Reply{Status: http.StatusBadRequest, Body: err.Error()}
	}
	_ = r.JSON(&req)
	f.mu.Lock()
	f.batches = append(f.batches, req.Texts)
	f.bodies = append(f.bodies, raw)
	f.mu.Unlock()
	resp := make([]map[string]any, len(req.Texts))
	for i, text := range req.Texts {
		score := 0.0
		if _, after, ok := strings.Cut(text, "s="); ok {
			score, _ = strconv.ParseFloat(strings.Fields(after)[0], 64)
		}
		resp[i] = map[string]any{"index": i, "score": score}
	}
	rand.New(rand.NewPCG(uint64(r.N), 3)).Shuffle(len(resp), func(i, j int) { resp[i], resp[j] = resp[j], resp[i] })
	var out any = resp
	if f.mutate != nil {
		out = f.mutate(req, resp)
	}
	return fakeapi.Reply{Body: out}
}

func TestTEIRerank(t *testing.T) {
	tests := []struct {
		name        string
		passages    []string
		batchSize   int
		fail503     int
		wantScores  string
		wantBatches string // texts per request
		wantCalls   int
	}{
		{
			name:        "shuffled answer mapped back by index",
			passages:    []string{"a s=0.1", "b s=0.9", "c s=0.5", "d s=0.3"},
			wantScores:  "[0.1 0.9 0.5 0.3]",
			wantBatches: "[4]",
			wantCalls:   1,
		},
		{
			name:        "retries on 503 then success",
			passages:    []string{"a s=0.2", "b s=0.8"},
			fail503:     2,
			wantScores:  "[0.2 0.8]",
			wantBatches: "[2]",
			wantCalls:   3,
		},
		{
			name:        "batch splitting",
			passages:    []string{"s=0.1", "s=0.2", "s=0.3", "s=0.4", "s=0.5", "s=0.6", "s=0.7"},
			batchSize:   3,
			wantScores:  "[0.1 0.2 0.3 0.4 0.5 0.6 0.7]",
			wantBatches: "[3 3 1]",
			wantCalls:   3,
		},
		{
			name:        "default batch size 32",
			passages:    numbered(70),
			wantScores:  fmt.Sprint(make([]float64, 70)),
			wantBatches: "[32 32 6]",
			wantCalls:   3,
		},
		{
			name:        "scores clamped, blank passages not sent",
			passages:    []string{"x s=1.5", "", "  ", "y s=-0.2", "z s=0.4"},
			wantScores:  "[1 0 0 0 0.4]",
			wantBatches: "[3]",
			wantCalls:   1,
		},
		{
			name:        "no passages, no request",
			passages:    nil,
			wantScores:  "[]",
			wantBatches: "[]",
			wantCalls:   0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTEI{fail503: tc.fail503}
			srv := f.start(t)
			r := &Reranker{URL: srv.URL + "/", Model: "BAAI/bge-reranker-base", BatchSize: tc.batchSize,
				Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
			got, err := r.Rerank(context.Background(), "what query", tc.passages)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.wantScores {
				t.Fatalf("scores = %v, want %s", got, tc.wantScores)
			}
			sizes := []int{}
			for _, b := range f.batches {
				sizes = append(sizes, len(b))
			}
			if fmt.Sprint(sizes) != tc.wantBatches {
				t.Fatalf("batch sizes = %v, want %s", sizes, tc.wantBatches)
			}
			if srv.Calls() != tc.wantCalls {
				t.Fatalf("calls = %d, want %d", srv.Calls(), tc.wantCalls)
			}
			for _, body := range f.bodies {
				if body["query"] != "what query" || body["raw_scores"] != false || body["truncate"] != true || len(body) != 4 {
					t.Fatalf("request body = %v, want query, texts, raw_scores false, truncate true", body)
				}
			}
		})
	}
}

func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "passage " + strconv.Itoa(i)
	}
	return out
}

func TestTEIErrors(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(req rerankRequest, resp []map[string]any) any
		fail503 int
		want    string // substring of the error
	}{
		{"count mismatch", func(_ rerankRequest, resp []map[string]any) any { return resp[1:] }, 0, "2 scores for 3 texts"},
		{"missing index", func(_ rerankRequest, resp []map[string]any) any {
			delete(resp[0], "index")
			return resp
		}, 0, "score without index"},
		{"index out of range", func(_ rerankRequest, resp []map[string]any) any {
			resp[0]["index"] = 7
			return resp
		}, 0, "index 7 out of range"},
		{"duplicate index", func(_ rerankRequest, resp []map[string]any) any {
			for _, r := range resp {
				r["index"] = 1
			}
			return resp
		}, 0, "index 1 scored twice"},
		{"missing score", func(_ rerankRequest, resp []map[string]any) any {
			delete(resp[2], "score")
			return resp
		}, 0, "without score"},
		{"not an array", func(rerankRequest, []map[string]any) any { return map[string]any{"error": "x"} }, 0, "decode response"},
		{"503 after retries", nil, 100, "HTTP 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := (&fakeTEI{fail503: tc.fail503, mutate: tc.mutate}).start(t)
			r := &Reranker{URL: srv.URL, Client: httpjson.Client{Attempts: 3, BaseDelay: time.Millisecond}}
			got, err := r.Rerank(context.Background(), "q", []string{"a", "b", "c"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (scores %v), want error containing %q", err, got, tc.want)
			}
			if got != nil {
				t.Fatalf("scores = %v on error, want nil", got)
			}
		})
	}
	t.Run("status error unwraps", func(t *testing.T) {
		srv := (&fakeTEI{fail503: 100}).start(t)
		r := &Reranker{URL: srv.URL}
		_, err := r.Rerank(context.Background(), "q", []string{"a"})
		var se *httpjson.StatusError
		if !errors.As(err, &se) || se.Code != http.StatusServiceUnavailable {
			t.Fatalf("err = %v, want *httpjson.StatusError 503", err)
		}
	})
	t.Run("no URL", func(t *testing.T) {
		_, err := (&Reranker{}).Rerank(context.Background(), "q", []string{"a"})
		if err == nil {
			t.Fatalf("err = nil, want error")
		}
	})
	t.Run("blank query asks nothing", func(t *testing.T) {
		srv := (&fakeTEI{}).start(t)
		got, err := (&Reranker{URL: srv.URL}).Rerank(context.Background(), " ", []string{"a", "b"})
		if err != nil || fmt.Sprint(got) != "[0 0]" || srv.Calls() != 0 {
			t.Fatalf("scores %v, err %v, calls %d; want [0 0], nil, 0", got, err, srv.Calls())
		}
	})
}

func TestTEIEndpoint(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://h:8080", "http://h:8080/rerank"},
		{"http://h:8080/", "http://h:8080/rerank"},
		{"http://h:8080/rerank", "http://h:8080/rerank"},
		{"http://h/tei/rerank/", "http://h/tei/rerank"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if got := (&Reranker{URL: tc.url}).endpoint(); got != tc.want {
				t.Fatalf("endpoint(%q) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}
