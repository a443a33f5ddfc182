package contextd

import (
	"context"
	"fmt"
	"math"

	"github.com/contextd/contextd/internal/deployment"
)

// NameCount is one row of a top list.
type NameCount struct {
	ThreadID string `json:"thread_id,omitempty"`
	Tag      string `json:"tag,omitempty"`
	Count    int    `json:"count"`
}

// FeatureStatus reports a capability that this build does not provide yet
// or that is switched off.
type FeatureStatus struct {
	Enabled   bool   `json:"enabled"`
	Available bool   `json:"available"`
	Message   string `json:"message,omitempty"`
}

// IndexTreeStatus is the index_tree block of get_statistics.
type IndexTreeStatus struct {
	Enabled   bool `json:"enabled"`
	NodeCount int  `json:"node_count"`
}

// SummaryStatus is the summary block of get_statistics.
type SummaryStatus struct {
	Enabled            bool    `json:"enabled"`
	Available          bool    `json:"available"`
	Provider           string  `json:"provider,omitempty"`
	Model              string  `json:"model,omitempty"`
	SummaryCount       int     `json:"summary_count"`
	CoveragePercentage float64 `json:"coverage_percentage"`
	MinContentLength   int     `json:"min_content_length"`
	Message            string  `json:"message,omitempty"`
}

// ConnectionMetrics is get_statistics' connection_metrics: the store's
// pool and query counters. A caller without the operator role sees the
// configuration (backend_type, pool_size, circuit_state) and every counter
// zero.
type ConnectionMetrics struct {
	BackendType         string  `json:"backend_type"`
	PoolSize            int     `json:"pool_size"`
	TotalQueries        int64   `json:"total_queries"`
	FailedQueries       int64   `json:"failed_queries"`
	CircuitState        string  `json:"circuit_state"`
	ConsecutiveFailures int64   `json:"consecutive_failures"`
	LastError           *string `json:"last_error"`
	LastErrorTime       *string `json:"last_error_time"`
	TotalConnections    int64   `json:"total_connections"`
	ActiveConnections   int     `json:"active_connections"`
	FailedConnections   int64   `json:"failed_connections"`
	WriteQueueSize      int     `json:"write_queue_size"`
	OpenConnections     int     `json:"open_connections"`
	IdleConnections     int     `json:"idle_connections"`
	WaitCount           int64   `json:"wait_count"`
	WaitDurationMS      float64 `json:"wait_duration_ms"`
	HealthChecks        int64   `json:"health_checks"`
	HealthCheckFailures int64   `json:"health_check_failures"`
}

// CompressionStatus is the compression block of get_statistics: the
// vector codes' settings when compression is on.
type CompressionStatus struct {
	Enabled       bool    `json:"enabled"`
	Available     bool    `json:"available"`
	Provider      string  `json:"provider,omitempty"`
	Bits          int     `json:"bits,omitempty"`
	Variant       string  `json:"variant,omitempty"`
	Seed          *uint32 `json:"seed,omitempty"`
	Dim           int     `json:"dim,omitempty"`
	MaxConcurrent int     `json:"max_concurrent,omitempty"`
	Message       string  `json:"message,omitempty"`
}

// Statistics is the result of get_statistics. Entry, thread, image, tag and
// summary figures count only what the caller may read; the database size
// and configuration describe the deployment.
type Statistics struct {
	TotalEntries        int               `json:"total_entries"`
	BySource            map[string]int    `json:"by_source"`
	ByContentType       map[string]int    `json:"by_content_type"`
	TotalImages         int               `json:"total_images"`
	UniqueTags          int               `json:"unique_tags"`
	TotalThreads        int               `json:"total_threads"`
	AvgEntriesPerThread float64           `json:"avg_entries_per_thread"`
	MostActiveThreads   []NameCount       `json:"most_active_threads"`
	TopTags             []NameCount       `json:"top_tags"`
	Backend             string            `json:"backend"`
	DatabaseSizeMB      *float64          `json:"database_size_mb,omitempty"`
	ConnectionMetrics   ConnectionMetrics `json:"connection_metrics"`
	EmbeddingsSizeMB    *float64          `json:"embeddings_size_mb,omitempty"`
	EmbeddingsEstimated *bool             `json:"embeddings_size_estimated,omitempty"`
	SemanticSearch      SemanticStatus    `json:"semantic_search"`
	FTS                 FTSStatus         `json:"fts"`
	Chunking            ChunkingStatus    `json:"chunking"`
	Reranking           RerankingStatus   `json:"reranking"`
	Summary             SummaryStatus     `json:"summary"`
	Compression         CompressionStatus `json:"compression"`
	IndexTree           IndexTreeStatus   `json:"index_tree"`
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func coverage(part, total int) float64 {
	if total == 0 {
		return 0
	}
	return round2(100 * float64(part) / float64(total))
}

// Statistics computes get_statistics for the caller.
func (e *Engine) Statistics(ctx context.Context) (*Statistics, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	s, err := e.st.Stats(ctx, acc)
	if err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	out := &Statistics{
		TotalEntries:      s.TotalEntries,
		BySource:          nonNilMap(s.BySource),
		ByContentType:     nonNilMap(s.ByContentType),
		TotalImages:       s.TotalImages,
		UniqueTags:        s.UniqueTags,
		TotalThreads:      s.TotalThreads,
		MostActiveThreads: []NameCount{},
		TopTags:           []NameCount{},
		Backend:           e.st.Backend(),
		ConnectionMetrics: ConnectionMetrics(deployment.Metrics(e.st.Backend(), e.st.PoolStats())),
		Summary:           e.summaryStatus(s),
		Chunking:          e.chunkingStatus(),
		Reranking:         e.rerankingStatus(),
		Compression:       CompressionStatus(e.gen.CompressionStatus()),
	}
	if out.SemanticSearch, err = e.semanticStatus(ctx, acc, s.TotalEntries); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	if out.IndexTree, err = e.indexTreeStatus(ctx, acc); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	if out.FTS, err = e.ftsStatus(ctx, acc, s.TotalEntries); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	if s.TotalThreads > 0 {
		out.AvgEntriesPerThread = round2(float64(s.TotalEntries) / float64(s.TotalThreads))
	}
	for _, c := range s.MostActive {
		out.MostActiveThreads = append(out.MostActiveThreads, NameCount{ThreadID: c.Name, Count: c.Count})
	}
	for _, c := range s.TopTags {
		out.TopTags = append(out.TopTags, NameCount{Tag: c.Name, Count: c.Count})
	}
	if s.DBSizeBytes >= 0 {
		mb := round2(float64(s.DBSizeBytes) / (1 << 20))
		out.DatabaseSizeMB = &mb
	}
	if !deployment.Visible(e.cfg.OperatorRole, p.Roles) { // ACCESS_CONTROL_OPERATOR_ROLE
		out.ConnectionMetrics = ConnectionMetrics(deployment.ConnectionMetrics(out.ConnectionMetrics).Private())
		out.DatabaseSizeMB = nil
		return out, nil // nor the time of sizing every principal's vectors
	}
	if out.EmbeddingsSizeMB, out.EmbeddingsEstimated, err = e.embeddingsSizeMB(ctx); err != nil {
		return nil, fmt.Errorf("statistics: %w", err)
	}
	return out, nil
}

func nonNilMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}
