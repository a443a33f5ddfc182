// Package model owns the seams between the engine and the models it calls:
// the [Embedder], [Summarizer] and [Reranker] interfaces. The providers
// live in its subpackages:
//
//   - model/builtin: the offline defaults, needing no server -- the
//     word-vector embedder, the extractive summarizer and the lexical
//     reranker.
//   - model/hashembed: a deterministic hashing embedder for tests.
//   - model/ollama, model/openai, model/anthropic: HTTP clients of those
//     APIs (embeddings and summaries).
//   - model/tei: the text-embeddings-inference /rerank client.
//   - model/local: BERT-family sentence encoders and cross-encoders run
//     in-process from a model folder (model/safetensors reads the
//     weights, model/wordpiece tokenizes).
//   - model/model2vec: Model2Vec static embedders (a token table averaged
//     per text) from a model folder.
//   - model/httpjson: what the HTTP providers share (JSON POST with
//     timeout, retries and a concurrency bound).
//
// The package declares the interfaces, and [ClampScore] for the rerankers'
// score range; it imports no provider, so every provider can assert that
// it satisfies its interface. The engine re-exports the interfaces as
// aliases (contextd.Embedder is model.Embedder).
//
//	var (
//		e model.Embedder   = &builtin.Embedder{}
//		s model.Summarizer = builtin.Summarizer{}
//		r model.Reranker   = builtin.Lexical{}
//	)
//	vecs, err := e.Embed(ctx, []string{"car engine failure in winter"})
//	summary, err := s.Summarize(ctx, prompt, longText)
//	scores, err := r.Rerank(ctx, "engine failure", passages)
package model

import "context"

// Embedder turns texts into vectors of Dim() dimensions, one per text, in
// order. Providers live in model/builtin (the offline default),
// model/hashembed (tests), model/ollama and model/openai; each applies its
// own timeout and retries, so an error here is final.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dim() int
	Model() string
}

// QueryEmbedder is an Embedder that embeds search queries differently
// from stored texts: models trained with a query prompt (e5's "query: ",
// bge's instruction) rank better when queries carry it and stored texts
// do not. The engine embeds queries through EmbedQuery when the embedder
// has it (model/local's does), and through Embed otherwise.
type QueryEmbedder interface {
	Embedder
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

// Summarizer turns a text into a summary following prompt (the system
// instruction). An empty result means "no summary". Providers live in
// model/builtin, model/ollama, model/openai and model/anthropic; each
// applies its own timeout and retries, so an error here is final.
type Summarizer interface {
	Summarize(ctx context.Context, prompt, text string) (string, error)
}

// Reranker scores (query, passage) pairs: one score in [0, 1] per passage,
// higher is more relevant. Providers live in model/builtin (the lexical
// reranker) and model/tei (the text-embeddings-inference HTTP client).
type Reranker interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
}

// ClampScore holds a reranker score to the [0, 1] the Reranker contract
// promises, whatever the model computed or a server answered: below 0
// becomes 0, above 1 becomes 1, and NaN becomes 0.
func ClampScore(x float64) float64 {
	switch {
	case !(x > 0):
		return 0
	case x > 1:
		return 1
	}
	return x
}
