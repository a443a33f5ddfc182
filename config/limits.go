package config

import (
	"time"

	"github.com/contextd/contextd/api"
)

// Limits bound one call's cost and share the machine between heavy and
// cheap calls (api.Limits, which the server enforces). A zero field is the
// server's default.
type Limits = api.Limits

// readLimits reads Limits:
//
//	SEARCH_MAX_QUERY_CHARS   longest ranked-search query, 1-10000 code points (default 10000)
//	SEARCH_TIMEOUT_MS        a ranked search's deadline, 0 (none) to 3600000 (default 30000)
//	HEAVY_QUERY_CHARS        a longer ranked-search query is heavy, 1-10000 (default 1000)
//	HEAVY_CALLS              heavy calls at once, 0 (no pool) to 1024 (default half the CPUs, at least 1)
//	HEAVY_QUEUE_TIMEOUT_MS   a heavy call's wait for its turn, 1-3600000 (default 10000)
func readLimits(r *envReader, c *Config) {
	l := &c.Server.Limits
	l.MaxQueryChars = r.intRange("SEARCH_MAX_QUERY_CHARS", 10000, 1, 10000)
	if l.SearchTimeout = time.Duration(r.intRange("SEARCH_TIMEOUT_MS", 30000, 0, 3_600_000)) * time.Millisecond; l.SearchTimeout == 0 {
		l.SearchTimeout = -1 // none
	}
	l.HeavyQueryChars = r.intRange("HEAVY_QUERY_CHARS", 1000, 1, 10000)
	if _, ok := r.lookup("HEAVY_CALLS"); ok {
		if l.HeavyCalls = r.intRange("HEAVY_CALLS", 0, 0, 1024); l.HeavyCalls == 0 {
			l.HeavyCalls = -1 // no pool
		}
	}
	l.HeavyQueueTimeout = time.Duration(r.intRange("HEAVY_QUEUE_TIMEOUT_MS", 10000, 1, 3_600_000)) * time.Millisecond
}
