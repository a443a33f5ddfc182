package postgres

// This file runs the native vector search on pgvector: an exact scan of
// the candidate chunks when they are few, else an HNSW index scan (see
// VectorSearch). The table is maintained by pgvector.go.

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
	"github.com/jackc/pgx/v5"
)

// Strategies of VectorSearch; a Store's vecForce makes tests run one.
const (
	vecAuto = iota
	vecExact
	vecHNSW
)

const (
	// minExactScan and exactScanRatio set when a search scans its
	// candidate chunks exactly instead of walking the HNSW index: fewer
	// than max(minExactScan, all/exactScanRatio) candidates (the rule of
	// the SQLite store, with a larger floor because pgvector's exact
	// distance is cheap next to the joins every candidate pays either
	// way). Below it the answer is exact; above it HNSW is approximate.
	// Measured only on PGlite (WebAssembly, 2-core machine under load,
	// 384 dimensions, limit 10, BenchmarkVectorSearch): exact 41 ms vs
	// HNSW 13 ms over 1,000 chunks, 748 ms vs 17 ms over 4,000; a native
	// server scans far faster, so the floor keeps exact answers where
	// their cost is small there, not where PGlite would break even.
	minExactScan   int64 = 2000
	exactScanRatio int64 = 32
	// efSearchMax is pgvector's largest hnsw.ef_search; kMax bounds the
	// chunks one HNSW statement returns (pgvector's default
	// hnsw.max_scan_tuples, the most an iterative scan visits).
	efSearchMax = 1000
	kMax        = 20000
)

// VectorSearch returns the q.Limit readable entries matching q.Filter
// nearest to q.Vector by pgvector's Euclidean distance (<->) of each
// entry's best chunk (ties to the smaller start, then the smaller chunk
// key), ordered distance ASC then id ASC: the result shape and distance
// of the SQLite store's sqlite-vec search. Only chunks of q.Vector's
// dimension take part.
//
// With the table of the query's dimension (EnsureVectorTable):
//   - fewer candidate chunks (readable, filtered) than
//     max(2000, all/32): an exact scan of them (<-> on every candidate);
//   - otherwise the HNSW index (m=16, ef_construction=64) walked with the
//     filter applied during the walk (pgvector 0.8's iterative scan, in
//     strict order), hnsw.ef_search = k, asking for k = max(64, 8*Limit)
//     chunks and 8 times more while they hold fewer than Limit entries
//     (up to 20000, then the exact scan). This answer is approximate as
//     HNSW is; its recall is measured by TestVectorRecallHNSW.
//
// A query of another dimension than the table's is answered by an exact
// scan of the stored chunks of its dimension, decoded in SQL. Without
// pgvector the answer is the error naming it. q.Explain fills Plan with
// the strategy (first line) and EXPLAIN of the statement that answered.
func (s *Store) VectorSearch(ctx context.Context, acc persist.Access, q persist.VectorQuery) (persist.VectorResult, error) {
	res := persist.VectorResult{Hits: []persist.VectorHit{}}
	if q.Limit <= 0 {
		return res, nil
	}
	if err := sqlval.CheckVector(q.Vector); err != nil {
		return res, errf("vector search: query %w", err)
	}
	st := s.vecState()
	if st.ext == "" || st.dim != len(q.Vector) {
		// Another replica may have installed pgvector or (re)built the
		// table since this Store last looked.
		var err error
		if st, err = loadVecState(ctx, s.pq); err != nil {
			return res, err
		}
		s.vec.Store(&st)
		if st.ext == "" {
			return res, errNoPgvector
		}
	}
	err := s.vectorSearch(ctx, acc, q, st, &res)
	if err != nil && ctx.Err() == nil {
		// Another replica may have dropped or rebuilt the table since
		// this Store last looked: search once more as the database is.
		if now, lerr := loadVecState(ctx, s.pq); lerr == nil && now != st {
			s.vec.Store(&now)
			res = persist.VectorResult{Hits: []persist.VectorHit{}}
			err = s.vectorSearch(ctx, acc, q, now, &res)
		}
	}
	if err != nil {
		return persist.VectorResult{Hits: []persist.VectorHit{}}, wrap("vector search", err)
	}
	return res, nil
}

// vectorSearch answers q in one read transaction with the table as st
// describes it (see VectorSearch).
func (s *Store) vectorSearch(ctx context.Context, acc persist.Access, q persist.VectorQuery, st vecState, res *persist.VectorResult) error {
	if st.ext == "" {
		return errNoPgvector
	}
	return s.readTx(ctx, acc, func(tx pgx.Tx) error {
		r := newReader(tx, nil, s.cfg.Schema)
		if st.dim != len(q.Vector) {
			return r.vectorExact(ctx, st, acc, q, false, res)
		}
		strategy := s.vecForce
		if strategy == vecAuto {
			strategy = vecExact
			if st.dim <= maxHNSWDim {
				many, err := r.manyCandidates(ctx, acc, q.Filter, cmp.Or(s.vecExactMin, minExactScan))
				if err != nil {
					return err
				}
				if many {
					strategy = vecHNSW
				}
			}
		}
		if strategy == vecHNSW {
			done, err := r.vectorHNSW(ctx, st, acc, q, s.vecForce == vecHNSW, res)
			if err != nil || done {
				return err
			}
		}
		return r.vectorExact(ctx, st, acc, q, true, res)
	})
}

// vectorLiteral is v in pgvector's text form: shortest float32 spellings,
// which pgvector parses back to the same float32 values.
func vectorLiteral(v []float32) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	sb.WriteByte(']')
	return sb.String()
}

// manyCandidates reports whether the candidate chunks of the table reach
// max(minExact, all/exactScanRatio), counting no further than that.
// all is the planner's estimate of the table's rows (no scan).
func (r reader) manyCandidates(ctx context.Context, acc persist.Access, f persist.Filter, minExact int64) (bool, error) {
	var total int64
	if err := r.q.QueryRow(ctx, `SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass('`+vecTable+`')`).Scan(&total); err != nil {
		return false, wrap("vector search: size", err)
	}
	limit := max(minExact, total/exactScanRatio)
	b := newB()
	b.W("SELECT count(*) FROM (SELECT 1 FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id JOIN " + vecTable + " v ON v.chunk_id = c.id WHERE ")
	if err := filter(b, acc, f); err != nil {
		return false, err
	}
	b.W(" LIMIT ").Arg(limit).W(") AS n")
	var n int64
	if err := r.q.QueryRow(ctx, b.String(), b.Args()...).Scan(&n); err != nil {
		return false, wrap("vector search: count candidates", err)
	}
	return n >= limit, nil
}

// vectorHNSW answers q by HNSW index scans; done is false when k reached
// kMax without Limit entries (the exact scan answers then). forced (tests)
// searches with the largest ef_search.
func (r reader) vectorHNSW(ctx context.Context, st vecState, acc persist.Access, q persist.VectorQuery, forced bool, res *persist.VectorResult) (bool, error) {
	lit := vectorLiteral(q.Vector)
	if st.iterative {
		if _, err := r.q.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`); err != nil {
			return false, wrap("vector search: iterative scan", err)
		}
	}
	for k := max(64, 8*q.Limit); ; k = min(kMax, 8*k) {
		ef := min(max(k, 40), efSearchMax)
		if forced {
			ef = efSearchMax
		}
		if _, err := r.q.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(ef)); err != nil {
			return false, wrap("vector search: ef_search", err)
		}
		dist := "v.embedding " + st.l2() + " "
		b := newB()
		b.W("SELECT "+dist).Typed(lit, "::"+st.vecType(st.dim))
		b.W(" AS d, c.id, c.context_id, c.chunk_index, c.start_index, c.end_index FROM " + vecTable + " v")
		b.W(" JOIN embedding_chunks c ON c.id = v.chunk_id JOIN context_entries e ON e.id = c.context_id WHERE ")
		if err := filter(b, acc, q.Filter); err != nil {
			return false, err
		}
		b.W(" ORDER BY "+dist).Typed(lit, "::"+st.vecType(st.dim)).W(" LIMIT ").Arg(k)
		rows, err := r.chunkDists(ctx, b)
		if err != nil {
			return false, err
		}
		hits, _ := sqlval.BestPerEntry(rows, q.Limit)
		if len(hits) >= q.Limit || len(rows) < k {
			res.Hits = hits
			return true, r.explain(ctx, b, fmt.Sprintf("pgvector hnsw k=%d ef_search=%d", k, ef), res, q.Explain)
		}
		if k == kMax {
			return false, nil
		}
	}
}

// vectorExact answers q by computing the distance of every candidate
// chunk: from the table's vectors (table), or from the stored bytes
// decoded in SQL for a query of another dimension.
func (r reader) vectorExact(ctx context.Context, st vecState, acc persist.Access, q persist.VectorQuery, table bool, res *persist.VectorResult) error {
	lit := vectorLiteral(q.Vector)
	b := newB()
	b.W("SELECT d, cid, id, chunk_index, start_index, end_index FROM (")
	b.W("SELECT d, cid, id, chunk_index, start_index, end_index,")
	b.W(" row_number() OVER (PARTITION BY id ORDER BY d, start_index, cid) AS rn FROM (SELECT ")
	from := " FROM context_entries e JOIN embedding_chunks c ON c.context_id = e.id"
	if table {
		b.W("v.embedding "+st.l2()+" ").Typed(lit, "::"+st.vecType(st.dim))
		from += " JOIN " + vecTable + " v ON v.chunk_id = c.id WHERE "
	} else {
		b.W("contextd_f32le(c.embedding)::"+st.vecType(0)+" "+st.l2()+" ").Typed(lit, "::"+st.vecType(0))
		from += " WHERE octet_length(c.embedding) = " + strconv.Itoa(4*len(q.Vector)) + " AND "
	}
	b.W(" AS d, c.id AS cid, c.context_id AS id, c.chunk_index, c.start_index, c.end_index" + from)
	if err := filter(b, acc, q.Filter); err != nil {
		return err
	}
	b.W(") AS x) AS y WHERE rn = 1 ORDER BY d, id LIMIT ").Arg(q.Limit)
	rows, err := r.chunkDists(ctx, b)
	if err != nil {
		return err
	}
	res.Hits, _ = sqlval.BestPerEntry(rows, q.Limit)
	strategy := "exact scan (pgvector <->)"
	if !table {
		strategy = "exact scan (decoded chunks of another dimension than the table's)"
	}
	return r.explain(ctx, b, strategy, res, q.Explain)
}

// chunkDists runs b, whose rows are distance, chunk key, entry id, chunk
// index, start and end of chunks that pass.
func (r reader) chunkDists(ctx context.Context, b *sqlb) ([]sqlval.ChunkDist, error) {
	rows, err := r.q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, wrap("vector search", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sqlval.ChunkDist, error) {
		c := sqlval.ChunkDist{OK: true}
		err := row.Scan(&c.Dist, &c.Key, &c.ID, &c.Chunk, &c.Start, &c.End)
		return c, err
	})
	if err != nil {
		return nil, wrap("vector search", err)
	}
	return out, nil
}

// explain fills res.Plan with strategy and the plan of b when asked.
func (r reader) explain(ctx context.Context, b *sqlb, strategy string, res *persist.VectorResult, want bool) error {
	if !want {
		return nil
	}
	p, err := Dialect.Plan(ctx, r.Q, b)
	if err != nil {
		return err
	}
	res.Plan = strategy + "\n" + p
	return nil
}
