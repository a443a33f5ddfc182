package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
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
	if _, err := t.exec(ctx, sqlUpsertEmbMeta, id, sqlstore.NullString(e.Model), e.Dim, len(e.Chunks), now, now); err != nil {
		return fmt.Errorf("sqlite: set embeddings: write metadata: %w", err)
	}
	return nil
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
