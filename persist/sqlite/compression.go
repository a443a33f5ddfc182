package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// This file stores the compressed forms of chunk vectors (migration 0006):
// the code column of embedding_chunks, the compression_metadata singleton
// and the rewrites of a migration between float32 and compressed storage.

// nullBlob maps an empty code to SQL NULL.
func nullBlob(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// VectorForms counts the chunk rows by form and sums the code bytes.
func (r reader) VectorForms(ctx context.Context) (persist.VectorForms, error) {
	var f persist.VectorForms
	if err := r.q.QueryRowContext(ctx, `SELECT count(*),
		coalesce(sum(length(embedding) > 0), 0), count(code), coalesce(sum(length(code)), 0)
		FROM embedding_chunks`).Scan(&f.Chunks, &f.Float, &f.Code, &f.CodeBytes); err != nil {
		return persist.VectorForms{}, fmt.Errorf("sqlite: count vector forms: %w", err)
	}
	return f, nil
}

// HasCodes reads the partial index of the coded chunks (migration 0008):
// counting every row's forms read the whole table at every start, 0.62 s
// of CPU of a 2.1 s start at 1M chunks.
func (r reader) HasCodes(ctx context.Context) (bool, error) {
	var has bool
	if err := r.q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE code IS NOT NULL)`).Scan(&has); err != nil {
		return false, fmt.Errorf("sqlite: look for vector codes: %w", err)
	}
	return has, nil
}

// HasUncoded reads the partial index of the chunks without a code
// (migration 0009), empty with compression on.
func (r reader) HasUncoded(ctx context.Context) (bool, error) {
	var has bool
	if err := r.q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE code IS NULL)`).Scan(&has); err != nil {
		return false, fmt.Errorf("sqlite: look for chunks without codes: %w", err)
	}
	return has, nil
}

const sqlRewriteChunk = `UPDATE embedding_chunks SET embedding = ?, code = ? WHERE id = ?`

// RewriteChunks replaces the forms of the chunks named by forms. The float32
// vectors are checked against the dimension of their entry's metadata row.
func (t *tx) RewriteChunks(ctx context.Context, forms []persist.ChunkForm) error {
	for i, f := range forms {
		var dim int
		err := t.queryRow(ctx, `SELECT m.dimensions FROM embedding_chunks c
			JOIN embedding_metadata m ON m.context_id = c.context_id WHERE c.id = ?`, int64(f.Key)).Scan(&dim)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("sqlite: rewrite chunks: no chunk %d", f.Key)
		}
		if err != nil {
			return fmt.Errorf("sqlite: rewrite chunks: %w", err)
		}
		if err := sqlval.CheckForms(f.Vector, f.Code, dim); err != nil {
			return fmt.Errorf("sqlite: rewrite chunks: form %d (chunk %d): %w", i, f.Key, err)
		}
		if _, err := t.exec(ctx, sqlRewriteChunk, sqlval.EncodeVector(f.Vector), nullBlob(f.Code), int64(f.Key)); err != nil {
			return fmt.Errorf("sqlite: rewrite chunks: chunk %d: %w", f.Key, err)
		}
	}
	return nil
}
