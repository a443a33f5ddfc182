package sqlstore

import (
	"context"
	"errors"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// Compression returns the compression_metadata row; ok is false when there
// is none.
func (r Reader) Compression(ctx context.Context) (persist.Compression, bool, error) {
	var (
		c       persist.Compression
		seed    int64
		created Time
	)
	err := r.Q.QueryRow(ctx, `SELECT provider, bits, variant, seed, dim, codebook_fingerprint, created_at
		FROM compression_metadata WHERE id = 1`).Scan(&c.Provider, &c.Bits, &c.Variant, &seed, &c.Dim, &c.Fingerprint, &created)
	if errors.Is(err, ErrNoRows) {
		return persist.Compression{}, false, nil
	}
	if err != nil {
		return persist.Compression{}, false, r.D.Wrap("read compression metadata", err)
	}
	c.Seed = uint32(seed)
	c.CreatedAt = created.T
	return c, true, nil
}

// SetCompression writes (or, with nil, removes) the compression_metadata
// row in the transaction. A zero CreatedAt is now.
func (x Writes) SetCompression(ctx context.Context, c *persist.Compression) error {
	d := x.D
	if c == nil {
		if _, err := x.W.Exec(ctx, `DELETE FROM compression_metadata`); err != nil {
			return d.Wrap("remove compression metadata", err)
		}
		return nil
	}
	if err := sqlval.CheckCompression(c); err != nil {
		return d.Errf("set compression metadata: %w", err)
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	b := NewBuilder(d)
	b.W(`INSERT INTO compression_metadata
		(id, provider, bits, variant, seed, dim, codebook_fingerprint, created_at) VALUES (1, `)
	b.Arg(c.Provider).W(", ").Arg(c.Bits).W(", ").Arg(c.Variant).W(", ").Arg(int64(c.Seed)).W(", ")
	b.Arg(c.Dim).W(", ").Arg(c.Fingerprint).W(", ").Arg(d.Time(created)).W(`)
		ON CONFLICT (id) DO UPDATE SET provider = excluded.provider, bits = excluded.bits,
			variant = excluded.variant, seed = excluded.seed, dim = excluded.dim,
			codebook_fingerprint = excluded.codebook_fingerprint, created_at = excluded.created_at`)
	if _, err := x.W.Exec(ctx, b.String(), b.Args()...); err != nil {
		return d.Wrap("set compression metadata", err)
	}
	return nil
}
