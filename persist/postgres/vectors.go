package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
	"github.com/jackc/pgx/v5"
)

// Chunk vectors live in embedding_chunks as little-endian float32 bytes
// (the SQLite store's layout, so both stores hand the in-process index the
// same bytes), one row per chunk, replaced as a whole per entry.

// SetEmbeddings replaces the chunk vectors and embedding metadata of entry
// id with e; empty e.Chunks removes them. Invalid vectors are refused
// before anything is written; vectors for a missing entry are an error.
func (t *tx) SetEmbeddings(ctx context.Context, id string, e persist.Embeddings) error {
	if len(e.Chunks) > 0 {
		if err := sqlval.ValidateEmbeddings(e); err != nil {
			return errf("set embeddings of %s: %v", id, err)
		}
		var exists bool
		if err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM context_entries WHERE id = $1)`, id).Scan(&exists); err != nil {
			return wrap("set embeddings", err)
		}
		if !exists {
			return errf("set embeddings: no entry %s", id)
		}
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM embedding_chunks WHERE context_id = $1`, id); err != nil {
		return wrap("set embeddings: delete chunks", err)
	}
	if len(e.Chunks) == 0 {
		if _, err := t.tx.Exec(ctx, `DELETE FROM embedding_metadata WHERE context_id = $1`, id); err != nil {
			return wrap("set embeddings: delete metadata", err)
		}
		return nil
	}
	return t.insertChunks(ctx, id, e)
}

// AddEmbeddings stores the vectors of an entry inserted in this
// transaction: SetEmbeddings without the existence check and the delete.
func (t *tx) AddEmbeddings(ctx context.Context, id string, e persist.Embeddings) error {
	if len(e.Chunks) == 0 {
		return nil
	}
	if err := sqlval.ValidateEmbeddings(e); err != nil {
		return errf("set embeddings of %s: %v", id, err)
	}
	return t.insertChunks(ctx, id, e)
}

// insertChunks writes the chunk rows (one statement: unnest of parallel
// arrays, in chunk order so keys ascend with it) and the metadata row.
func (t *tx) insertChunks(ctx context.Context, id string, e persist.Embeddings) error {
	n := len(e.Chunks)
	idx, start, end := make([]int32, n), make([]int32, n), make([]int32, n)
	vecs, codes := make([][]byte, n), make([][]byte, n)
	for i, c := range e.Chunks {
		idx[i], start[i], end[i] = int32(c.Index), int32(c.Start), int32(c.End)
		vecs[i], codes[i] = vectorArg(c.Vector), codeArg(c.Code)
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO embedding_chunks (context_id, chunk_index, start_index, end_index, embedding, code)
		SELECT $1, u.i, u.s, u.e, u.v, u.c FROM unnest($2::int[], $3::int[], $4::int[], $5::bytea[], $6::bytea[]) WITH ORDINALITY AS u(i, s, e, v, c, o)
		ORDER BY u.o`, id, idx, start, end, vecs, codes); err != nil {
		return wrap("set embeddings: insert chunks", err)
	}
	now := time.Now().UTC()
	if _, err := t.tx.Exec(ctx, `INSERT INTO embedding_metadata
		(context_id, model_name, dimensions, chunk_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
		ON CONFLICT (context_id) DO UPDATE SET model_name = excluded.model_name,
			dimensions = excluded.dimensions, chunk_count = excluded.chunk_count, updated_at = excluded.updated_at`,
		id, nullString(e.Model), e.Dim, n, now); err != nil {
		return wrap("set embeddings: write metadata", err)
	}
	return nil
}

// HasEmbeddings reports whether entry id has stored chunk vectors.
func (r reader) HasEmbeddings(ctx context.Context, id string) (bool, error) {
	var has bool
	if err := r.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE context_id = $1)`, id).Scan(&has); err != nil {
		return false, wrap("read embeddings", err)
	}
	return has, nil
}

const vectorDocCols = `SELECT c.context_id, c.id, c.chunk_index, c.start_index, c.end_index, c.embedding, c.code FROM embedding_chunks c`

// VectorDocs returns the entries among ids that have chunk vectors, in id
// order, each with its chunks in chunk order, without access restriction.
func (r reader) VectorDocs(ctx context.Context, ids []string) ([]persist.VectorDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := &sqlb{}
	b.w(vectorDocCols + " WHERE c.context_id").anyOf(ids).w(" ORDER BY c.context_id, c.chunk_index, c.id")
	return r.vectorDocs(ctx, b)
}

// ScanVectorDocs returns up to limit entries with ids greater than afterID
// that have chunk vectors, in id order; limit <= 0 means all.
func (r reader) ScanVectorDocs(ctx context.Context, afterID string, limit int) ([]persist.VectorDoc, error) {
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	b := &sqlb{}
	b.w(vectorDocCols+" WHERE c.context_id IN (SELECT DISTINCT context_id FROM embedding_chunks WHERE context_id > ").typed(afterID, "::text")
	b.w(" ORDER BY context_id LIMIT ").typed(lim, "::bigint").w(") ORDER BY c.context_id, c.chunk_index, c.id")
	return r.vectorDocs(ctx, b)
}

func (r reader) vectorDocs(ctx context.Context, b *sqlb) ([]persist.VectorDoc, error) {
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return nil, wrap("read vectors", err)
	}
	var (
		out  []persist.VectorDoc
		id   string
		kc   persist.KeyedChunk
		key  int64
		blob []byte
		code []byte
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &key, &kc.Index, &kc.Start, &kc.End, &blob, &code}, func() error {
		v, err := sqlval.DecodeVector(blob)
		if err != nil {
			return err
		}
		c := kc
		c.Key, c.Vector = uint64(key), v
		if len(v) == 0 {
			c.Vector = nil // a code-only chunk (0003)
		}
		if len(code) > 0 {
			c.Code = append([]byte(nil), code...)
		}
		if n := len(out); n == 0 || out[n-1].ID != id {
			out = append(out, persist.VectorDoc{ID: id})
		}
		d := &out[len(out)-1]
		d.Chunks = append(d.Chunks, c)
		return nil
	})
	if err != nil {
		return nil, wrap("read vectors", err)
	}
	return out, nil
}

// EmbeddingModel returns the recorded model of the stored vectors; ok is
// false when none was recorded.
func (r reader) EmbeddingModel(ctx context.Context) (persist.EmbeddingModel, bool, error) {
	var m persist.EmbeddingModel
	err := r.q.QueryRow(ctx, `SELECT model_name, dimensions FROM embedding_model WHERE id = 1`).Scan(&m.Model, &m.Dim)
	if errors.Is(err, pgx.ErrNoRows) {
		return persist.EmbeddingModel{}, false, nil
	}
	if err != nil {
		return persist.EmbeddingModel{}, false, wrap("read embedding model", err)
	}
	return m, true, nil
}

// SetEmbeddingModel records m as the model of the stored vectors,
// replacing any earlier record.
func (s *Store) SetEmbeddingModel(ctx context.Context, m persist.EmbeddingModel) error {
	if m.Dim <= 0 {
		return errf("set embedding model: dimension %d is not positive", m.Dim)
	}
	if _, err := s.pq.Exec(ctx, `INSERT INTO embedding_model (id, model_name, dimensions, recorded_at)
		VALUES (1, $1, $2, now()) ON CONFLICT (id) DO UPDATE SET model_name = excluded.model_name,
			dimensions = excluded.dimensions, recorded_at = excluded.recorded_at`, m.Model, m.Dim); err != nil {
		return wrap("set embedding model", err)
	}
	return nil
}

// EmbeddingCounts counts the readable entries that have vectors and their
// chunks.
func (r reader) EmbeddingCounts(ctx context.Context, acc persist.Access) (entries, chunks int, err error) {
	b := &sqlb{}
	b.w("SELECT count(*), coalesce(sum(m.chunk_count), 0)::bigint FROM embedding_metadata m JOIN context_entries e ON e.id = m.context_id WHERE ")
	b.aggregate(acc, "e")
	if err := r.q.QueryRow(ctx, b.String(), b.args...).Scan(&entries, &chunks); err != nil {
		return 0, 0, wrap("count embeddings", err)
	}
	return entries, chunks, nil
}

// EmbeddingBytes returns the size of every stored vector, computed from
// embedding_metadata (4 bytes per dimension per chunk).
func (r reader) EmbeddingBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := r.q.QueryRow(ctx, `SELECT coalesce(sum(4::bigint * dimensions * chunk_count), 0)::bigint FROM embedding_metadata`).Scan(&n); err != nil {
		return 0, wrap("size embeddings", err)
	}
	return n, nil
}
