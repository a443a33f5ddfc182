package compress

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/persist"
)

// Status is the compression block of get_statistics (C.15):
// {enabled, available, provider, bits, variant, seed, dim, max_concurrent}
// once the provenance is recorded, {enabled: false, available: false}
// with compression off, {enabled: true, available: false, message} while
// it is on but not bootstrapped.
type Status = api.CompressionStatus

// NotBootstrapped is C.15's message for compression that is on while the
// database has no compression provenance (the start-up check records it;
// an engine that skipped the check, as migrate reembed's does, has none).
const NotBootstrapped = "Compression enabled but provenance not bootstrapped"

// StatusOf reports codec c for get_statistics: off when nil, available
// when the start-up check recorded or confirmed its provenance.
func StatusOf(c *Codec, checked bool) Status {
	switch {
	case c == nil:
		return Status{}
	case !checked:
		return Status{Enabled: true, Message: NotBootstrapped}
	}
	p := c.Provenance()
	seed := p.Seed
	n := c.settings.MaxConcurrent
	if n <= 0 {
		n = cap(c.sem)
	}
	return Status{Enabled: true, Available: true, Provider: p.Provider, Bits: p.Bits, Variant: p.Variant,
		Seed: &seed, Dim: p.Dim, MaxConcurrent: n}
}

// SizeStore reports stored vector sizes (persist.Store has it).
type SizeStore interface {
	EmbeddingBytes(ctx context.Context) (int64, error)
	VectorForms(ctx context.Context) (persist.VectorForms, error)
	Backend() string
}

// StoredSize is get_statistics' embeddings_size_mb in bytes with its
// embeddings_size_estimated flag (C.15): on SQLite the exact payload bytes
// of the codes when compression is on, else the float32 estimate
// (4 bytes × dimensions × chunks, estimated); other backends report their
// own vector storage (PostgreSQL: the relation's size), not estimated.
func StoredSize(ctx context.Context, st SizeStore, c *Codec) (int64, bool, error) {
	if st.Backend() != "sqlite" {
		n, err := st.EmbeddingBytes(ctx)
		return n, false, err
	}
	if c == nil {
		n, err := st.EmbeddingBytes(ctx)
		return n, true, err
	}
	f, err := st.VectorForms(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("size embeddings: %w", err)
	}
	return f.CodeBytes, false, nil
}
