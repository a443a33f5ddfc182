// Package tei owns the client of text-embeddings-inference's POST /rerank
// API (RERANKING_PROVIDER=tei): cross-encoders such as BAAI/bge-reranker
// or ms-marco-MiniLM served by `text-embeddings-router`, batched by
// RERANKING_BATCH_SIZE, with timeout and retries from model/httpjson.
//
//	r := &tei.Reranker{URL: "http://localhost:8080", Client: httpjson.Client{Timeout: 30 * time.Second, Attempts: 3}}
//	scores, err := r.Rerank(ctx, query, passages)
package tei

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/httpjson"
)

// DefaultBatchSize is the number of passages sent per request when
// Reranker.BatchSize is not positive (RERANKING_BATCH_SIZE default 32).
const DefaultBatchSize = 32

// Reranker reranks through a text-embeddings-inference server running a
// cross-encoder (for example `text-embeddings-router --model-id
// BAAI/bge-reranker-base`), with its POST /rerank API:
//
//	→ {"query": q, "texts": [...], "raw_scores": false, "truncate": true}
//	← [{"index": 2, "score": 0.97}, {"index": 0, "score": 0.12}, ...]
//
// With raw_scores false the server already maps logits to [0, 1] with a
// sigmoid; scores are clamped to [0, 1] anyway. Answers may come in any
// order and are mapped back by index. Passages are sent in batches of
// BatchSize, one after another; Client supplies the per-attempt timeout,
// retries on transport errors, 408, 429 and 5xx, and the concurrency bound.
//
// A blank query scores every passage 0, and blank passages score 0, without
// asking the server (it rejects empty inputs). A *Reranker is safe for
// concurrent use once configured.
type Reranker struct {
	// URL is the server's base URL (http://host:8080); "/rerank" is
	// appended unless the URL already ends with it.
	URL string
	// Model names the served model in statistics; it is not sent (a TEI
	// server serves one model).
	Model string
	// Client posts the requests (timeout, attempts, backoff, limit).
	Client httpjson.Client
	// BatchSize caps the passages per request (RERANKING_BATCH_SIZE);
	// 0 or less: DefaultBatchSize.
	BatchSize int
	// Headers are added to every request (for example Authorization for a
	// server started with --api-key); nil: none.
	Headers map[string]string
}

type rerankRequest struct {
	Query     string   `json:"query"`
	Texts     []string `json:"texts"`
	RawScores bool     `json:"raw_scores"`
	Truncate  bool     `json:"truncate"`
}

type rerankScore struct {
	Index *int     `json:"index"`
	Score *float64 `json:"score"`
}

// Reranker is a reranker for the engine's reranking seam.
var _ model.Reranker = (*Reranker)(nil)

func (t *Reranker) endpoint() string {
	u := strings.TrimRight(t.URL, "/")
	if strings.HasSuffix(u, "/rerank") {
		return u
	}
	return u + "/rerank"
}

// Rerank returns one score in [0, 1] per passage, higher is more relevant.
// It fails when the server cannot be reached or answers non-2xx after the
// client's retries, or when its answer does not carry exactly one score
// per text sent.
func (t *Reranker) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	scores := make([]float64, len(passages))
	if strings.TrimSpace(query) == "" || len(passages) == 0 {
		return scores, nil
	}
	if strings.TrimSpace(t.URL) == "" {
		return nil, errors.New("tei rerank: no URL")
	}
	// Positions of the passages worth sending.
	send := make([]int, 0, len(passages))
	for i, p := range passages {
		if strings.TrimSpace(p) != "" {
			send = append(send, i)
		}
	}
	size := t.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	url := t.endpoint()
	for lo := 0; lo < len(send); lo += size {
		batch := send[lo:min(lo+size, len(send))]
		req := rerankRequest{Query: query, Texts: make([]string, len(batch)), Truncate: true}
		for j, i := range batch {
			req.Texts[j] = passages[i]
		}
		var resp []rerankScore
		if err := t.Client.Post(ctx, url, t.Headers, req, &resp); err != nil {
			return nil, fmt.Errorf("tei rerank %s: %w", url, err)
		}
		if err := placeScores(resp, batch, scores); err != nil {
			return nil, fmt.Errorf("tei rerank %s: %w", url, err)
		}
	}
	return scores, nil
}

// placeScores checks that resp holds exactly one score per text of batch and
// writes them, clamped, at the batch's passage positions in scores.
func placeScores(resp []rerankScore, batch []int, scores []float64) error {
	if len(resp) != len(batch) {
		return fmt.Errorf("%d scores for %d texts", len(resp), len(batch))
	}
	seen := make([]bool, len(batch))
	for _, r := range resp {
		switch {
		case r.Index == nil:
			return errors.New("score without index")
		case *r.Index < 0 || *r.Index >= len(batch):
			return fmt.Errorf("index %d out of range for %d texts", *r.Index, len(batch))
		case seen[*r.Index]:
			return fmt.Errorf("index %d scored twice", *r.Index)
		case r.Score == nil:
			return fmt.Errorf("index %d without score", *r.Index)
		}
		seen[*r.Index] = true
		scores[batch[*r.Index]] = model.ClampScore(*r.Score)
	}
	return nil
}
