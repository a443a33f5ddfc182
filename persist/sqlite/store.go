package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"

	sqlitedrv "modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is a SQLite database holding contextd's truth. Reads run on a pool
// of query-only connections; writes run one at a time on a dedicated
// connection in BEGIN IMMEDIATE transactions, so they serialize (also
// across processes sharing the file, through busy_timeout) and never
// deadlock on a read-to-write lock upgrade.
type Store struct {
	reader
	w     *sql.DB
	r     *sql.DB
	keep  *sql.DB   // in memory only: holds one connection so the database lives
	conn  *sql.Conn // the held connection of keep
	cfg   settings
	stmts *stmtCache // fixed write statements, prepared on w
	reads *readStmts // the reader pool's statements, by text
	// metrics counts connections and operations for PoolStats.
	metrics metrics

	// committed is the highest change-log seq committed through this
	// Store. In memory, where readers read uncommitted, Changes stops
	// there so a follower never applies a change that may still roll back.
	committed atomic.Int64
	// afterCommit runs after each committed write (see AfterCommit).
	afterCommit atomic.Pointer[func(ctx context.Context)]
	// vecDim is the dimension of the sqlite-vec table of native vector
	// search, 0 when it does not exist (see EnsureVectorTable).
	vecDim atomic.Int64

	// stopHealth stops the pool's health checker (health.go).
	stopHealth func()

	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the database at o.Path, applies the
// pragmas of o and brings the schema up to date.
func Open(ctx context.Context, o Options) (*Store, error) {
	cfg, err := resolve(o)
	if err != nil {
		return nil, err
	}
	if !cfg.memory {
		if err := os.MkdirAll(filepath.Dir(cfg.file), 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create database directory: %w", err)
		}
	}
	wdsn, rdsn, err := cfg.dsns()
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg}
	fail := func(err error) (*Store, error) {
		_ = s.Close()
		return nil, err
	}
	if cfg.memory {
		// The first connection creates the shared in-memory database; it is
		// held until Close so the database outlives idle pool connections.
		if s.keep, err = sql.Open("sqlite", wdsn); err != nil {
			return fail(fmt.Errorf("sqlite: open in-memory database: %w", err))
		}
		if s.conn, err = s.keep.Conn(ctx); err != nil {
			return fail(fmt.Errorf("sqlite: open in-memory database: %w", err))
		}
	}
	if s.w, err = openCounted(wdsn, &s.metrics); err != nil {
		return fail(fmt.Errorf("sqlite: open writer: %w", err))
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)
	if err := s.connectWriter(ctx); err != nil {
		return fail(fmt.Errorf("sqlite: connect writer: %w", err))
	}
	if err := migrate(ctx, s.w); err != nil {
		return fail(err)
	}
	if err := s.loadVectorTable(ctx); err != nil {
		return fail(err)
	}
	if s.stmts, err = prepareWriteStmts(ctx, s.w); err != nil {
		return fail(err)
	}
	if s.r, err = openCounted(rdsn, &s.metrics); err != nil {
		return fail(fmt.Errorf("sqlite: open readers: %w", err))
	}
	s.r.SetMaxOpenConns(cfg.maxReaders)
	s.r.SetMaxIdleConns(cfg.maxReaders)
	s.r.SetConnMaxIdleTime(cfg.idleTimeout) // health.go
	if err := s.r.PingContext(ctx); err != nil {
		return fail(fmt.Errorf("sqlite: connect reader: %w", err))
	}
	s.reads = newReadStmts(s.r, readCacheSize)
	s.reader = newReader(countingQuerier{q: cachedQuerier{db: s.r, c: s.reads}, m: &s.metrics}, s.r, cfg.file)
	s.startHealth()
	return s, nil
}

// Backend names the dialect.
func (s *Store) Backend() string { return "sqlite" }

// Close closes every connection. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.stopHealth != nil {
			s.stopHealth()
		}
		var errs []error
		if s.reads != nil {
			errs = append(errs, s.reads.close())
		}
		if s.r != nil {
			errs = append(errs, s.r.Close())
		}
		if s.stmts != nil {
			errs = append(errs, s.stmts.close())
		}
		if s.w != nil {
			errs = append(errs, s.w.Close())
		}
		if s.conn != nil {
			errs = append(errs, s.conn.Close())
		}
		if s.keep != nil {
			errs = append(errs, s.keep.Close())
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("sqlite: close: %w", err)
		}
	})
	return s.closeErr
}

// Write runs fn in one serialized write transaction, committing when fn
// returns nil and rolling back otherwise (also when fn panics). fn's error
// is returned as is. fn must use tx for its reads and writes and must not
// call Write again (the writer connection is busy until fn returns); reads
// on the Store itself see the state before the transaction (in a
// ":memory:" store they may see its uncommitted writes).
func (s *Store) Write(ctx context.Context, fn func(tx persist.Tx) error) (err error) {
	if fn == nil {
		return errors.New("sqlite: write: nil function")
	}
	// A full disk, an I/O error or another process's lock is named by a
	// sentinel, whether begin, a statement of fn or the commit hit it.
	defer func() { err = storageError(err) }()
	// A writer waits here for the one writer connection: the write queue.
	s.metrics.WriteQueue.Add(1)
	stx, err := s.w.BeginTx(ctx, nil)
	s.metrics.WriteQueue.Add(-1)
	if err != nil {
		s.metrics.record(err)
		return fmt.Errorf("sqlite: begin write: %w", err)
	}
	t := &tx{reader: newReader(countingQuerier{q: stx, m: &s.metrics}, nil, s.cfg.file), tx: stx, fk: s.cfg.foreignKeys, stmts: s.stmts}
	t.Writes = sqlstore.Writes{D: Dialect, W: t}
	committed := false
	defer func() {
		if !committed {
			_ = stx.Rollback()
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	// A failure of fn is the caller's (a conflict, a missing entry) or
	// was recorded by the statement that failed; the commit is the
	// transaction's own operation.
	err = stx.Commit()
	s.metrics.record(err)
	if err != nil {
		return fmt.Errorf("sqlite: commit write: %w", err)
	}
	committed = true
	for {
		cur := s.committed.Load()
		if t.lastSeq <= cur || s.committed.CompareAndSwap(cur, t.lastSeq) {
			break
		}
	}
	if fn := s.afterCommit.Load(); fn != nil {
		(*fn)(ctx)
	}
	return nil
}

// Changes returns change-log rows with seq > after in seq order; limit <= 0
// means all of them.
func (s *Store) Changes(ctx context.Context, after int64, limit int) ([]persist.Change, error) {
	if limit <= 0 {
		limit = -1
	}
	upto := int64(math.MaxInt64)
	if s.cfg.memory {
		upto = s.committed.Load()
	}
	rows, err := s.q.QueryContext(ctx,
		`SELECT seq, entry_id, op FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`, after, upto, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read changes: %w", err)
	}
	defer rows.Close()
	var out []persist.Change
	for rows.Next() {
		var c persist.Change
		if err := rows.Scan(&c.Seq, &c.EntryID, &c.Op); err != nil {
			return nil, fmt.Errorf("sqlite: scan change: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read changes: %w", err)
	}
	return out, nil
}

// connectWriter opens the writer connection. Switching a new database to
// WAL needs an exclusive lock and SQLite reports SQLITE_BUSY for it without
// consulting the busy handler, so processes opening one new file at the same
// time retry here, within the busy timeout.
func (s *Store) connectWriter(ctx context.Context) error {
	deadline := time.Now().Add(time.Duration(s.cfg.busyTimeoutMS) * time.Millisecond)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := s.w.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlitedrv.Error
	if errors.As(err, &se) {
		code := se.Code() & 0xff
		return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
	}
	return false
}
