package sqlite

// Pool upkeep (POOL_IDLE_TIMEOUT_S, POOL_HEALTH_CHECK_INTERVAL_S).
//
// A reader connection idle for IdleTimeout is closed by database/sql
// (SetConnMaxIdleTime), so a burst of readers gives back its page caches
// (each connection holds up to SQLITE_CACHE_SIZE, 64 MB by default) once
// the burst is over. The writer is exempt: it is one connection holding
// the prepared write statements, and in memory the database itself.
//
// Every HealthCheckInterval the connections idle in the reader pool are
// checked: each runs a read of the schema, which reads the database
// file's first page (a plain "SELECT 1", which is what the driver's Ping
// runs, touches no file, so it would not notice a file replaced or damaged
// under the pool). A connection that fails is discarded, and the failure
// is counted and named, in fixed words, in get_statistics'
// connection_metrics (health_checks, health_check_failures, last_error).
// A check holds the idle connections only for the length of that read,
// and a reader arriving meanwhile opens another connection if it must.
// The checker stops on Close, before the connections close.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"time"
)

// startHealth starts the checker of the reader pool.
func (s *Store) startHealth() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.stopHealth = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		t := time.NewTicker(s.cfg.healthInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.checkIdle(ctx)
			}
		}
	}()
}

// checkIdle checks each connection idle in the reader pool now.
func (s *Store) checkIdle(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.healthInterval)
	defer cancel()
	conns, err := s.idleReaders(ctx)
	defer closeConns(conns)
	if err != nil {
		s.metrics.health(err)
		return
	}
	for _, c := range conns {
		var tables int
		err := c.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables)
		s.metrics.health(err)
		if err != nil && ctx.Err() == nil {
			// Discard the connection rather than hand it to a reader.
			_ = c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
}

// idleReaders takes the connections idle in the reader pool now (the
// caller closes them, which returns them to the pool), as many as it got
// before an error.
func (s *Store) idleReaders(ctx context.Context) ([]*sql.Conn, error) {
	n := s.r.Stats().Idle
	conns := make([]*sql.Conn, 0, n+1)
	for range n {
		c, err := s.r.Conn(ctx)
		if err != nil {
			return conns, err
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func closeConns(conns []*sql.Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// health counts one connection check that ended with err.
func (m *metrics) health(err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return // the store is closing, or the check outlived its interval
	}
	m.healthChecks.Add(1)
	if err == nil {
		return
	}
	m.healthFailed.Add(1)
	m.SetLastError(errorKind(err))
}
