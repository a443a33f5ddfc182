package persist

import "time"

// PoolStats describes a store's connection pool and the database
// operations run through it since the store was opened. Counters only
// grow; the connection figures are the state at the time of the call.
type PoolStats struct {
	// PoolSize is the most connections the store keeps open at once.
	PoolSize int
	// OpenConnections are open now, InUse of them serving a call, Idle
	// the rest.
	OpenConnections, InUse, Idle int
	// TotalConnections counts connections opened since the store was
	// opened; FailedConnections the attempts to open one that failed.
	TotalConnections, FailedConnections int64
	// WaitCount counts calls that waited for a free connection, and
	// WaitDuration is their total wait.
	WaitCount    int64
	WaitDuration time.Duration
	// TotalQueries counts the database operations run (reads and write
	// transactions), FailedQueries those that failed for a reason other
	// than the caller's cancellation, and ConsecutiveFailures the failures
	// since the last success.
	TotalQueries, FailedQueries, ConsecutiveFailures int64
	// LastError is the kind of the last failure in fixed words ("database
	// busy", "disk full", ...), never a driver message, and LastErrorTime
	// when it happened; both are zero before any failure.
	LastError     string
	LastErrorTime time.Time
	// WriteQueue counts write transactions waiting for the writer now.
	WriteQueue int
	// HealthChecks counts the checks of idle connections run, and
	// HealthCheckFailures those that failed (the connection is then
	// discarded and LastError names the failure).
	HealthChecks, HealthCheckFailures int64
}
