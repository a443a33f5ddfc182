// Package migrate owns the conversions of a populated database between
// float32 and compressed vector storage (C.14; `contextd migrate compress`
// and `contextd migrate decompress`). A conversion pages through the
// stored chunks by entry and rewrites the chunks of each page in one write
// transaction (persist.Tx.RewriteChunks: keys, entries and spans stay), so
// it is resumable: a run that is stopped or killed leaves every page either
// converted or untouched, and running it again converts what is left.
// The provenance (compression_metadata) changes only in the transaction of
// the last page, so until then the start-up check keeps refusing the
// database and names the migration to finish.
//
//	res, err := migrate.Compress(ctx, st, codec, migrate.Options{Progress: os.Stderr})
//	res, err = migrate.Decompress(ctx, st, migrate.Options{})
//
// Compress encodes float32 vectors, or re-encodes codes of other settings
// (decoded first: lossy when no float32 vector is kept), and drops the
// float32 vectors unless the codec keeps them. Decompress stores every
// chunk as float32: its kept vector, else the reconstruction of its code
// (the originals are gone; `contextd migrate reembed` regenerates exact
// ones).
package migrate

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/persist"
)

// Store is what a migration reads and writes (persist.Store has it).
type Store interface {
	compress.Store
	ScanVectorDocs(ctx context.Context, afterID string, limit int) ([]persist.VectorDoc, error)
}

// Options configure a migration. The zero value is the default.
type Options struct {
	// Batch is the number of entries per transaction (default 200: about
	// 0.1 s of work, measured below, so a kill loses little).
	Batch int
	// Progress receives a progress bar (a terminal) or progress lines;
	// nil discards them.
	Progress io.Writer
	// afterBatch, in tests, runs after each committed batch.
	afterBatch func(done int)
}

// Result reports what a migration did.
type Result struct {
	Chunks    int // chunk rows seen
	Rewritten int // chunk rows rewritten (the rest were already converted)
	Elapsed   time.Duration
}

// Compress converts every stored chunk to codec c's form (see the package
// comment) and records c's provenance.
func Compress(ctx context.Context, st Store, c *compress.Codec, o Options) (Result, error) {
	if c == nil {
		return Result{}, fmt.Errorf("migrate compress: compression is disabled (ENABLE_EMBEDDING_COMPRESSION=false)")
	}
	return run(ctx, st, c, o, "compress")
}

// Decompress converts every stored chunk to float32 and removes the
// provenance.
func Decompress(ctx context.Context, st Store, o Options) (Result, error) {
	return run(ctx, st, nil, o, "decompress")
}

// run converts every chunk to the form of to (nil: float32 only).
func run(ctx context.Context, st Store, to *compress.Codec, o Options, verb string) (Result, error) {
	began := time.Now()
	if o.Batch <= 0 {
		o.Batch = 200
	}
	rec, ok, err := st.Compression(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("migrate %s: %w", verb, err)
	}
	var recorded *persist.Compression
	if ok {
		recorded = &rec
	}
	forms, err := st.VectorForms(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("migrate %s: %w", verb, err)
	}
	codecs := compress.NewCodecs(recorded)
	bar := newProgress(o.Progress, verb, forms.Chunks)
	var res Result
	after := ""
	for {
		docs, err := st.ScanVectorDocs(ctx, after, o.Batch)
		if err != nil {
			return res, fmt.Errorf("migrate %s: %w", verb, err)
		}
		if len(docs) == 0 {
			break
		}
		var rewrites []persist.ChunkForm
		n := 0
		for _, d := range docs {
			for _, ch := range d.Chunks {
				n++
				f, changed, err := convert(codecs, to, ch)
				if err != nil {
					return res, fmt.Errorf("migrate %s: entry %s chunk %d: %w", verb, d.ID, ch.Index, err)
				}
				if changed {
					rewrites = append(rewrites, f)
				}
			}
		}
		if len(rewrites) > 0 {
			if err := st.Write(ctx, func(tx persist.Tx) error { return tx.RewriteChunks(ctx, rewrites) }); err != nil {
				return res, fmt.Errorf("migrate %s: %w", verb, err)
			}
		}
		res.Chunks += n
		res.Rewritten += len(rewrites)
		bar.add(n)
		if o.afterBatch != nil {
			o.afterBatch(res.Chunks)
		}
		after = docs[len(docs)-1].ID
	}
	if err := compress.Record(ctx, st, to); err != nil {
		return res, fmt.Errorf("migrate %s: %w", verb, err)
	}
	bar.finish()
	res.Elapsed = time.Since(began)
	return res, nil
}

// convert returns chunk ch in the form of to, and whether that differs
// from what is stored.
func convert(codecs *compress.Codecs, to *compress.Codec, ch persist.KeyedChunk) (persist.ChunkForm, bool, error) {
	f := persist.ChunkForm{Key: ch.Key, Vector: ch.Vector, Code: ch.Code}
	if to != nil && ch.Code != nil && to.Is(ch.Code) {
		// Coded as wanted: only a float32 vector the codec does not keep goes.
		if !to.KeepFloat() && ch.Vector != nil {
			f.Vector = nil
			return f, true, nil
		}
		return f, false, nil
	}
	v := ch.Vector
	if v == nil {
		from, err := codecs.Of(ch.Code)
		if err != nil {
			return f, false, err
		}
		if v, err = from.Vector(&ch.ChunkVector); err != nil {
			return f, false, err
		}
	}
	if to == nil {
		f.Vector, f.Code = v, nil
		return f, ch.Code != nil || ch.Vector == nil, nil
	}
	e := persist.Embeddings{Dim: len(v), Chunks: []persist.ChunkVector{{Vector: slices.Clone(v)}}}
	if err := to.Compress(&e); err != nil {
		return f, false, err
	}
	f.Code = e.Chunks[0].Code
	f.Vector = nil
	if to.KeepFloat() {
		f.Vector = ch.Vector // kept only when it is the original, never a reconstruction
	}
	return f, true, nil
}
