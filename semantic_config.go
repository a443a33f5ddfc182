package contextd

import (
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/quant"
)

// Embedder turns texts into vectors; see [model.Embedder].
type Embedder = model.Embedder

// Reranker scores (query, passage) pairs; see [model.Reranker].
type Reranker = model.Reranker

// EmbeddingConfig configures embeddings and semantic search (C.10, C.13).
// The zero value has no embedder: semantic search is unavailable and
// entries are stored without vectors.
type EmbeddingConfig struct {
	// Embedder generates vectors; nil disables embedding generation.
	Embedder Embedder
	// Provider names the provider in messages and statistics
	// (EMBEDDING_PROVIDER, default "builtin").
	Provider string
	// DisableSemantic switches semantic search off
	// (ENABLE_SEMANTIC_SEARCH=false); otherwise it is served when an
	// embedder is present.
	DisableSemantic bool
	// MaxConcurrent bounds concurrent embedding calls
	// (EMBEDDING_MAX_CONCURRENT, default 3).
	MaxConcurrent int
	// DisableChunking embeds each text whole (ENABLE_CHUNKING=false).
	DisableChunking bool
	// ChunkSize and ChunkOverlap are CHUNK_SIZE and CHUNK_OVERLAP in code
	// points (defaults 1500 and 150).
	ChunkSize, ChunkOverlap int
	// Backend is SEARCH_BACKEND for semantic search: "in-process"
	// (default: our HNSW) or "native" (sqlite-vec). Empty follows
	// FTSConfig.Backend.
	Backend string
	// IndexDir holds the vector index snapshot. Default: <DBPath>.vectors
	// when the engine opens SQLite at a file; in memory otherwise.
	IndexDir string
	// Reembed opens the engine for Engine.Reembed: the check of the stored
	// vectors' model is skipped and no vector index is opened.
	Reembed bool
	// Compression: the in-process vector index's quant codes (zero value:
	// on, 4-bit mse, float32 kept for re-ranking; README, Compression).
	Compression quant.Settings
}

// HybridConfig configures hybrid_search_context (C.8).
type HybridConfig struct {
	// Disable switches hybrid search off (ENABLE_HYBRID_SEARCH=false).
	Disable bool
	// RRFK is HYBRID_RRF_K (default 60).
	RRFK int
	// Overfetch is HYBRID_RRF_OVERFETCH (default 2): each leg fetches
	// 100·Overfetch candidates.
	Overfetch int
	// ORThreshold is HYBRID_FTS_OR_THRESHOLD (default 4): a query with at
	// least this many significant tokens runs its FTS leg as boolean OR.
	ORThreshold int
	// SemanticWeight is HYBRID_SEMANTIC_WEIGHT, the semantic leg's fusion
	// weight in (0, 1] (0: rank.DefaultSemanticWeight; 1: plain RRF).
	SemanticWeight float64
	// Fusion is HYBRID_FUSION: "convex" (default, rank.FuseConvex) or "rrf".
	Fusion string
}

// RerankConfig configures reranking of the ranked searches (C.9). The zero
// value reranks nothing.
type RerankConfig struct {
	// Reranker scores passages; nil disables reranking.
	Reranker Reranker
	// Provider and Model name the reranker in statistics.
	Provider, Model string
	// MaxPassageChars caps a passage, in code points (default
	// RERANKING_MAX_LENGTH 512 · RERANKING_CHARS_PER_TOKEN 4 · 0.95).
	MaxPassageChars int
	// FTSWindow and FTSGapMerge shape FTS passages around matches
	// (FTS_RERANK_WINDOW_SIZE 750, FTS_RERANK_GAP_MERGE 100; a negative
	// FTSGapMerge means 0, no merging).
	FTSWindow, FTSGapMerge int
}
