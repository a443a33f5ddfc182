package postgres

// This file applies the pool settings pgxpool has no option for: the
// bound on waiting for a free connection (POSTGRESQL_POOL_TIMEOUT_S), the
// size above which a statement is not prepared and cached
// (POSTGRESQL_MAX_CACHEABLE_STATEMENT_SIZE) and the lifetime of a
// connection's cached statements (POSTGRESQL_MAX_CACHED_STATEMENT_LIFETIME_S).
// The cap of a session-mode pooler (POSTGRESQL_SESSION_POOLER_MAX_CLIENTS)
// is applied to MaxConns by configure (store.go).

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// errPoolTimeout is the failure to get a connection within PoolTimeout
// (every connection busy, or a new one does not come up because the
// server does not answer: pgxpool counts a connection being made for a
// waiting caller as busy, so the two look alike); it matches
// errors.ErrDatabaseUnavailable (and so ErrUnavailable), and as a dbError
// it passes wrap unchanged.
var errPoolTimeout error = &dbError{what: "acquire connection", sent: cerrors.ErrDatabaseUnavailable,
	kind: "no free connection within POSTGRESQL_POOL_TIMEOUT_S (every connection of the pool is busy, or the database server does not answer)"}

// poolQ is the Store's way to the pool: every statement and transaction
// acquires its connection here, waiting at most wait for one, and
// statements longer than maxStmt run without a prepared statement.
type poolQ struct {
	pool    *pgxpool.Pool
	wait    time.Duration // 0: as long as ctx allows
	maxStmt int           // 0: every statement may be cached
}

// acquire takes a connection, waiting at most p.wait. Running out of that
// time is errPoolTimeout; the caller's own cancellation stays its error.
func (p poolQ) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	if p.wait <= 0 {
		return p.pool.Acquire(ctx)
	}
	actx, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	c, err := p.pool.Acquire(actx)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return nil, errPoolTimeout
	}
	return c, err
}

// args prepends the exec mode that prepares nothing to the arguments of a
// statement longer than maxStmt: such statements (long ANY lists are
// bound, but generated SQL can still grow with filters) would each take a
// slot of the LRU statement cache for one use.
func (p poolQ) args(sql string, args []any) []any {
	if p.maxStmt > 0 && len(sql) > p.maxStmt {
		return append([]any{pgx.QueryExecModeDescribeExec}, args...)
	}
	return args
}

func (p poolQ) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer c.Release()
	return c.Exec(ctx, sql, p.args(sql, args)...)
}

func (p poolQ) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, sql, p.args(sql, args)...)
	if err != nil {
		c.Release()
		return nil, err
	}
	return &connRows{Rows: rows, release: sync.OnceFunc(c.Release)}, nil
}

func (p poolQ) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := p.Query(ctx, sql, args...)
	return oneRow{rows: rows, err: err}
}

func (p poolQ) Begin(ctx context.Context) (pgx.Tx, error) {
	return p.BeginTx(ctx, pgx.TxOptions{})
}

// BeginTx starts a transaction on a connection of its own, given back to
// the pool when the transaction ends.
func (p poolQ) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.BeginTx(ctx, opts)
	if err != nil {
		c.Release()
		return nil, err
	}
	return &connTx{Tx: tx, p: p, release: sync.OnceFunc(c.Release)}, nil
}

// connRows gives its connection back when the rows are done.
type connRows struct {
	pgx.Rows
	release func()
}

func (r *connRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.release()
	return false
}

func (r *connRows) Close() {
	r.Rows.Close()
	r.release()
}

// oneRow is QueryRow's row: the first row, or pgx.ErrNoRows.
type oneRow struct {
	rows pgx.Rows
	err  error
}

func (r oneRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

// connTx is a transaction on an acquired connection: its statements obey
// maxStmt, and its end gives the connection back.
type connTx struct {
	pgx.Tx
	p       poolQ
	release func()
}

func (t *connTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.Tx.Exec(ctx, sql, t.p.args(sql, args)...)
}

func (t *connTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.Tx.Query(ctx, sql, t.p.args(sql, args)...)
}

func (t *connTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.Tx.QueryRow(ctx, sql, t.p.args(sql, args)...)
}

func (t *connTx) Commit(ctx context.Context) error {
	defer t.release()
	return t.Tx.Commit(ctx)
}

func (t *connTx) Rollback(ctx context.Context) error {
	defer t.release()
	return t.Tx.Rollback(ctx)
}

// stmtLifetime drops a connection's cached prepared statements once they
// are older than life, when the pool hands the connection out: a schema
// change by another replica (or a migration) then reaches every
// connection within that time instead of failing with "cached plan must
// not change result type" until the connection is recycled.
type stmtLifetime struct {
	life  time.Duration
	now   func() time.Time
	reset sync.Map // *pgx.Conn -> time.Time of its last reset (or open)
}

// prepare is pgxpool's PrepareConn hook.
func (l *stmtLifetime) prepare(ctx context.Context, conn *pgx.Conn) (bool, error) {
	now := l.now()
	v, loaded := l.reset.LoadOrStore(conn, now)
	if !loaded || now.Sub(v.(time.Time)) < l.life {
		return true, nil
	}
	if err := conn.DeallocateAll(ctx); err != nil {
		return false, err // pgxpool destroys the connection and tries another
	}
	l.reset.Store(conn, now)
	return true, nil
}

// sessionPooler reports a host that serves a session-mode pooler with a
// per-user client cap: Supabase's Supavisor on port 5432 of
// *.pooler.supabase.com (port 6543 is its transaction mode, which takes
// many clients). POSTGRESQL_SESSION_POOLER_MAX_CLIENTS bounds the pool
// there, so that the pool does not open connections the pooler refuses
// ("max clients reached").
func sessionPooler(host string, port uint16) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if ip := net.ParseIP(host); ip != nil {
		return false
	}
	return port == 5432 && strings.HasSuffix(host, ".pooler.supabase.com")
}
