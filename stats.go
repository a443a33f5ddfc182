package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/statistics"
)

// Statistics computes get_statistics for the caller (internal/statistics):
// entry, thread, image, tag and summary figures count only what the caller
// may read; the deployment-wide figures need Config.OperatorRole.
func (e *Engine) Statistics(ctx context.Context) (*Statistics, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	c := e.cfg
	return statistics.Compute(ctx, statistics.Sources{
		Store: e.st, FTS: e.fts, Vec: e.vec, Gen: e.gen,
		Summary: statistics.Summary{Enabled: c.Summary.Enabled, Available: c.Summary.Summarizer != nil,
			Provider: c.Summary.Provider, Model: c.Summary.Model, MinContentLength: c.Summary.MinContentLength},
		IndexTree:       c.IndexTree.enabled(),
		DisableChunking: c.Embedding.DisableChunking, ChunkSize: c.Embedding.ChunkSize, ChunkOverlap: c.Embedding.ChunkOverlap,
		Reranker: c.Rerank.Reranker != nil, RerankProvider: c.Rerank.Provider, RerankModel: c.Rerank.Model,
		OperatorRole: c.OperatorRole,
	}, acc, p.Roles)
}
