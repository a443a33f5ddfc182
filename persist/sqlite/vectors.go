package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"

	_ "modernc.org/sqlite/vec" // sqlite-vec: vec0 tables and vec_distance_l2 on every connection
)

// This file stores chunk vectors (migration 0005) and runs the native
// vector search of SEARCH_BACKEND=native on sqlite-vec.
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

// exactScanRatio and minExactScan set when a filtered search scans its
// candidate chunks with vec_distance_l2 instead of a vec0 KNN restricted
// to them (rowid IN candidates): when the candidates are fewer than
// 1/exactScanRatio of all chunks, or fewer than minExactScan. Measured
// with 384 dimensions and 20k chunks on two cores: the restricted KNN costs
// about 0.3 µs per stored vector plus 3 µs per candidate, the exact scan
// about 10 µs per candidate (equal at ~750 candidates). Variables only so
// that tests can force either strategy.
var (
	exactScanRatio = 32
	minExactScan   = 128
)

// Triggers keeping vec_context_embeddings in step with embedding_chunks.
// Chunks of another dimension than the table's are left out of it.
const (
	vecTriggerInsert = "embedding_chunks_vec_ai"
	vecTriggerDelete = "embedding_chunks_vec_ad"
	vecTriggerUpdate = "embedding_chunks_vec_au"
)

var vecDimPattern = regexp.MustCompile(`float\[(\d+)\]`)

// encodeVector returns v as little-endian float32 bytes.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector reads little-endian float32 bytes.
func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector blob of %d bytes is not a float32 array", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// checkVector reports a vector that is empty or holds a value that is not
// a finite number.
func checkVector(v []float32) error {
	if len(v) == 0 {
		return errors.New("empty vector")
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("value %d is not a finite number", i)
		}
	}
	return nil
}

// validateEmbeddings checks e before anything is written: a positive Dim,
// every vector Dim long and finite, spans with 0 <= Start <= End.
func validateEmbeddings(e persist.Embeddings) error {
	if e.Dim <= 0 {
		return fmt.Errorf("dimension %d is not positive", e.Dim)
	}
	for i, c := range e.Chunks {
		if len(c.Vector) != e.Dim {
			return fmt.Errorf("chunk %d: vector has %d dimensions, want %d", i, len(c.Vector), e.Dim)
		}
		if err := checkVector(c.Vector); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
		if c.Start < 0 || c.End < c.Start {
			return fmt.Errorf("chunk %d: bad span [%d, %d)", i, c.Start, c.End)
		}
	}
	return nil
}

const sqlInsertChunk = `INSERT INTO embedding_chunks
	(context_id, chunk_index, start_index, end_index, embedding) VALUES (?, ?, ?, ?, ?)`

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
		if err := validateEmbeddings(e); err != nil {
			return fmt.Errorf("sqlite: set embeddings of %s: %w", id, err)
		}
		return t.insertChunks(ctx, id, e)
	}
	if len(e.Chunks) > 0 {
		if err := validateEmbeddings(e); err != nil {
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
		if _, err := t.exec(ctx, sqlInsertChunk, id, c.Index, c.Start, c.End, encodeVector(c.Vector)); err != nil {
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

const vectorDocCols = `SELECT c.context_id, c.id, c.chunk_index, c.start_index, c.end_index, c.embedding FROM embedding_chunks c`

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
		if err := rows.Scan(&id, &key, &kc.Index, &kc.Start, &kc.End, &blob); err != nil {
			return nil, fmt.Errorf("sqlite: read vectors: %w", err)
		}
		kc.Key = uint64(key)
		if kc.Vector, err = decodeVector(blob); err != nil {
			return nil, fmt.Errorf("sqlite: read vectors of %s: %w", id, err)
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
	b.readableBulk(acc, "e")
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

// vecTableDim returns the dimension of vec_context_embeddings, 0 when the
// table does not exist.
func vecTableDim(ctx context.Context, q querier) (int, error) {
	var ddl string
	err := q.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, vecTable).Scan(&ddl)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: read vector table: %w", err)
	}
	m := vecDimPattern.FindStringSubmatch(ddl)
	if m == nil {
		return 0, fmt.Errorf("sqlite: read vector table: no dimension in %q", ddl)
	}
	d, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, fmt.Errorf("sqlite: read vector table: %w", err)
	}
	return d, nil
}

// loadVectorTable remembers whether (and with which dimension) the native
// vector table exists.
func (s *Store) loadVectorTable(ctx context.Context) error {
	d, err := vecTableDim(ctx, s.w)
	if err != nil {
		return err
	}
	s.vecDim.Store(int64(d))
	return nil
}

// VectorTableDim returns the dimension of the native vector table as this
// Store last saw it (at Open, EnsureVectorTable, DropVectorTable), 0 when
// it does not exist.
func (s *Store) VectorTableDim() int { return int(s.vecDim.Load()) }

// EnsureVectorTable makes the sqlite-vec table of native vector search
// exist with dimension dim, in one write transaction: it is created when
// missing, recreated when its dimension differs or it lost its triggers,
// and (re)filled from embedding_chunks (the chunks of dimension dim) when
// it was (re)created or its row count differs from theirs. From then on
// every write maintains it in its own transaction. It runs on the writer:
// do not call it from inside Write.
func (s *Store) EnsureVectorTable(ctx context.Context, dim int) error {
	if dim <= 0 || dim > maxVectorDim {
		return fmt.Errorf("sqlite: ensure vector table: dimension %d is not between 1 and %d", dim, maxVectorDim)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: ensure vector table: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	cur, err := vecTableDim(ctx, tx)
	if err != nil {
		return err
	}
	rebuild := cur != dim
	if !rebuild {
		var ok bool
		if err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)) = 3
			AND (SELECT count(*) FROM `+vecTable+`) = (SELECT count(*) FROM embedding_chunks WHERE length(embedding) = ?)`,
			vecTriggerInsert, vecTriggerDelete, vecTriggerUpdate, 4*dim).Scan(&ok); err != nil {
			return fmt.Errorf("sqlite: ensure vector table: %w", err)
		}
		rebuild = !ok
	}
	if rebuild {
		bytes := strconv.Itoa(4 * dim)
		stmts := append(dropVectorTableSQL(),
			`CREATE VIRTUAL TABLE `+vecTable+` USING vec0(embedding float[`+strconv.Itoa(dim)+`])`,
			`CREATE TRIGGER `+vecTriggerInsert+` AFTER INSERT ON embedding_chunks
				WHEN length(new.embedding) = `+bytes+` BEGIN
				INSERT INTO `+vecTable+` (rowid, embedding) VALUES (new.id, new.embedding);
			END`,
			`CREATE TRIGGER `+vecTriggerDelete+` AFTER DELETE ON embedding_chunks BEGIN
				DELETE FROM `+vecTable+` WHERE rowid = old.id;
			END`,
			`CREATE TRIGGER `+vecTriggerUpdate+` AFTER UPDATE OF id, embedding ON embedding_chunks BEGIN
				DELETE FROM `+vecTable+` WHERE rowid = old.id;
				INSERT INTO `+vecTable+` (rowid, embedding) SELECT new.id, new.embedding
					WHERE length(new.embedding) = `+bytes+`;
			END`,
			`INSERT INTO `+vecTable+` (rowid, embedding)
				SELECT id, embedding FROM embedding_chunks WHERE length(embedding) = `+bytes+` ORDER BY id`,
		)
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("sqlite: ensure vector table: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: ensure vector table: %w", err)
	}
	s.vecDim.Store(int64(dim))
	return nil
}

func dropVectorTableSQL() []string {
	return []string{
		`DROP TRIGGER IF EXISTS ` + vecTriggerInsert,
		`DROP TRIGGER IF EXISTS ` + vecTriggerDelete,
		`DROP TRIGGER IF EXISTS ` + vecTriggerUpdate,
		`DROP TABLE IF EXISTS ` + vecTable,
	}
}

// DropVectorTable drops the sqlite-vec table and its triggers (the
// in-process vector backend does not want their write cost). Without them
// it writes nothing. It runs on the writer: do not call it from inside
// Write.
func (s *Store) DropVectorTable(ctx context.Context) error {
	var n int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN (?, ?, ?, ?)`,
		vecTable, vecTriggerInsert, vecTriggerDelete, vecTriggerUpdate).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: drop vector table: %w", err)
	}
	if n == 0 {
		s.vecDim.Store(0)
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: drop vector table: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, q := range dropVectorTableSQL() {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: drop vector table: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: drop vector table: %w", err)
	}
	s.vecDim.Store(0)
	return nil
}

// emptyFilter reports a filter that restricts nothing (access aside).
func emptyFilter(f persist.Filter) bool {
	return f.ThreadID == "" && f.Source == "" && f.ContentType == "" && len(f.Tags) == 0 &&
		len(f.Meta) == 0 && f.Start == nil && f.End == nil && f.IDs == nil && f.Before == nil
}

// vecRow is one chunk of a vector search with its distance.
type vecRow struct {
	dist  float64
	key   int64
	id    string
	chunk int
	start int
	end   int
	ok    bool // passes access and filter
}

// VectorSearch returns the q.Limit readable entries matching q.Filter
// nearest to q.Vector: the Euclidean (L2) distance of each entry's best
// chunk (ties to the smaller start, then the smaller chunk key), ordered
// distance ASC then id ASC. Only chunks of q.Vector's dimension take part.
//
// The answer is always the exact one (the best chunk of an entry is found
// only among its chunks of the query's dimension). With the sqlite-vec
// table present (EnsureVectorTable) and of the query's dimension:
//   - no filter: a vec0 KNN over every chunk with access applied after,
//     with a k that must show q.Limit readable entries strictly nearer
//     than the k-th chunk (or return every chunk); at most two tries, the
//     second sized by the readable share the first one saw;
//   - a filter (or a caller reading too little for the above) leaving
//     fewer than max(128, all/32) candidate chunks: an exact
//     vec_distance_l2 scan of the candidates;
//   - otherwise a vec0 KNN restricted to the candidates (rowid IN ...),
//     k growing to sqlite-vec's limit of 4096;
//
// and the exact scan when no k proves the answer. Without the table, or of
// another dimension, the exact scan answers. q.Explain fills Plan with the
// strategy (first line) and the query plan of the statement that produced
// the answer.
func (s *Store) VectorSearch(ctx context.Context, acc persist.Access, q persist.VectorQuery) (persist.VectorResult, error) {
	res := persist.VectorResult{Hits: []persist.VectorHit{}}
	if q.Limit <= 0 {
		return res, nil
	}
	if err := checkVector(q.Vector); err != nil {
		return res, fmt.Errorf("sqlite: vector search: query %w", err)
	}
	blob := encodeVector(q.Vector)
	if int(s.vecDim.Load()) == len(q.Vector) {
		done, err := s.vectorKNN(ctx, acc, q, blob, &res)
		if err != nil && strings.Contains(err.Error(), "no such table") {
			// Another handle dropped the table: search without it.
			if lerr := s.loadVectorTable(ctx); lerr != nil {
				return res, lerr
			}
			done, err = false, nil
		}
		if err != nil || done {
			return res, err
		}
	}
	return res, s.vectorExact(ctx, acc, q, blob, &res)
}

// kSteps returns the k values to try, growing to sqlite-vec's limit.
func kSteps(limit int) []int {
	k := min(max(8*limit, 64), vecKMax)
	ks := []int{k}
	for k < vecKMax {
		k = min(8*k, vecKMax)
		ks = append(ks, k)
	}
	return ks
}

// vectorKNN answers q with vec0 KNN queries when that is proven exact;
// done is false when the exact scan must answer instead.
func (s *Store) vectorKNN(ctx context.Context, acc persist.Access, q persist.VectorQuery, blob []byte, res *persist.VectorResult) (done bool, err error) {
	ks := kSteps(q.Limit)
	if emptyFilter(q.Filter) {
		// KNN over every chunk, access after: right when the caller reads
		// a good share of the corpus. The first k tells how large a share,
		// and so which k should prove the answer; hopeless shares go to
		// the candidate count below.
		for k := ks[0]; k > 0; {
			b := &sqlb{}
			b.w("WITH knn AS MATERIALIZED (SELECT rowid AS cid, distance FROM " + vecTable + " WHERE embedding MATCH ").arg(blob)
			b.w(" AND k = ").arg(k).w(")")
			b.w(" SELECT knn.distance, c.id, c.context_id, c.chunk_index, c.start_index, c.end_index, ")
			b.readable(acc, "e")
			b.w(" FROM knn JOIN embedding_chunks c ON c.id = knn.cid JOIN context_entries e ON e.id = c.context_id")
			found, ok, err := s.knnRun(ctx, b, k, q, res, fmt.Sprintf("vec0 knn k=%d, then access", k))
			if err != nil || ok {
				return ok, err
			}
			if found == 0 || k == vecKMax || k != ks[0] {
				break
			}
			k = min(vecKMax, max(2*k, 2*k*q.Limit/found))
		}
	}
	var total int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM embedding_chunks`).Scan(&total); err != nil {
		return false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	limit := max(minExactScan, total/exactScanRatio)
	cb := &sqlb{}
	cb.w("SELECT count(*) FROM (SELECT 1 FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id WHERE ")
	if err := cb.filter(acc, q.Filter); err != nil {
		return false, err
	}
	cb.w(" LIMIT ").arg(limit).w(")")
	var n int
	if err := s.r.QueryRowContext(ctx, cb.String(), cb.args...).Scan(&n); err != nil {
		return false, fmt.Errorf("sqlite: vector search: count candidates: %w", err)
	}
	if n < limit {
		return false, nil
	}
	for _, k := range ks {
		b := &sqlb{}
		b.w("WITH knn AS MATERIALIZED (SELECT rowid AS cid, distance FROM " + vecTable + " WHERE embedding MATCH ").arg(blob)
		b.w(" AND k = ").arg(k)
		b.w(" AND rowid IN (SELECT c.id FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id WHERE ")
		if err := b.filter(acc, q.Filter); err != nil {
			return false, err
		}
		b.w("))")
		b.w(" SELECT knn.distance, c.id, c.context_id, c.chunk_index, c.start_index, c.end_index, 1")
		b.w(" FROM knn JOIN embedding_chunks c ON c.id = knn.cid")
		_, ok, err := s.knnRun(ctx, b, k, q, res, fmt.Sprintf("vec0 knn k=%d over filtered candidates", k))
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// knnRun runs one KNN statement of k chunks and fills res when it proves
// the exact answer: every chunk nearer than the k-th is among the rows, so
// the nearest entries are exact when q.Limit of them are strictly nearer
// than the k-th chunk, or when fewer than k chunks came back (all of them).
// found is the number of entries among the rows that pass.
func (s *Store) knnRun(ctx context.Context, b *sqlb, k int, q persist.VectorQuery, res *persist.VectorResult, strategy string) (found int, ok bool, err error) {
	rows, err := s.r.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return 0, false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	var all []vecRow
	for rows.Next() {
		var r vecRow
		if err := rows.Scan(&r.dist, &r.key, &r.id, &r.chunk, &r.start, &r.end, &r.ok); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("sqlite: vector search: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	var kth float64
	for _, r := range all {
		kth = max(kth, r.dist)
	}
	hits, found := bestPerEntry(all, q.Limit)
	if len(all) >= k && (len(hits) < q.Limit || hits[len(hits)-1].Distance >= kth) {
		return found, false, nil
	}
	res.Hits = hits
	if q.Explain {
		p, err := s.reader.plan(ctx, b)
		if err != nil {
			return found, false, err
		}
		res.Plan = strategy + "\n" + p
	}
	return found, true, nil
}

// bestPerEntry keeps the best chunk of each entry among the rows that pass
// (distance, then start, then key) and returns the nearest limit entries,
// distance ASC then id ASC, and how many entries passed.
func bestPerEntry(rows []vecRow, limit int) ([]persist.VectorHit, int) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		if a.start != b.start {
			return a.start < b.start
		}
		return a.key < b.key
	})
	seen := map[string]bool{}
	hits := []persist.VectorHit{}
	for _, r := range rows {
		if !r.ok || seen[r.id] {
			continue
		}
		seen[r.id] = true
		hits = append(hits, persist.VectorHit{ID: r.id, Distance: r.dist, Chunk: r.chunk, Start: r.start, End: r.end})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Distance != hits[j].Distance {
			return hits[i].Distance < hits[j].Distance
		}
		return hits[i].ID < hits[j].ID
	})
	found := len(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, found
}

// vectorExact answers q by computing vec_distance_l2 on every candidate
// chunk (readable, filtered, of the query's dimension).
func (s *Store) vectorExact(ctx context.Context, acc persist.Access, q persist.VectorQuery, blob []byte, res *persist.VectorResult) error {
	b := &sqlb{}
	b.w("SELECT d, cid, id, chunk_index, start_index, end_index FROM (")
	b.w("SELECT d, cid, id, chunk_index, start_index, end_index,")
	b.w(" row_number() OVER (PARTITION BY id ORDER BY d, start_index, cid) AS rn FROM (")
	b.w("SELECT vec_distance_l2(c.embedding, ").arg(blob).w(") AS d, c.id AS cid, c.context_id AS id,")
	b.w(" c.chunk_index, c.start_index, c.end_index")
	b.w(" FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id WHERE length(c.embedding) = ").arg(len(blob)).w(" AND ")
	if err := b.filter(acc, q.Filter); err != nil {
		return err
	}
	b.w(")) WHERE rn = 1 ORDER BY d, id LIMIT ").arg(q.Limit)
	rows, err := s.r.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return fmt.Errorf("sqlite: vector search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			h   persist.VectorHit
			key int64
		)
		if err := rows.Scan(&h.Distance, &key, &h.ID, &h.Chunk, &h.Start, &h.End); err != nil {
			return fmt.Errorf("sqlite: vector search: %w", err)
		}
		res.Hits = append(res.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: vector search: %w", err)
	}
	if q.Explain {
		p, err := s.reader.plan(ctx, b)
		if err != nil {
			return err
		}
		res.Plan = "exact scan (vec_distance_l2)\n" + p
	}
	return nil
}
