package deployment

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// TestMetricsAndPrivate: connection_metrics carries the pool statistics
// (C.15 keys plus the health checks); the private view keeps every key,
// the configuration, and nothing that moves with other callers' activity.
func TestMetricsAndPrivate(t *testing.T) {
	at := time.Date(2026, 12, 3, 1, 2, 3, 0, time.UTC)
	p := persist.PoolStats{PoolSize: 9, OpenConnections: 3, InUse: 1, Idle: 2, TotalConnections: 5, FailedConnections: 1,
		WaitCount: 4, WaitDuration: 1500 * time.Microsecond, TotalQueries: 70, FailedQueries: 2, ConsecutiveFailures: 1,
		LastError: "database busy", LastErrorTime: at, WriteQueue: 3, HealthChecks: 12, HealthCheckFailures: 1}
	m := Metrics("sqlite", p)
	full, _ := json.Marshal(m)
	want := `{"backend_type":"sqlite","pool_size":9,"total_queries":70,"failed_queries":2,"circuit_state":"none",` +
		`"consecutive_failures":1,"last_error":"database busy","last_error_time":"` + *m.LastErrorTime + `","total_connections":5,` +
		`"active_connections":1,"failed_connections":1,"write_queue_size":3,"open_connections":3,"idle_connections":2,` +
		`"wait_count":4,"wait_duration_ms":1.5,"health_checks":12,"health_check_failures":1}`
	if string(full) != want {
		t.Fatalf("metrics\n got %s\nwant %s", full, want)
	}
	priv, _ := json.Marshal(Private(m))
	wantPriv := `{"backend_type":"sqlite","pool_size":9,"total_queries":0,"failed_queries":0,"circuit_state":"none",` +
		`"consecutive_failures":0,"last_error":null,"last_error_time":null,"total_connections":0,"active_connections":0,` +
		`"failed_connections":0,"write_queue_size":0,"open_connections":0,"idle_connections":0,"wait_count":0,` +
		`"wait_duration_ms":0,"health_checks":0,"health_check_failures":0}`
	if string(priv) != wantPriv {
		t.Fatalf("private\n got %s\nwant %s", priv, wantPriv)
	}
	for _, c := range []struct {
		role  string
		roles []string
		want  bool
	}{{"", nil, true}, {"operator", nil, false}, {"operator", []string{"reader", "operator"}, true}, {"operator", []string{"Operator"}, false}} {
		if got := Visible(c.role, c.roles); got != c.want {
			t.Errorf("Visible(%q, %v) = %v", c.role, c.roles, got)
		}
	}
}
