package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
