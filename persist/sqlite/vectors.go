package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"

	_ "modernc.org/sqlite/vec" // sqlite-vec: vec0 tables and vec_distance_l2 on every connection
)

// This file stores chunk vectors (migration 0005); vectors_table.go
// maintains the sqlite-vec table and vectors_search.go runs the native
// vector search of SEARCH_BACKEND=native on it.
//
// Vectors live in embedding_chunks as little-endian float32 blobs, one row
// per chunk, replaced as a whole per entry by tx.SetEmbeddings. The sqlite-vec
// table vec_context_embeddings (rowid = embedding_chunks.id) exists only
// while native search wants it (EnsureVectorTable / DropVectorTable). It is
// created together with triggers on embedding_chunks, so every write that
// adds or removes chunk rows (SetEmbeddings, an entry's delete through the
// foreign keys or the entry-delete trigger of 0005) updates it in the same
// transaction, and dropping the table drops the triggers with it: writes
// maintain the table exactly when it exists, in every process sharing the
// file.

const (
	// vecTable is the sqlite-vec table of native vector search.
	vecTable = "vec_context_embeddings"
	// maxVectorDim is sqlite-vec's largest vec0 dimension.
	maxVectorDim = 8192
	// vecKMax is sqlite-vec's largest k of a KNN query.
	vecKMax = 4096
)

const sqlInsertChunk = `INSERT INTO embedding_chunks
	(context_id, chunk_index, start_index, end_index, embedding, code) VALUES (?, ?, ?, ?, ?, ?)`

// SetEmbeddings replaces the chunk vectors and the embedding metadata of
// entry id with e; empty e.Chunks removes them. It appends no change-log
// row: it runs in the transaction of the Insert or Update that stored the
// text, which logs the change. Invalid vectors (see validateEmbeddings) are
// refused before anything is written; storing vectors for an entry that
// does not exist is an error. The native search table, when it exists,
// follows in the same transaction.
func (t *tx) SetEmbeddings(ctx context.Context, id string, e persist.Embeddings) error {
	return t.setEmbeddings(ctx, id, e, false)
}

// AddEmbeddings stores the vectors of an entry inserted in this
// transaction, which has none yet: SetEmbeddings without the existence
// check and the delete, the common case of every store.
func (t *tx) AddEmbeddings(ctx context.Context, id string, e persist.Embeddings) error {
	if len(e.Chunks) == 0 {
		return nil
	}
	return t.setEmbeddings(ctx, id, e, true)
}

func (t *tx) setEmbeddings(ctx context.Context, id string, e persist.Embeddings, fresh bool) error {
	if fresh {
		if err := sqlval.ValidateEmbeddings(e); err != nil {
			return fmt.Errorf("sqlite: set embeddings of %s: %w", id, err)
		}
		return t.insertChunks(ctx, id, e)
	}
	if len(e.Chunks) > 0 {
		if err := sqlval.ValidateEmbeddings(e); err != nil {
			return fmt.Errorf("sqlite: set embeddings of %s: %w", id, err)
		}
		var exists bool
		if err := t.queryRow(ctx, sqlEntryExists, id).Scan(&exists); err != nil {
			return fmt.Errorf("sqlite: set embeddings: %w", err)
		}
		if !exists {
			return fmt.Errorf("sqlite: set embeddings: no entry %s", id)
		}
	}
	if _, err := t.exec(ctx, sqlDeleteChunks, id); err != nil {
		return fmt.Errorf("sqlite: set embeddings: delete chunks: %w", err)
	}
	if len(e.Chunks) == 0 {
		if _, err := t.exec(ctx, sqlDeleteEmbMeta, id); err != nil {
			return fmt.Errorf("sqlite: set embeddings: delete metadata: %w", err)
		}
		return nil
	}
	return t.insertChunks(ctx, id, e)
}

// insertChunks writes the chunk rows and the metadata row of entry id.
func (t *tx) insertChunks(ctx context.Context, id string, e persist.Embeddings) error {
	for i, c := range e.Chunks {
		if _, err := t.exec(ctx, sqlInsertChunk, id, c.Index, c.Start, c.End, sqlval.EncodeVector(c.Vector), nullBlob(c.Code)); err != nil {
			return fmt.Errorf("sqlite: set embeddings: insert chunk %d: %w", i, err)
		}
	}
	now := time.Now().UnixMicro()
	if _, err := t.exec(ctx, sqlUpsertEmbMeta, id, nullString(e.Model), e.Dim, len(e.Chunks), now, now); err != nil {
		return fmt.Errorf("sqlite: set embeddings: write metadata: %w", err)
	}
	return nil
}

// HasEmbeddings reports whether entry id has stored chunk vectors (without
// access restriction).
func (r reader) HasEmbeddings(ctx context.Context, id string) (bool, error) {
	var has bool
	if err := r.q.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM embedding_chunks WHERE context_id = ?)`, id).Scan(&has); err != nil {
		return false, fmt.Errorf("sqlite: read embeddings: %w", err)
	}
	return has, nil
}

// VectorDocs returns the entries among ids that have chunk vectors, in id
// order, each with its chunks in chunk order, without access restriction.
// Key is the chunk's embedding_chunks.id (never reused after a delete).
func (r reader) VectorDocs(ctx context.Context, ids []string) ([]persist.VectorDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := &sqlb{}
	b.w(vectorDocCols + " WHERE c.context_id IN ").in(ids).w(" ORDER BY c.context_id, c.chunk_index, c.id")
	return r.vectorDocs(ctx, b)
}

// ScanVectorDocs returns up to limit entries with ids greater than afterID
// that have chunk vectors, in id order, without access restriction: the
// pages of a vector index rebuild. Entries without vectors are skipped (so
// ScanVectorDocs(ctx, "", 1) tells whether any vector is stored); limit <= 0
// means all.
func (r reader) ScanVectorDocs(ctx context.Context, afterID string, limit int) ([]persist.VectorDoc, error) {
	if limit <= 0 {
		limit = -1
	}
	b := &sqlb{}
	b.w(vectorDocCols + " WHERE c.context_id IN (SELECT DISTINCT context_id FROM embedding_chunks WHERE context_id > ").arg(afterID)
	b.w(" ORDER BY context_id LIMIT ").arg(limit).w(") ORDER BY c.context_id, c.chunk_index, c.id")
	return r.vectorDocs(ctx, b)
}

const vectorDocCols = `SELECT c.context_id, c.id, c.chunk_index, c.start_index, c.end_index, c.embedding, c.code FROM embedding_chunks c`

func (r reader) vectorDocs(ctx context.Context, b *sqlb) ([]persist.VectorDoc, error) {
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read vectors: %w", err)
	}
	defer rows.Close()
	var out []persist.VectorDoc
	for rows.Next() {
		var (
			id   string
			kc   persist.KeyedChunk
			key  int64
			blob []byte
		)
		if err := rows.Scan(&id, &key, &kc.Index, &kc.Start, &kc.End, &blob, &kc.Code); err != nil {
			return nil, fmt.Errorf("sqlite: read vectors: %w", err)
		}
		kc.Key = uint64(key)
		if kc.Vector, err = sqlval.DecodeVector(blob); err != nil {
			return nil, fmt.Errorf("sqlite: read vectors of %s: %w", id, err)
		}
		if len(kc.Vector) == 0 {
			kc.Vector = nil // a code-only chunk (0006)
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
		return nil, fmt.Errorf("sqlite: read vectors: %w", err)
	}
	return out, nil
}

// EmbeddingModel returns the recorded model of the stored vectors; ok is
// false when none was recorded.
func (r reader) EmbeddingModel(ctx context.Context) (persist.EmbeddingModel, bool, error) {
	var m persist.EmbeddingModel
	err := r.q.QueryRowContext(ctx, `SELECT model_name, dimensions FROM embedding_model WHERE id = 1`).Scan(&m.Model, &m.Dim)
	if errors.Is(err, sql.ErrNoRows) {
		return persist.EmbeddingModel{}, false, nil
	}
	if err != nil {
		return persist.EmbeddingModel{}, false, fmt.Errorf("sqlite: read embedding model: %w", err)
	}
	return m, true, nil
}

// SetEmbeddingModel records m as the model of the stored vectors,
// replacing any earlier record. It runs on the writer: do not call it from
// inside Write.
func (s *Store) SetEmbeddingModel(ctx context.Context, m persist.EmbeddingModel) error {
	if m.Dim <= 0 {
		return fmt.Errorf("sqlite: set embedding model: dimension %d is not positive", m.Dim)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO embedding_model (id, model_name, dimensions, recorded_at)
		VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET model_name = excluded.model_name,
			dimensions = excluded.dimensions, recorded_at = excluded.recorded_at`,
		m.Model, m.Dim, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("sqlite: set embedding model: %w", err)
	}
	return nil
}

// EmbeddingCounts counts the readable entries that have vectors and their
// chunks.
func (r reader) EmbeddingCounts(ctx context.Context, acc persist.Access) (entries, chunks int, err error) {
	b := &sqlb{}
	b.w("SELECT count(*), coalesce(sum(m.chunk_count), 0) FROM embedding_metadata m JOIN context_entries e ON e.id = m.context_id WHERE ")
	b.aggregate(acc, "e")
	if err := r.q.QueryRowContext(ctx, b.String(), b.args...).Scan(&entries, &chunks); err != nil {
		return 0, 0, fmt.Errorf("sqlite: count embeddings: %w", err)
	}
	return entries, chunks, nil
}

// EmbeddingBytes returns the size of every stored vector blob, deployment
// wide. It is computed from embedding_metadata (4 bytes per dimension per
// chunk, which SetEmbeddings guarantees equals the sum of the blob lengths)
// so that it does not read the vectors.
func (r reader) EmbeddingBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := r.q.QueryRowContext(ctx,
		`SELECT coalesce(sum(4 * dimensions * chunk_count), 0) FROM embedding_metadata`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: size embeddings: %w", err)
	}
	return n, nil
}
