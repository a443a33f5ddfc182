package postgres

import (
	"context"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/contextd/contextd/persist/sqlval"
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
	rows := make([][]any, n)
	for i, c := range e.Chunks {
		idx[i], start[i], end[i] = int32(c.Index), int32(c.Start), int32(c.End)
		vecs[i], codes[i] = vectorArg(c.Vector), codeArg(c.Code)
		rows[i] = []any{id, idx[i], start[i], end[i], nullBytes(vecs[i]), nullBytes(codes[i])}
	}
	if err := t.tx.putRows(ctx, chunkRows, rows, `INSERT INTO embedding_chunks (context_id, chunk_index, start_index, end_index, embedding, code)
		SELECT $1, u.i, u.s, u.e, u.v, u.c FROM unnest($2::int[], $3::int[], $4::int[], $5::bytea[], $6::bytea[]) WITH ORDINALITY AS u(i, s, e, v, c, o)
		ORDER BY u.o`, id, idx, start, end, vecs, codes); err != nil {
		return err
	}
	now := time.Now().UTC()
	model := sqlstore.NullString(e.Model)
	return t.tx.putRows(ctx, embMetaRows, [][]any{{id, model, e.Dim, n, now}}, `INSERT INTO embedding_metadata
		(context_id, model_name, dimensions, chunk_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
		ON CONFLICT (context_id) DO UPDATE SET model_name = excluded.model_name,
			dimensions = excluded.dimensions, chunk_count = excluded.chunk_count, updated_at = excluded.updated_at`,
		id, model, e.Dim, n, now)
}

// nullBytes is b, or SQL NULL for none, as an element of an array
// parameter.
func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
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
