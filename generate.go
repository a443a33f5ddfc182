package contextd

import (
	"context"
	"errors"
	"io"

	"github.com/contextd/contextd/internal/generate"
)

// Model artifacts (summaries, node summaries, vectors) are produced by
// internal/generate before the write transaction; this file wires the
// engine's configuration to it (package internal/write runs it for the
// store and update paths).

// ReembedCommand is the command that regenerates every stored vector with
// the configured model; the start-up mismatch error names it.
const ReembedCommand = "contextd migrate reembed"

// newGenerator builds the engine's generator from the summary, index-tree
// and embedding parts of cfg.
func newGenerator(cfg Config) *generate.Generator {
	s, t, m := cfg.Summary, cfg.IndexTree, cfg.Embedding
	if m.Backend == BackendNative || m.Backend == "" && cfg.FTS.Backend == BackendNative {
		m.Compression.CodesOnly = false // sqlite-vec searches the float32 vectors
	}
	return generate.New(generate.Options{
		Summary: generate.SummaryOptions{Summarizer: s.Summarizer, MinContentLength: s.MinContentLength, Prompt: s.Prompt, MaxConcurrent: s.MaxConcurrent},
		Nodes: generate.NodeOptions{Disabled: t.Disabled, Prompt: t.Prompt, MinContentLength: t.MinContentLength,
			Timeout: t.Timeout, TotalTimeout: t.TotalTimeout, MaxConcurrent: t.MaxConcurrent, MaxNodes: t.MaxNodes},
		Embedding: generate.EmbeddingOptions{Embedder: m.Embedder, MaxConcurrent: m.MaxConcurrent,
			DisableChunking: m.DisableChunking, ChunkSize: m.ChunkSize, ChunkOverlap: m.ChunkOverlap, Compression: m.Compression},
	})
}

// Reembed regenerates the vectors of every stored entry with the
// configured embedder and records its model, the migration after a change
// of EMBEDDING_MODEL or EMBEDDING_DIM (the start-up check names it). The
// engine must be opened with EmbeddingConfig.Reembed, which skips that
// check and keeps the vector index closed; no other process should write
// meanwhile. Entries are rewritten in transactions of 100, so an
// interrupted run can simply be repeated. It returns the number of
// entries embedded.
func (e *Engine) Reembed(ctx context.Context, progress io.Writer) (int, error) {
	if e.gen.Embedder() == nil {
		return 0, errors.New("reembed: no embedding provider is configured (ENABLE_EMBEDDING_GENERATION, EMBEDDING_PROVIDER)")
	}
	if !e.cfg.Embedding.Reembed {
		return 0, errors.New("reembed: the engine was not opened for re-embedding (EmbeddingConfig.Reembed)")
	}
	return e.gen.Reembed(ctx, e.st, progress)
}
