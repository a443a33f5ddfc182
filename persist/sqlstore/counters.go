package sqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextd/contextd/persist"
)

// Counters are the connection and statement figures of persist.PoolStats
// that both stores keep, from their driver's hooks (a counting connector
// on SQLite, a query tracer on PostgreSQL).
type Counters struct {
	Opened, OpenFailed                 atomic.Int64
	Queries, Failed, ConsecutiveFailed atomic.Int64
	WriteQueue                         atomic.Int64

	mu          sync.Mutex
	lastError   string
	lastErrorAt time.Time
}

// Record counts one statement that ended with err. An empty one-row
// result (noRows) and a cancellation by the caller are not failures of
// the database; kind names a failure in fixed words (statistics are shown
// to every caller, and a driver message may quote stored data).
func (c *Counters) Record(err error, noRows bool, kind func(error) string) {
	c.Queries.Add(1)
	switch {
	case err == nil, noRows:
		c.ConsecutiveFailed.Store(0)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	default:
		c.Failed.Add(1)
		c.ConsecutiveFailed.Add(1)
		c.SetLastError(kind(err))
	}
}

// SetLastError records the kind of the latest failure, now.
func (c *Counters) SetLastError(kind string) {
	c.mu.Lock()
	c.lastError, c.lastErrorAt = kind, time.Now().UTC()
	c.mu.Unlock()
}

// Fill copies the counters into out.
func (c *Counters) Fill(out *persist.PoolStats) {
	out.TotalConnections = c.Opened.Load()
	out.FailedConnections = c.OpenFailed.Load()
	out.TotalQueries = c.Queries.Load()
	out.FailedQueries = c.Failed.Load()
	out.ConsecutiveFailures = c.ConsecutiveFailed.Load()
	out.WriteQueue = int(c.WriteQueue.Load())
	c.mu.Lock()
	out.LastError, out.LastErrorTime = c.lastError, c.lastErrorAt
	c.mu.Unlock()
}
