package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Fixed statements of the write path. They are prepared once on the
// writer connection at Open: parsing SQL was a fifth of the cost of an
// insert.
const (
	sqlInsertEntry = `INSERT INTO context_entries
		(id, thread_id, source, content_type, text_content, metadata, summary, content_hash,
		 version, owner_id, visibility, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertTag   = `INSERT INTO tags (context_entry_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING`
	sqlInsertImage = `INSERT INTO image_attachments
		(context_entry_id, image_data, mime_type, image_metadata, position, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`
	sqlInsertGrant = `INSERT INTO context_entry_grants
		(context_entry_id, principal_type, principal_id, permission, granted_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlInsertLog = `INSERT INTO change_log (entry_id, op, at) VALUES (?, ?, ?)`

	sqlEntryExists   = `SELECT EXISTS (SELECT 1 FROM context_entries WHERE id = ?)`
	sqlDeleteChunks  = `DELETE FROM embedding_chunks WHERE context_id = ?`
	sqlDeleteEmbMeta = `DELETE FROM embedding_metadata WHERE context_id = ?`
	sqlUpsertEmbMeta = `INSERT INTO embedding_metadata
		(context_id, model_name, dimensions, chunk_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (context_id) DO UPDATE SET model_name = excluded.model_name,
			dimensions = excluded.dimensions, chunk_count = excluded.chunk_count, updated_at = excluded.updated_at`
)

// stmtCache holds the fixed statements prepared on the writer pool. The
// pool has exactly one connection, so a transaction on it reuses them
// (Tx.StmtContext finds the statement already prepared on its connection);
// they must be prepared before any transaction holds that connection.
type stmtCache struct {
	m map[string]*sql.Stmt
}

func prepareWriteStmts(ctx context.Context, db *sql.DB) (*stmtCache, error) {
	c := &stmtCache{m: map[string]*sql.Stmt{}}
	for _, q := range []string{sqlInsertEntry, sqlInsertTag, sqlInsertImage, sqlInsertGrant, sqlInsertLog,
		sqlEntryExists, sqlInsertChunk, sqlDeleteChunks, sqlDeleteEmbMeta, sqlUpsertEmbMeta} {
		s, err := db.PrepareContext(ctx, q)
		if err != nil {
			_ = c.close()
			return nil, fmt.Errorf("sqlite: prepare write statement: %w", err)
		}
		c.m[q] = s
	}
	return c, nil
}

func (c *stmtCache) close() error {
	var errs []error
	for _, s := range c.m {
		errs = append(errs, s.Close())
	}
	c.m = nil
	return errors.Join(errs...)
}

// queryRow runs a one-row query inside the transaction, from the cache
// when it is one of the fixed statements.
func (t *tx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if s, ok := t.stmts.m[query]; ok {
		return t.tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

// exec runs a write statement inside the transaction, from the cache when
// it is one of the fixed statements.
func (t *tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s, ok := t.stmts.m[query]; ok {
		return t.tx.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// readCacheSize bounds the reader pool's statement cache: the statements
// a search and the follower run on every call are a few dozen texts (an
// IN list's text follows its length, so a page of 10 ids is one text).
const readCacheSize = 64

// readStmts caches the statements of the reader pool by their text, least
// recently used first out. Preparing was 42 % of the SQL time of a
// hybrid search at 100k entries (a CPU profile of 3,000 calls: 0.54 of
// 1.28 s in sqlite3_prepare), for statements whose text repeats call
// after call: the page read, its tags, the evidence's texts.
//
// database/sql prepares a cached statement again on each pool connection
// that runs it and forgets it with the connection (the pool closes idle
// readers, health.go). An evicted statement is closed once no call holds
// it: refs counts the calls between taking it and having run it, and
// closing a statement whose rows are still open is safe (database/sql
// closes the driver statement when the rows give back the connection).
type readStmts struct {
	db  *sql.DB
	max int

	mu   sync.Mutex
	m    map[string]*readStmt
	tick uint64 // use clock for least-recently-used eviction
}

type readStmt struct {
	st      *sql.Stmt
	refs    int
	used    uint64
	evicted bool
}

func newReadStmts(db *sql.DB, max int) *readStmts {
	return &readStmts{db: db, max: max, m: map[string]*readStmt{}}
}

// cacheable reports whether a statement is worth keeping: reads only, so
// a PRAGMA or a statement run once per connection never stays prepared.
func cacheable(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && (strings.EqualFold(q[:6], "SELECT") || strings.EqualFold(q[:4], "WITH"))
}

// take returns the prepared statement of query and its release, or nil
// when query is not cached (the caller runs it unprepared).
func (c *readStmts) take(ctx context.Context, query string) (*sql.Stmt, func()) {
	if !cacheable(query) {
		return nil, nil
	}
	c.mu.Lock()
	e, ok := c.m[query]
	if ok {
		c.tick++
		e.refs++
		e.used = c.tick
		c.mu.Unlock()
		return e.st, func() { c.release(e) }
	}
	c.mu.Unlock()
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, nil // the unprepared run reports the error
	}
	c.mu.Lock()
	if e, ok = c.m[query]; ok { // prepared meanwhile by another call
		c.tick++
		e.refs++
		e.used = c.tick
		c.mu.Unlock()
		_ = st.Close()
		return e.st, func() { c.release(e) }
	}
	c.tick++
	e = &readStmt{st: st, refs: 1, used: c.tick}
	c.m[query] = e
	var closing []*sql.Stmt
	if len(c.m) > c.max {
		closing = c.evictLocked()
	}
	c.mu.Unlock()
	for _, s := range closing {
		_ = s.Close()
	}
	return e.st, func() { c.release(e) }
}

// evictLocked drops the least recently used statement; it is closed now
// when no call holds it, else by its last release.
func (c *readStmts) evictLocked() []*sql.Stmt {
	var oldest string
	var at uint64
	for q, e := range c.m {
		if oldest == "" || e.used < at {
			oldest, at = q, e.used
		}
	}
	e := c.m[oldest]
	delete(c.m, oldest)
	e.evicted = true
	if e.refs == 0 {
		return []*sql.Stmt{e.st}
	}
	return nil
}

func (c *readStmts) release(e *readStmt) {
	c.mu.Lock()
	e.refs--
	done := e.evicted && e.refs == 0
	c.mu.Unlock()
	if done {
		_ = e.st.Close()
	}
}

// close closes every cached statement; the store is closing, so no call
// holds one.
func (c *readStmts) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for q, e := range c.m {
		errs = append(errs, e.st.Close())
		delete(c.m, q)
	}
	return errors.Join(errs...)
}

// cachedQuerier runs the reader pool's statements through its cache.
type cachedQuerier struct {
	db *sql.DB
	c  *readStmts
}

func (q cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.db.ExecContext(ctx, query, args...)
}

func (q cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, release := q.c.take(ctx, query)
	if st == nil {
		return q.db.QueryContext(ctx, query, args...)
	}
	defer release()
	return st.QueryContext(ctx, args...)
}

func (q cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, release := q.c.take(ctx, query)
	if st == nil {
		return q.db.QueryRowContext(ctx, query, args...)
	}
	defer release()
	return st.QueryRowContext(ctx, args...)
}
