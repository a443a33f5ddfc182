package api

import (
	"runtime"
	"time"
)

// Limits bound what one call may cost and how expensive calls share the
// machine with cheap ones; the server enforces them (server.Limits) and
// package config reads them from the environment. The zero value is the
// defaults.
//
// Every ranked search (search_context, fts_search_context,
// semantic_search_context, hybrid_search_context, search_knowledge) runs
// under a deadline, and its query is at most MaxQueryChars code points.
// The engine bounds the rest of a search's work (index.Options,
// knowledge.Options: the terms scored, the candidates visited), so the
// deadline only stops what the bounds did not foresee: a loaded machine,
// a store far larger than they were measured on.
//
// Heavy calls (a ranked query of more than HeavyQueryChars code points,
// grep_context, upload_file, bulk_upload) run at most HeavyCalls at a
// time; one that waits longer than HeavyQueueTimeout for its turn is
// refused. Three 10,000-character hybrid queries at once otherwise held
// both cores of a 2-core machine, and ordinary calls of other clients
// waited behind them; with one heavy call at a time the other core stays
// free for them.
type Limits struct {
	// MaxQueryChars caps a ranked search's query (SEARCH_MAX_QUERY_CHARS;
	// 0 = DefaultMaxQueryChars, the most the tools' schemas allow).
	MaxQueryChars int
	// SearchTimeout is a ranked search's deadline, counted from when it
	// starts running, the wait for the in-process indexes to apply the
	// latest writes included (SEARCH_TIMEOUT_MS; 0 = DefaultSearchTimeout,
	// negative = none).
	SearchTimeout time.Duration
	// HeavyQueryChars is the query length past which a ranked search is
	// heavy (HEAVY_QUERY_CHARS; 0 = DefaultHeavyQueryChars).
	HeavyQueryChars int
	// HeavyCalls is how many heavy calls run at once (HEAVY_CALLS;
	// 0 = half the CPUs the process may use, at least one; negative =
	// no pool).
	HeavyCalls int
	// HeavyQueueTimeout bounds a heavy call's wait for its turn
	// (HEAVY_QUEUE_TIMEOUT_MS; 0 = DefaultHeavyQueueTimeout).
	HeavyQueueTimeout time.Duration
}

// Defaults of Limits.
const (
	DefaultMaxQueryChars     = 10000
	DefaultSearchTimeout     = 30 * time.Second
	DefaultHeavyQueryChars   = 1000
	DefaultHeavyQueueTimeout = 10 * time.Second
)

// WithDefaults fills the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxQueryChars <= 0 || l.MaxQueryChars > DefaultMaxQueryChars {
		l.MaxQueryChars = DefaultMaxQueryChars
	}
	if l.SearchTimeout == 0 {
		l.SearchTimeout = DefaultSearchTimeout
	}
	if l.HeavyQueryChars <= 0 {
		l.HeavyQueryChars = DefaultHeavyQueryChars
	}
	if l.HeavyCalls == 0 {
		l.HeavyCalls = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if l.HeavyQueueTimeout <= 0 {
		l.HeavyQueueTimeout = DefaultHeavyQueueTimeout
	}
	return l
}
