package postgres

import (
	"context"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/jackc/pgx/v5"
)

var _ persist.DBSizer = reader{}

// Stats computes the get_statistics figures over readable entries from one
// snapshot (a REPEATABLE READ, READ ONLY transaction).
func (r reader) Stats(ctx context.Context, acc persist.Access) (persist.Stats, error) {
	q := r.q
	if r.pool != nil {
		snap, err := r.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return persist.Stats{}, wrap("statistics", err)
		}
		defer snap.Rollback(context.Background()) //nolint:errcheck // read-only snapshot
		q = snap
	}
	st, err := sqlstore.Reader{Q: pgQ{q}, D: Dialect}.Stats(ctx, acc)
	if err != nil {
		return st, err
	}

	st.DBSizeBytes, err = r.size(ctx, q)
	return st, err
}

// DBSize is the size of the store (persist.DBSizer): the size of its
// schema's relations (tables, their indexes and TOAST); other schemas of
// the database are not contextd's. -1 when the schema has none.
func (r reader) DBSize(ctx context.Context) (int64, error) { return r.size(ctx, r.q) }

func (r reader) size(ctx context.Context, q querier) (int64, error) {
	var size *int64
	if err := q.QueryRow(ctx, `SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`, r.schema).Scan(&size); err != nil {
		return -1, wrap("statistics: size", err)
	}
	if size == nil {
		return -1, nil
	}
	return *size, nil
}

// NodeSummaries returns the stored node summaries of entry id.
func (r reader) NodeSummaries(ctx context.Context, id string) ([]persist.NodeSummary, error) {
	rows, err := r.q.Query(ctx, `SELECT node_id, char_start, char_end, summary
		FROM context_index_nodes WHERE context_entry_id = $1 ORDER BY char_start, node_id`, id)
	if err != nil {
		return nil, wrap("read node summaries", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (persist.NodeSummary, error) {
		var n persist.NodeSummary
		err := row.Scan(&n.NodeID, &n.Start, &n.End, &n.Summary)
		return n, err
	})
	if err != nil {
		return nil, wrap("read node summaries", err)
	}
	return out, nil
}

// ReplaceNodeSummaries deletes the node summaries of entry id and stores
// nodes in their place.
func (t *tx) ReplaceNodeSummaries(ctx context.Context, id string, nodes []persist.NodeSummary) error {
	if err := t.tx.put(ctx, "clear node summaries", `DELETE FROM context_index_nodes WHERE context_entry_id = $1`, id); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, n := range nodes {
		if err := t.tx.put(ctx, "store node summary", `INSERT INTO context_index_nodes
			(context_entry_id, node_id, char_start, char_end, summary, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			id, n.NodeID, n.Start, n.End, n.Summary, now); err != nil {
			return err
		}
	}
	// The catalogs count node summaries (get_statistics): they re-read
	// the entry.
	return t.Log(ctx, id, persist.OpUpdate)
}

// IngestEntries returns the readable entries of a corpus thread carrying an
// ingest block of the scope, in (source_id, id) order (COLLATE "C":
// code-point order, as the sync tools define).
func (r reader) IngestEntries(ctx context.Context, acc persist.Access, q persist.IngestQuery) ([]persist.IngestRow, error) {
	b := newB()
	b.W(`SELECT id, owner_id, content_hash, sid, block FROM (SELECT e.id, e.owner_id, e.content_hash,
		(e.metadata #>> '{ingest,source_id}') COLLATE "C" AS sid, (e.metadata -> 'ingest')::text AS block
		FROM context_entries e WHERE e.thread_id = `).Typed(q.ThreadID, "::text")
	b.W(` AND jsonb_typeof(e.metadata -> 'ingest') = 'object'`)
	b.W(` AND jsonb_typeof(e.metadata #> '{ingest,scope}') = 'string' AND jsonb_typeof(e.metadata #> '{ingest,source_id}') = 'string'`)
	b.W(` AND (e.metadata #>> '{ingest,scope}') = `).Typed(q.Scope, "::text")
	if q.OwnedOnly {
		b.W(` AND e.owner_id = `).Typed(acc.Principal, "::text")
	} else {
		b.W(` AND `)
		b.Readable(acc, "e")
	}
	b.W(`) s WHERE true`)
	if q.SourceAfter != nil {
		b.W(` AND sid > `).Typed(*q.SourceAfter, "::text")
	}
	if q.SourceThrough != nil {
		b.W(` AND sid <= `).Typed(*q.SourceThrough, "::text")
	}
	if q.From != nil {
		b.W(` AND (sid, id) > (`).Typed(q.From.SourceID, "::text").W(`, `).Typed(q.From.ID, "::text").W(`)`)
	}
	b.W(` ORDER BY sid, id`)
	if q.Limit > 0 {
		b.W(` LIMIT `).Typed(int64(q.Limit), "::bigint")
	}
	rows, err := r.q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, wrap("read ingest state", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (persist.IngestRow, error) {
		var (
			ir    persist.IngestRow
			hash  *string
			block string
		)
		err := row.Scan(&ir.ID, &ir.Owner, &hash, &ir.SourceID, &block)
		if hash != nil {
			ir.ContentHash = *hash
		}
		ir.Ingest = []byte(block)
		return ir, err
	})
	if err != nil {
		return nil, wrap("read ingest state", err)
	}
	return out, nil
}

func (dialect) CountIf(cond string) string { return "count(*) FILTER (WHERE " + cond + ")" }
func (dialect) TagJoin() string            { return "JOIN" }
