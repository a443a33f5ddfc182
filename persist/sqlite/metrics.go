package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// metrics counts what PoolStats reports beyond database/sql's own pool
// figures: connections opened and failed, operations run and failed, and
// writers waiting. Everything is atomic or under mu: every goroutine of
// the store records into it.
type metrics struct {
	sqlstore.Counters
	healthChecks, healthFailed atomic.Int64 // health.go
}

// record counts one operation that ended with err. A cancellation by the
// caller and sql.ErrNoRows are not failures of the database.
func (m *metrics) record(err error) {
	m.Record(err, errors.Is(err, sql.ErrNoRows), errorKind)
}

// errorKind names the kind of a failure in fixed words: statistics are
// shown to every caller, and a driver message may quote stored data.
func errorKind(err error) string {
	var se *sqlitedrv.Error
	if !errors.As(err, &se) {
		return "database error"
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY:
		return "database busy"
	case sqlite3.SQLITE_LOCKED:
		return "database table locked"
	case sqlite3.SQLITE_CONSTRAINT:
		return "constraint violated"
	case sqlite3.SQLITE_FULL:
		return "disk full"
	case sqlite3.SQLITE_IOERR:
		return "disk I/O error"
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return "database file corrupt"
	case sqlite3.SQLITE_READONLY:
		return "database read-only"
	case sqlite3.SQLITE_CANTOPEN:
		return "cannot open database file"
	case sqlite3.SQLITE_NOMEM:
		return "out of memory"
	case sqlite3.SQLITE_INTERRUPT:
		return "interrupted"
	}
	return "database error"
}

// countingQuerier records every statement run through q.
type countingQuerier struct {
	q querier
	m *metrics
}

func (c countingQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := c.q.ExecContext(ctx, query, args...)
	c.m.record(err)
	return res, err
}

func (c countingQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := c.q.QueryContext(ctx, query, args...)
	c.m.record(err)
	return rows, err
}

func (c countingQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	row := c.q.QueryRowContext(ctx, query, args...)
	c.m.record(row.Err()) // the query's own error; ErrNoRows comes with Scan
	return row
}

// sameCounting returns q counted like r's own querier, for a snapshot
// transaction a reader opens on its pool.
func (r reader) sameCounting(q querier) querier {
	if c, ok := r.q.(countingQuerier); ok {
		return countingQuerier{q: q, m: c.m}
	}
	return q
}

// countingConnector opens connections of the registered "sqlite" driver
// as sql.Open would (the driver has no connector of its own), counting
// the connections opened and the attempts that failed.
type countingConnector struct {
	dsn string
	drv driver.Driver
	m   *metrics
}

func (c countingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		c.m.OpenFailed.Add(1)
		return nil, err
	}
	c.m.Opened.Add(1)
	return conn, nil
}

func (c countingConnector) Driver() driver.Driver { return c.drv }

// openCounted is sql.Open("sqlite", dsn) with connections counted in m.
func openCounted(dsn string, m *metrics) (*sql.DB, error) {
	probe, err := sql.Open("sqlite", "") // connects nothing: only finds the registered driver
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	if err := probe.Close(); err != nil {
		return nil, fmt.Errorf("sqlite: find driver: %w", err)
	}
	return sql.OpenDB(countingConnector{dsn: dsn, drv: drv, m: m}), nil
}

// PoolStats reports the writer connection and the reader pool together:
// one writer plus POOL_MAX_READERS readers.
func (s *Store) PoolStats() persist.PoolStats {
	var out persist.PoolStats
	for _, db := range []*sql.DB{s.w, s.r} {
		if db == nil {
			continue
		}
		st := db.Stats()
		out.PoolSize += st.MaxOpenConnections
		out.OpenConnections += st.OpenConnections
		out.InUse += st.InUse
		out.Idle += st.Idle
		out.WaitCount += st.WaitCount
		out.WaitDuration += st.WaitDuration
	}
	m := &s.metrics
	m.Fill(&out)
	out.HealthChecks, out.HealthCheckFailures = m.healthChecks.Load(), m.healthFailed.Load()
	return out
}
