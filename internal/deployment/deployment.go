// Package deployment owns the deployment-wide figures of get_statistics
// (connection_metrics, from the store's pool statistics) and what a caller
// who may not see them is shown instead.
//
//	m := deployment.Metrics("sqlite", store.PoolStats())
//	if !operator {
//		m = deployment.Private(m) // the same keys; the activity counters are zero
//	}
//
// The requirements (R-060, C.15) make database_size_mb,
// embeddings_size_mb, connection_metrics and the configuration fields
// deployment-wide, the same for every caller. Those figures move when
// another principal writes: a caller watching database_size_mb,
// embeddings_size_mb (the exact size of every stored vector: 1,536 bytes
// per 384-dimension chunk) or total_queries learns that, and how much,
// someone stores entries it cannot read. Where several principals share a
// deployment (HTTP with JWT), only callers holding the operator role
// (ACCESS_CONTROL_OPERATOR_ROLE, default "operator" there) see them; the
// others get the configuration (backend_type, pool_size, circuit_state)
// and zero activity counters under the same keys, and no size figures
// (keys the requirements already omit for an in-memory database).
package deployment

import (
	"math"
	"time"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// ConnectionMetrics describes the database connections of the deployment
// (C.15), from the store's PoolStats. This build has no circuit breaker
// (CIRCUIT_BREAKER_* are validated for one), so circuit_state is "none";
// health_checks count the checks of idle pool connections
// (POOL_HEALTH_CHECK_INTERVAL_S).
type ConnectionMetrics = api.ConnectionMetrics

// Metrics is connection_metrics of a store's pool statistics.
func Metrics(backend string, p persist.PoolStats) ConnectionMetrics {
	m := ConnectionMetrics{BackendType: backend, PoolSize: p.PoolSize, TotalQueries: p.TotalQueries,
		FailedQueries: p.FailedQueries, CircuitState: "none", ConsecutiveFailures: p.ConsecutiveFailures,
		TotalConnections: p.TotalConnections, ActiveConnections: p.InUse, FailedConnections: p.FailedConnections,
		WriteQueueSize: p.WriteQueue, OpenConnections: p.OpenConnections, IdleConnections: p.Idle,
		WaitCount: p.WaitCount, WaitDurationMS: math.Round(float64(p.WaitDuration)/float64(time.Millisecond)*100) / 100,
		HealthChecks: p.HealthChecks, HealthCheckFailures: p.HealthCheckFailures}
	if p.LastError != "" {
		at := request.WireTime(p.LastErrorTime)
		m.LastError, m.LastErrorTime = &p.LastError, &at
	}
	return m
}

// Private is m as a caller who may not see deployment-wide activity gets
// it: the configuration, and every counter zero.
func Private(m ConnectionMetrics) ConnectionMetrics {
	return ConnectionMetrics{BackendType: m.BackendType, PoolSize: m.PoolSize, CircuitState: m.CircuitState}
}

// Visible reports whether a caller with roles sees deployment-wide
// figures when operatorRole is required ("" requires nothing).
func Visible(operatorRole string, roles []string) bool {
	if operatorRole == "" {
		return true
	}
	for _, r := range roles {
		if r == operatorRole {
			return true
		}
	}
	return false
}
