package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// Compression returns the compression_metadata row; ok is false when there
// is none.
func (r reader) Compression(ctx context.Context) (persist.Compression, bool, error) {
	var (
		c    persist.Compression
		seed int64
	)
	err := r.q.QueryRow(ctx, `SELECT provider, bits, variant, seed, dim, codebook_fingerprint, created_at
		FROM compression_metadata WHERE id = 1`).Scan(&c.Provider, &c.Bits, &c.Variant, &seed, &c.Dim, &c.Fingerprint, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return persist.Compression{}, false, nil
	}
	if err != nil {
		return persist.Compression{}, false, wrap("read compression metadata", err)
	}
	c.Seed = uint32(seed)
	c.CreatedAt = c.CreatedAt.UTC()
	return c, true, nil
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

// SetCompression writes (or, with nil, removes) the compression_metadata
// row in the transaction. A zero CreatedAt is now.
func (t *tx) SetCompression(ctx context.Context, c *persist.Compression) error {
	if c == nil {
		if _, err := t.tx.Exec(ctx, `DELETE FROM compression_metadata`); err != nil {
			return wrap("remove compression metadata", err)
		}
		return nil
	}
	if err := sqlval.CheckCompression(c); err != nil {
		return errf("set compression metadata: %v", err)
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO compression_metadata
		(id, provider, bits, variant, seed, dim, codebook_fingerprint, created_at) VALUES (1, $1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET provider = excluded.provider, bits = excluded.bits,
			variant = excluded.variant, seed = excluded.seed, dim = excluded.dim,
			codebook_fingerprint = excluded.codebook_fingerprint, created_at = excluded.created_at`,
		c.Provider, c.Bits, c.Variant, int64(c.Seed), c.Dim, c.Fingerprint, ts(created)); err != nil {
		return wrap("set compression metadata", err)
	}
	return nil
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
