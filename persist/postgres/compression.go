package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
	"github.com/jackc/pgx/v5"
)

// This file stores the compressed forms of chunk vectors (migration 0003):
// the code column of embedding_chunks, the compression_metadata singleton
// and the rewrites of a migration between float32 and compressed storage.

// vectorArg is the stored float32 form of v: NULL when the chunk has none.
func vectorArg(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return sqlval.EncodeVector(v)
}

// codeArg is the stored code: NULL when the chunk has none.
func codeArg(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// VectorForms counts the chunk rows by form and sums the code bytes.
func (r reader) VectorForms(ctx context.Context) (persist.VectorForms, error) {
	var f persist.VectorForms
	if err := r.q.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE octet_length(embedding) > 0),
		count(code), coalesce(sum(octet_length(code)), 0)::bigint FROM embedding_chunks`).Scan(&f.Chunks, &f.Float, &f.Code, &f.CodeBytes); err != nil {
		return persist.VectorForms{}, wrap("count vector forms", err)
	}
	return f, nil
}

// HasUncoded reports whether any chunk lacks a code (a partial index,
// migration 0005).
func (r reader) HasUncoded(ctx context.Context) (bool, error) {
	var has bool
	if err := r.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE code IS NULL)`).Scan(&has); err != nil {
		return false, wrap("look for chunks without codes", err)
	}
	return has, nil
}

// HasCodes reports whether any chunk holds a code (a partial index,
// migration 0005).
func (r reader) HasCodes(ctx context.Context) (bool, error) {
	var has bool
	if err := r.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE code IS NOT NULL)`).Scan(&has); err != nil {
		return false, wrap("look for vector codes", err)
	}
	return has, nil
}

// RewriteChunks replaces the forms of the chunks named by forms. The float32
// vectors are checked against the dimension of their entry's metadata row.
func (t *tx) RewriteChunks(ctx context.Context, forms []persist.ChunkForm) error {
	for i, f := range forms {
		var dim int
		err := t.tx.QueryRow(ctx, `SELECT m.dimensions FROM embedding_chunks c
			JOIN embedding_metadata m ON m.context_id = c.context_id WHERE c.id = $1`, int64(f.Key)).Scan(&dim)
		if errors.Is(err, pgx.ErrNoRows) {
			return errf("rewrite chunks: no chunk %d", f.Key)
		}
		if err != nil {
			return wrap("rewrite chunks", err)
		}
		if err := sqlval.CheckForms(f.Vector, f.Code, dim); err != nil {
			return errf("rewrite chunks: form %d (chunk %d): %v", i, f.Key, err)
		}
		if _, err := t.tx.Exec(ctx, `UPDATE embedding_chunks SET embedding = $1, code = $2 WHERE id = $3`,
			vectorArg(f.Vector), codeArg(f.Code), int64(f.Key)); err != nil {
			return wrap(fmt.Sprintf("rewrite chunks: chunk %d", f.Key), err)
		}
	}
	return nil
}
