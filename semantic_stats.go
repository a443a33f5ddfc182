package contextd

import (
	"context"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/persist"
)

// SemanticStatus is the semantic_search block of get_statistics.
// The figures are present only when search is available, so the block
// takes the reference's three shapes: {enabled, available} when off,
// {enabled, available, message} when it cannot run, and every figure when
// it runs.
type SemanticStatus struct {
	Enabled    bool   `json:"enabled"`
	Available  bool   `json:"available"`
	Backend    string `json:"backend,omitempty"`
	Model      string `json:"model,omitempty"`
	Dimensions int    `json:"dimensions,omitempty"`
	*SemanticFigures
	Message string `json:"message,omitempty"`
}

// SemanticFigures are the counts of the semantic_search block.
type SemanticFigures struct {
	ContextCount          int     `json:"context_count"`
	EmbeddingCount        int     `json:"embedding_count"`
	AverageChunksPerEntry float64 `json:"average_chunks_per_entry"`
	CoveragePercentage    float64 `json:"coverage_percentage"`
}

// ChunkingStatus is the chunking block of get_statistics.
type ChunkingStatus struct {
	Enabled      bool   `json:"enabled"`
	Available    bool   `json:"available"`
	ChunkSize    int    `json:"chunk_size"`
	ChunkOverlap int    `json:"chunk_overlap"`
	Aggregation  string `json:"aggregation"`
}

// RerankingStatus is the reranking block of get_statistics.
type RerankingStatus struct {
	Enabled   bool   `json:"enabled"`
	Available bool   `json:"available"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Message   string `json:"message,omitempty"`
}

// semanticStatus reports embeddings for get_statistics: entry and vector
// counts over the readable entries, like every other figure.
func (e *Engine) semanticStatus(ctx context.Context, acc persist.Access, readable int) (SemanticStatus, error) {
	sm := e.vec
	if sm == nil {
		return SemanticStatus{}, nil
	}
	if !sm.Enabled {
		return SemanticStatus{}, nil
	}
	if sm.Unavailable != "" {
		return SemanticStatus{Enabled: true, Message: sm.Unavailable}, nil
	}
	st := SemanticStatus{Enabled: true, Available: true, Backend: sm.Backend, Model: sm.Embedder.Model(), Dimensions: sm.Embedder.Dim()}
	entries, chunks, err := e.st.EmbeddingCounts(ctx, acc)
	if err != nil {
		return st, err
	}
	f := &SemanticFigures{ContextCount: entries, EmbeddingCount: chunks, CoveragePercentage: coverage(entries, readable)}
	if entries > 0 {
		f.AverageChunksPerEntry = round2(float64(chunks) / float64(entries))
	}
	st.SemanticFigures = f
	return st, nil
}

// chunkingStatus reports CHUNK_* for get_statistics.
func (e *Engine) chunkingStatus() ChunkingStatus {
	c := e.cfg.Embedding
	size, overlap := c.ChunkSize, c.ChunkOverlap
	if size == 0 && overlap == 0 {
		size, overlap = chunk.DefaultSize, chunk.DefaultOverlap
	} else if size == 0 {
		size = chunk.DefaultSize
	}
	on := e.vec != nil && !c.DisableChunking
	return ChunkingStatus{Enabled: !c.DisableChunking, Available: on, ChunkSize: size, ChunkOverlap: overlap, Aggregation: chunk.AggregationMax}
}

// rerankingStatus reports the reranker for get_statistics.
func (e *Engine) rerankingStatus() RerankingStatus {
	r := e.cfg.Rerank
	if r.Reranker == nil {
		return RerankingStatus{}
	}
	return RerankingStatus{Enabled: true, Available: true, Provider: r.Provider, Model: r.Model}
}

// embeddingsSizeMB is the deployment-wide size of the stored vectors and
// whether it is an estimate (compress.StoredSize).
func (e *Engine) embeddingsSizeMB(ctx context.Context) (*float64, *bool, error) {
	if e.vec == nil {
		return nil, nil, nil
	}
	n, estimated, err := compress.StoredSize(ctx, e.st, e.gen.Codec())
	if err != nil {
		return nil, nil, err
	}
	mb := round2(float64(n) / (1 << 20))
	return &mb, &estimated, nil
}
