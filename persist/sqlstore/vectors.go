package sqlstore

import (
	"context"
	"errors"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// Chunk vectors live in embedding_chunks as little-endian float32 bytes in
// both stores (so both hand the in-process index the same bytes), one row
// per chunk, replaced as a whole per entry by the store's SetEmbeddings.

// HasEmbeddings reports whether entry id has stored chunk vectors (without
// access restriction).
func (r Reader) HasEmbeddings(ctx context.Context, id string) (bool, error) {
	b := NewBuilder(r.D)
	b.W("SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE context_id = ").Arg(id).W(")")
	var has bool
	if err := r.Q.QueryRow(ctx, b.String(), b.Args()...).Scan(&has); err != nil {
		return false, r.D.Wrap("read embeddings", err)
	}
	return has, nil
}

const vectorDocCols = `SELECT c.context_id, c.id, c.chunk_index, c.start_index, c.end_index, c.embedding, c.code FROM embedding_chunks c`

// VectorDocs returns the entries among ids that have chunk vectors, in id
// order, each with its chunks in chunk order, without access restriction.
// Key is the chunk's embedding_chunks.id (never reused after a delete).
func (r Reader) VectorDocs(ctx context.Context, ids []string) ([]persist.VectorDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := NewBuilder(r.D)
	b.W(vectorDocCols+" WHERE ").IsIn("c.context_id", ids).W(" ORDER BY c.context_id, c.chunk_index, c.id")
	return r.vectorDocs(ctx, b)
}

// ScanVectorDocs returns up to limit entries with ids greater than afterID
// that have chunk vectors, in id order, without access restriction: the
// pages of a vector index rebuild. Entries without vectors are skipped (so
// ScanVectorDocs(ctx, "", 1) tells whether any vector is stored); limit <= 0
// means all.
func (r Reader) ScanVectorDocs(ctx context.Context, afterID string, limit int) ([]persist.VectorDoc, error) {
	b := NewBuilder(r.D)
	b.W(vectorDocCols+" WHERE c.context_id IN (SELECT DISTINCT context_id FROM embedding_chunks WHERE context_id > ").Typed(afterID, "::text")
	b.W(" ORDER BY context_id LIMIT ").Typed(r.D.Limit(limit), "::bigint").W(") ORDER BY c.context_id, c.chunk_index, c.id")
	return r.vectorDocs(ctx, b)
}

func (r Reader) vectorDocs(ctx context.Context, b *Builder) ([]persist.VectorDoc, error) {
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, r.D.Wrap("read vectors", err)
	}
	defer rows.Close()
	var (
		out  []persist.VectorDoc
		blob []byte
		id   string
		kc   persist.KeyedChunk
		key  int64
	)
	// The scan targets live across rows (each row's chunk is a copy).
	dest := []any{&id, &key, &kc.Index, &kc.Start, &kc.End, &blob, &kc.Code}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, r.D.Wrap("read vectors", err)
		}
		kc.Key = uint64(key)
		if kc.Vector, err = sqlval.DecodeVector(blob); err != nil {
			return nil, r.D.Errf("read vectors of %s: %w", id, err)
		}
		if len(kc.Vector) == 0 {
			kc.Vector = nil // a code-only chunk
		}
		if len(kc.Code) == 0 {
			kc.Code = nil
		}
		if n := len(out); n == 0 || out[n-1].ID != id {
			out = append(out, persist.VectorDoc{ID: id})
		}
		d := &out[len(out)-1]
		d.Chunks = append(d.Chunks, kc)
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap("read vectors", err)
	}
	return out, nil
}

// EmbeddingModel returns the recorded model of the stored vectors; ok is
// false when none was recorded.
func (r Reader) EmbeddingModel(ctx context.Context) (persist.EmbeddingModel, bool, error) {
	var m persist.EmbeddingModel
	err := r.Q.QueryRow(ctx, `SELECT model_name, dimensions FROM embedding_model WHERE id = 1`).Scan(&m.Model, &m.Dim)
	if errors.Is(err, ErrNoRows) {
		return persist.EmbeddingModel{}, false, nil
	}
	if err != nil {
		return persist.EmbeddingModel{}, false, r.D.Wrap("read embedding model", err)
	}
	return m, true, nil
}

// EmbeddingCounts counts the readable entries that have vectors and their
// chunks.
func (r Reader) EmbeddingCounts(ctx context.Context, acc persist.Access) (entries, chunks int, err error) {
	b := NewBuilder(r.D)
	b.W("SELECT count(*), coalesce(sum(m.chunk_count), 0)").Cast("::bigint")
	b.W(" FROM ")
	b.AggregateFrom(acc, "e", []string{"id"}, "embedding_metadata m ON m.context_id = e.id", false)
	if err := r.Q.QueryRow(ctx, b.String(), b.Args()...).Scan(&entries, &chunks); err != nil {
		return 0, 0, r.D.Wrap("count embeddings", err)
	}
	return entries, chunks, nil
}

// EmbeddingBytes returns the size of every stored vector blob, deployment
// wide. It is computed from embedding_metadata (4 bytes per dimension per
// chunk, which SetEmbeddings guarantees equals the sum of the blob lengths)
// so that it does not read the vectors.
func (r Reader) EmbeddingBytes(ctx context.Context) (int64, error) {
	b := NewBuilder(r.D)
	b.W("SELECT coalesce(sum(4").Cast("::bigint").W(" * dimensions * chunk_count), 0)").Cast("::bigint").W(" FROM embedding_metadata")
	var n int64
	if err := r.Q.QueryRow(ctx, b.String()).Scan(&n); err != nil {
		return 0, r.D.Wrap("size embeddings", err)
	}
	return n, nil
}
