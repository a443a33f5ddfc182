// Package statistics computes get_statistics: the store's counts over
// what the caller may read, the blocks of each feature (full text,
// semantic search, chunking, reranking, summaries, compression, index
// tree) and the deployment-wide figures (internal/deployment) that only an
// operator sees.
//
//	st, err := statistics.Compute(ctx, sources, acc, caller.Roles)
package statistics

import (
	"context"
	"fmt"
	"math"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/internal/deployment"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/retrieve"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
)

// Sources are what the statistics read: the engine's store, search legs
// and generator, and the configuration the blocks report.
type Sources struct {
	Store persist.Store
	FTS   *search.FullText
	Vec   *retrieve.Semantic // nil without an embedder
	Gen   *generate.Generator
	// Summary is the summary configuration as configured.
	Summary Summary
	// IndexTree is ENABLE_INDEX_TREE_NODE_SUMMARIES.
	IndexTree bool
	// DisableChunking, ChunkSize and ChunkOverlap are the chunking
	// configuration (zero sizes: the defaults).
	DisableChunking         bool
	ChunkSize, ChunkOverlap int
	// Reranker says whether a reranker is configured, and names it.
	Reranker                    bool
	RerankProvider, RerankModel string
	// OperatorRole, when set, is required to see the deployment-wide
	// figures (ACCESS_CONTROL_OPERATOR_ROLE).
	OperatorRole string
}

// Summary is the summary configuration the summary block reports.
type Summary struct {
	Enabled, Available bool
	Provider, Model    string
	MinContentLength   *int // nil: the default
}

// Compute computes get_statistics for a caller with access acc and roles.
func Compute(ctx context.Context, src Sources, acc persist.Access, roles []string) (*api.Statistics, error) {
	st := src.Store
	operator := deployment.Visible(src.OperatorRole, roles)
	c, fromCatalog, err := src.counts(ctx, acc, operator)
	if err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	s := c.Stats
	// The figures SQL still counts (vectors, and node summaries without
	// a catalog): a caller who reads a small share of the store is
	// counted through the owner, public and grant indexes.
	if (src.Vec != nil && src.Vec.Enabled) || (src.IndexTree && !fromCatalog) {
		acc = src.FTS.Narrow(acc)
	}
	out := &api.Statistics{
		TotalEntries:      s.TotalEntries,
		BySource:          nonNilMap(s.BySource),
		ByContentType:     nonNilMap(s.ByContentType),
		TotalImages:       s.TotalImages,
		UniqueTags:        s.UniqueTags,
		TotalThreads:      s.TotalThreads,
		MostActiveThreads: []api.NameCount{},
		TopTags:           []api.NameCount{},
		Backend:           st.Backend(),
		ConnectionMetrics: deployment.Metrics(st.Backend(), st.PoolStats()),
		Summary:           src.summaryStatus(s),
		Chunking:          src.chunkingStatus(),
		Reranking:         src.rerankingStatus(),
		Compression:       src.Gen.CompressionStatus(),
		IndexTree:         api.IndexTreeStatus{Enabled: src.IndexTree},
	}
	if out.SemanticSearch, err = src.semanticStatus(ctx, acc, s.TotalEntries); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	switch {
	case src.IndexTree && fromCatalog:
		out.IndexTree.NodeCount = c.NodeSummaries
	case src.IndexTree:
		if out.IndexTree.NodeCount, err = st.CountNodeSummaries(ctx, acc); err != nil {
			return nil, fmt.Errorf("statistics: %w", err)
		}
	}
	if out.FTS, err = src.ftsStatus(ctx, acc, s.TotalEntries); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	if s.TotalThreads > 0 {
		out.AvgEntriesPerThread = round2(float64(s.TotalEntries) / float64(s.TotalThreads))
	}
	for _, c := range s.MostActive {
		out.MostActiveThreads = append(out.MostActiveThreads, api.NameCount{ThreadID: c.Name, Count: c.Count})
	}
	for _, c := range s.TopTags {
		out.TopTags = append(out.TopTags, api.NameCount{Tag: c.Name, Count: c.Count})
	}
	if s.DBSizeBytes >= 0 {
		mb := round2(float64(s.DBSizeBytes) / (1 << 20))
		out.DatabaseSizeMB = &mb
	}
	if !operator {
		out.ConnectionMetrics = deployment.Private(out.ConnectionMetrics)
		out.DatabaseSizeMB = nil
		return out, nil // nor the time of sizing every principal's vectors
	}
	if out.EmbeddingsSizeMB, out.EmbeddingsEstimated, err = src.embeddingsSizeMB(ctx); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	return out, nil
}

// counts are the entry, thread, tag, image, summary and node summary
// figures over what acc may read, from the in-memory catalog when there
// is one (fromCatalog; else the node summaries are left to count), and the
// size of the database for an operator (a deployment-wide figure, only
// asked for when it is shown). The catalog's pass over the readable
// entries costs the same whatever the others stored: BenchmarkAggregate-
// OtherPrincipal (the root package) has Alice's 500 entries beside 0 or
// 15,000 of Bob's. SQL's answer for her took 1.5-2x longer beside Bob's
// (the step from the whole-table plan to the index-driven one, taken
// once she reads at most an eighth of the store), a difference she could
// time. Without a catalog, or when the size is shown and the store
// cannot report it alone, the store counts.
func (src Sources) counts(ctx context.Context, acc persist.Access, operator bool) (c search.Counts, fromCatalog bool, err error) {
	c, ok, err := src.FTS.Stats(ctx, acc)
	if err != nil {
		return c, false, err
	}
	if ok && operator {
		sizer, can := src.Store.(persist.DBSizer)
		if !can {
			ok = false
		} else if c.DBSizeBytes, err = sizer.DBSize(ctx); err != nil {
			return c, false, err
		}
	}
	if ok {
		return c, true, nil
	}
	c = search.Counts{}
	c.Stats, err = src.Store.Stats(ctx, src.FTS.Narrow(acc))
	return c, false, err
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func coverage(part, total int) float64 {
	if total == 0 {
		return 0
	}
	return round2(100 * float64(part) / float64(total))
}

func nonNilMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// summaryStatus is the summary block.
func (src Sources) summaryStatus(s persist.Stats) api.SummaryStatus {
	c := src.Summary
	st := api.SummaryStatus{
		Enabled: c.Enabled, Available: c.Available, Provider: c.Provider, Model: c.Model,
		SummaryCount:       s.SummaryCount,
		CoveragePercentage: coverage(s.SummaryCount, s.TotalEntries),
		MinContentLength:   generate.SummaryOptions{MinContentLength: c.MinContentLength}.MinLength(),
	}
	switch {
	case !c.Enabled:
		st.Message = "Summary generation is disabled (ENABLE_SUMMARY_GENERATION=false)"
	case !c.Available:
		st.Message = "Summary generation is enabled but no summary provider is configured"
	}
	return st
}

// semanticStatus reports embeddings: entry and vector counts over the
// readable entries, like every other figure.
func (src Sources) semanticStatus(ctx context.Context, acc persist.Access, readable int) (api.SemanticStatus, error) {
	sm := src.Vec
	if sm == nil || !sm.Enabled {
		return api.SemanticStatus{}, nil
	}
	if sm.Unavailable != "" {
		return api.SemanticStatus{Enabled: true, Message: sm.Unavailable}, nil
	}
	st := api.SemanticStatus{Enabled: true, Available: true, Backend: sm.Backend, Model: sm.Embedder.Model(), Dimensions: sm.Embedder.Dim()}
	entries, chunks, err := src.Store.EmbeddingCounts(ctx, acc)
	if err != nil {
		return st, err
	}
	f := &api.SemanticFigures{ContextCount: entries, EmbeddingCount: chunks, CoveragePercentage: coverage(entries, readable)}
	if entries > 0 {
		f.AverageChunksPerEntry = round2(float64(chunks) / float64(entries))
	}
	st.SemanticFigures = f
	return st, nil
}

// chunkingStatus reports CHUNK_*.
func (src Sources) chunkingStatus() api.ChunkingStatus {
	size, overlap := src.ChunkSize, src.ChunkOverlap
	if size == 0 && overlap == 0 {
		size, overlap = chunk.DefaultSize, chunk.DefaultOverlap
	} else if size == 0 {
		size = chunk.DefaultSize
	}
	on := src.Vec != nil && !src.DisableChunking
	return api.ChunkingStatus{Enabled: !src.DisableChunking, Available: on, ChunkSize: size, ChunkOverlap: overlap, Aggregation: chunk.AggregationMax}
}

// rerankingStatus reports the reranker.
func (src Sources) rerankingStatus() api.RerankingStatus {
	if !src.Reranker {
		return api.RerankingStatus{}
	}
	return api.RerankingStatus{Enabled: true, Available: true, Provider: src.RerankProvider, Model: src.RerankModel}
}

// ftsStatus reports full-text search. Like the other figures it counts
// what the caller may read: indexed_entries are the readable entries the
// index holds, coverage their share of the readable entries.
func (src Sources) ftsStatus(ctx context.Context, acc persist.Access, readable int) (api.FTSStatus, error) {
	ft := src.FTS
	st := api.FTSStatus{Enabled: ft.Enabled(), Available: ft.Unavailable() == "", Language: ft.Language(), Backend: ft.Backend(), Message: ft.Unavailable()}
	if !st.Available {
		return st, nil
	}
	var err error
	if st.Engine, st.IndexedEntries, err = ft.Indexed(ctx, acc, readable); err != nil {
		return st, err
	}
	st.CoveragePercentage = coverage(st.IndexedEntries, readable)
	return st, nil
}

// embeddingsSizeMB is the deployment-wide size of the stored vectors and
// whether it is an estimate (compress.StoredSize).
func (src Sources) embeddingsSizeMB(ctx context.Context) (*float64, *bool, error) {
	if src.Vec == nil {
		return nil, nil, nil
	}
	n, estimated, err := compress.StoredSize(ctx, src.Store, src.Gen.Codec())
	if err != nil {
		return nil, nil, err
	}
	mb := round2(float64(n) / (1 << 20))
	return &mb, &estimated, nil
}
