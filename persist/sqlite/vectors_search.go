package sqlite

// This file runs the native vector search: vec0 KNN queries when they
// prove the exact answer, the vec_distance_l2 scan otherwise (see
// VectorSearch).

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
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

// emptyFilter reports a filter that restricts nothing (access aside).
func emptyFilter(f persist.Filter) bool {
	return f.ThreadID == "" && f.Source == "" && f.ContentType == "" && len(f.Tags) == 0 &&
		len(f.Meta) == 0 && f.Start == nil && f.End == nil && f.IDs == nil && f.Before == nil
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
	if err := sqlval.CheckVector(q.Vector); err != nil {
		return res, fmt.Errorf("sqlite: vector search: query %w", err)
	}
	blob := sqlval.EncodeVector(q.Vector)
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
			b := newB()
			b.W("WITH knn AS MATERIALIZED (SELECT rowid AS cid, distance FROM " + vecTable + " WHERE embedding MATCH ").Arg(blob)
			b.W(" AND k = ").Arg(k).W(")")
			b.W(" SELECT knn.distance, c.id, c.context_id, c.chunk_index, c.start_index, c.end_index, ")
			b.Readable(acc, "e")
			if q.OmitKnowledge {
				b.W(" AND ").NotKnowledge("e")
			}
			b.W(" FROM knn JOIN embedding_chunks c ON c.id = knn.cid JOIN context_entries e ON e.id = c.context_id")
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
	if err := s.q.QueryRowContext(ctx, `SELECT count(*) FROM embedding_chunks`).Scan(&total); err != nil {
		return false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	limit := max(minExactScan, total/exactScanRatio)
	cb := newB()
	cb.W("SELECT count(*) FROM (SELECT 1 FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id WHERE ")
	if err := filter(cb, acc, q.Filter); err != nil {
		return false, err
	}
	cb.W(" LIMIT ").Arg(limit).W(")")
	var n int
	if err := s.q.QueryRowContext(ctx, cb.String(), cb.Args()...).Scan(&n); err != nil {
		return false, fmt.Errorf("sqlite: vector search: count candidates: %w", err)
	}
	if n < limit {
		return false, nil
	}
	for _, k := range ks {
		b := newB()
		b.W("WITH knn AS MATERIALIZED (SELECT rowid AS cid, distance FROM " + vecTable + " WHERE embedding MATCH ").Arg(blob)
		b.W(" AND k = ").Arg(k)
		b.W(" AND rowid IN (SELECT c.id FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id WHERE ")
		if err := filter(b, acc, q.Filter); err != nil {
			return false, err
		}
		b.W("))")
		b.W(" SELECT knn.distance, c.id, c.context_id, c.chunk_index, c.start_index, c.end_index, 1")
		b.W(" FROM knn JOIN embedding_chunks c ON c.id = knn.cid")
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
	rows, err := s.q.QueryContext(ctx, b.String(), b.Args()...)
	if err != nil {
		return 0, false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	var all []sqlval.ChunkDist
	for rows.Next() {
		var r sqlval.ChunkDist
		if err := rows.Scan(&r.Dist, &r.Key, &r.ID, &r.Chunk, &r.Start, &r.End, &r.OK); err != nil {
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
		kth = max(kth, r.Dist)
	}
	hits, found := sqlval.BestPerEntry(all, q.Limit)
	if len(all) >= k && (len(hits) < q.Limit || hits[len(hits)-1].Distance >= kth) {
		return found, false, nil
	}
	res.Hits = hits
	if q.Explain {
		p, err := Dialect.Plan(ctx, s.reader.Q, b)
		if err != nil {
			return found, false, err
		}
		res.Plan = strategy + "\n" + p
	}
	return found, true, nil
}

// vectorExact answers q by computing vec_distance_l2 on every candidate
// chunk (readable, filtered, of the query's dimension).
func (s *Store) vectorExact(ctx context.Context, acc persist.Access, q persist.VectorQuery, blob []byte, res *persist.VectorResult) error {
	b := newB()
	b.W("SELECT d, cid, id, chunk_index, start_index, end_index FROM (")
	b.W("SELECT d, cid, id, chunk_index, start_index, end_index,")
	b.W(" row_number() OVER (PARTITION BY id ORDER BY d, start_index, cid) AS rn FROM (")
	b.W("SELECT vec_distance_l2(c.embedding, ").Arg(blob).W(") AS d, c.id AS cid, c.context_id AS id,")
	b.W(" c.chunk_index, c.start_index, c.end_index")
	b.W(" FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id WHERE length(c.embedding) = ").Arg(len(blob)).W(" AND ")
	if err := filter(b, acc, q.Filter); err != nil {
		return err
	}
	b.W(")) WHERE rn = 1 ORDER BY d, id LIMIT ").Arg(q.Limit)
	rows, err := s.q.QueryContext(ctx, b.String(), b.Args()...)
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
		p, err := Dialect.Plan(ctx, s.reader.Q, b)
		if err != nil {
			return err
		}
		res.Plan = "exact scan (vec_distance_l2)\n" + p
	}
	return nil
}
