package api

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
// zero. This build has no circuit breaker, so circuit_state is "none".
// last_error is a kind in fixed words, never a driver message; it and
// last_error_time are null before any failure. health_checks and
// health_check_failures count the checks of idle pool connections.
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

// CompressionStatus is the compression block of get_statistics: {enabled,
// available, provider, bits, variant, seed, dim, max_concurrent} once the
// vector codes' provenance is recorded, {enabled: false, available: false}
// with compression off, {enabled: true, available: false, message} while
// it is on but not bootstrapped.
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
