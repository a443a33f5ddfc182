package compress

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// Store is what the start-up check reads and writes (persist.Store has it).
type Store interface {
	Compression(ctx context.Context) (persist.Compression, bool, error)
	VectorForms(ctx context.Context) (persist.VectorForms, error)
	HasCodes(ctx context.Context) (bool, error)
	HasUncoded(ctx context.Context) (bool, error)
	Write(ctx context.Context, fn func(tx persist.Tx) error) error
}

// Check compares the stored form of the vectors with codec c (nil:
// compression off) at start-up, as C.14 asks: with compression on, every
// stored chunk must hold a code of c's provenance, and a database without
// vectors records that provenance (the bootstrap); with compression off,
// no chunk may hold a code only and no provenance may be recorded. Any
// other state wraps cerrors.ErrCompressionChanged and names the migration
// that converts the database (the engine exits 78 on it).
func Check(ctx context.Context, st Store, c *Codec) error {
	rec, ok, err := st.Compression(ctx)
	if err != nil {
		return fmt.Errorf("read compression metadata: %w", err)
	}
	if c == nil {
		// With compression off (the default) only the presence of a code
		// matters; the counts are read for the message alone.
		has, err := st.HasCodes(ctx)
		if err != nil {
			return fmt.Errorf("read vector forms: %w", err)
		}
		if !ok && !has {
			return nil
		}
		f, err := st.VectorForms(ctx)
		if err != nil {
			return fmt.Errorf("read vector forms: %w", err)
		}
		return fmt.Errorf("%w: the database holds %d compressed chunk vectors (%s) but ENABLE_EMBEDDING_COMPRESSION=false; run `%s` to store them as float32, or enable compression",
			cerrors.ErrCompressionChanged, f.Code, describeOr(rec, ok), DecompressCommand)
	}
	want := c.Provenance()
	if ok && Same(rec, want) {
		// The usual start: only whether a chunk lacks its code matters,
		// and the counts are read for the message alone.
		uncoded, err := st.HasUncoded(ctx)
		if err != nil {
			return fmt.Errorf("read vector forms: %w", err)
		}
		if !uncoded {
			return nil
		}
	}
	f, err := st.VectorForms(ctx)
	if err != nil {
		return fmt.Errorf("read vector forms: %w", err)
	}
	switch {
	case ok && !Same(rec, want):
		return fmt.Errorf("%w: the stored vectors are compressed as %s but COMPRESSION_* configure %s; run `%s` to re-encode them with the configured settings, or configure the recorded ones",
			cerrors.ErrCompressionChanged, Describe(rec), Describe(want), CompressCommand)
	case f.Code < f.Chunks:
		return fmt.Errorf("%w: the database holds %d float32 chunk vectors without codes but ENABLE_EMBEDDING_COMPRESSION=true; run `%s` to compress them, or set ENABLE_EMBEDDING_COMPRESSION=false",
			cerrors.ErrCompressionChanged, f.Chunks-f.Code, CompressCommand)
	case !ok && f.Chunks > 0:
		return fmt.Errorf("%w: the database holds %d compressed chunk vectors without compression provenance; run `%s` to re-encode them with the configured settings",
			cerrors.ErrCompressionChanged, f.Chunks, CompressCommand)
	case !ok:
		return Record(ctx, st, c)
	}
	return nil
}

// Writer runs write transactions (persist.Store has it).
type Writer interface {
	Write(ctx context.Context, fn func(tx persist.Tx) error) error
}

// Record writes c's provenance as the compression_metadata row, or removes
// the row when c is nil (compression off).
func Record(ctx context.Context, st Writer, c *Codec) error {
	var p *persist.Compression
	if c != nil {
		rec := c.Provenance()
		p = &rec
	}
	if err := st.Write(ctx, func(tx persist.Tx) error { return tx.SetCompression(ctx, p) }); err != nil {
		return fmt.Errorf("record compression metadata: %w", err)
	}
	return nil
}

func describeOr(p persist.Compression, ok bool) string {
	if !ok {
		return "no provenance recorded"
	}
	return Describe(p)
}
