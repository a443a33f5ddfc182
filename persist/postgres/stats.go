package postgres

import (
	"context"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
)

// ListThreads lists threads holding readable entries with figures over the
// readable entries only, last entry DESC then latest id DESC. limit 0 means
// all; offset applies after ordering.
func (r reader) ListThreads(ctx context.Context, acc persist.Access, limit, offset int) ([]persist.ThreadInfo, error) {
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	b := &sqlb{}
	b.w(`SELECT e.thread_id, count(*), count(DISTINCT e.source),
		count(*) FILTER (WHERE e.content_type = 'multimodal'), min(e.created_at), max(e.created_at), max(e.id)
		FROM context_entries e WHERE `)
	b.aggregate(acc, "e")
	b.w(" GROUP BY e.thread_id ORDER BY max(e.created_at) DESC, max(e.id) DESC LIMIT ").typed(lim, "::bigint")
	b.w(" OFFSET ").typed(int64(max(offset, 0)), "::bigint")
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return nil, wrap("list threads", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (persist.ThreadInfo, error) {
		var ti persist.ThreadInfo
		err := row.Scan(&ti.ThreadID, &ti.EntryCount, &ti.SourceTypes, &ti.MultimodalCount,
			&ti.FirstEntry, &ti.LastEntry, &ti.LastID)
		ti.FirstEntry, ti.LastEntry = ti.FirstEntry.UTC(), ti.LastEntry.UTC()
		return ti, err
	})
	if err != nil {
		return nil, wrap("list threads", err)
	}
	return out, nil
}

// Stats computes the get_statistics figures over readable entries from one
// snapshot (a REPEATABLE READ, READ ONLY transaction).
func (r reader) Stats(ctx context.Context, acc persist.Access) (persist.Stats, error) {
	st := persist.Stats{
		BySource:      map[string]int{},
		ByContentType: map[string]int{},
		MostActive:    []persist.Count{},
		TopTags:       []persist.Count{},
		DBSizeBytes:   -1,
	}
	q := r.q
	if r.pool != nil {
		snap, err := r.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return st, wrap("statistics", err)
		}
		defer snap.Rollback(context.Background()) //nolint:errcheck // read-only snapshot
		q = snap
	}
	each := func(what string, b *sqlb, dest []any, fn func()) error {
		rows, err := q.Query(ctx, b.String(), b.args...)
		if err != nil {
			return wrap("statistics: "+what, err)
		}
		_, err = pgx.ForEachRow(rows, dest, func() error { fn(); return nil })
		return wrap("statistics: "+what, err)
	}

	var (
		src, ct, name string
		n, summd, tot int
	)
	b := &sqlb{}
	b.w(`SELECT e.source, e.content_type, count(*), count(*) FILTER (WHERE e.summary IS NOT NULL AND e.summary <> '')
		FROM context_entries e WHERE `)
	b.aggregate(acc, "e").w(" GROUP BY e.source, e.content_type")
	if err := each("entries", b, []any{&src, &ct, &n, &summd}, func() {
		st.TotalEntries += n
		st.BySource[src] += n
		st.ByContentType[ct] += n
		st.SummaryCount += summd
	}); err != nil {
		return st, err
	}

	b = &sqlb{}
	b.w(`SELECT e.thread_id, count(*) AS n, count(*) OVER () FROM context_entries e WHERE `)
	b.aggregate(acc, "e").w(" GROUP BY e.thread_id ORDER BY n DESC, e.thread_id ASC LIMIT 5")
	if err := each("threads", b, []any{&name, &n, &tot}, func() {
		st.TotalThreads = tot
		st.MostActive = append(st.MostActive, persist.Count{Name: name, Count: n})
	}); err != nil {
		return st, err
	}

	b = &sqlb{}
	b.w(`SELECT t.tag, count(*) AS n, count(*) OVER () FROM context_entries e
		JOIN tags t ON t.context_entry_id = e.id WHERE `)
	b.aggregate(acc, "e").w(" GROUP BY t.tag ORDER BY n DESC, t.tag ASC LIMIT 10")
	if err := each("tags", b, []any{&name, &n, &tot}, func() {
		st.UniqueTags = tot
		st.TopTags = append(st.TopTags, persist.Count{Name: name, Count: n})
	}); err != nil {
		return st, err
	}

	b = &sqlb{}
	b.w(`SELECT count(*) FROM image_attachments i JOIN context_entries e ON e.id = i.context_entry_id WHERE `)
	b.aggregate(acc, "e")
	if err := q.QueryRow(ctx, b.String(), b.args...).Scan(&st.TotalImages); err != nil {
		return st, wrap("statistics: images", err)
	}

	// The size of the store is the size of its schema's relations
	// (tables, their indexes and TOAST): other schemas of the database
	// are not contextd's.
	var size *int64
	if err := q.QueryRow(ctx, `SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`, r.schema).Scan(&size); err != nil {
		return st, wrap("statistics: size", err)
	}
	if size != nil {
		st.DBSizeBytes = *size
	}
	return st, nil
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

// CountNodeSummaries counts the node summaries of the readable entries.
func (r reader) CountNodeSummaries(ctx context.Context, acc persist.Access) (int, error) {
	b := &sqlb{}
	b.w(`SELECT count(*) FROM context_index_nodes n JOIN context_entries e ON e.id = n.context_entry_id WHERE `)
	b.aggregate(acc, "e")
	var n int
	if err := r.q.QueryRow(ctx, b.String(), b.args...).Scan(&n); err != nil {
		return 0, wrap("count node summaries", err)
	}
	return n, nil
}

// ReplaceNodeSummaries deletes the node summaries of entry id and stores
// nodes in their place.
func (t *tx) ReplaceNodeSummaries(ctx context.Context, id string, nodes []persist.NodeSummary) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM context_index_nodes WHERE context_entry_id = $1`, id); err != nil {
		return wrap("clear node summaries", err)
	}
	now := time.Now().UTC()
	for _, n := range nodes {
		if _, err := t.tx.Exec(ctx, `INSERT INTO context_index_nodes
			(context_entry_id, node_id, char_start, char_end, summary, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			id, n.NodeID, n.Start, n.End, n.Summary, now); err != nil {
			return wrap("store node summary", err)
		}
	}
	return nil
}

// IngestEntries returns the readable entries of a corpus thread carrying an
// ingest block of the scope, in (source_id, id) order (COLLATE "C":
// code-point order, as the sync tools define).
func (r reader) IngestEntries(ctx context.Context, acc persist.Access, q persist.IngestQuery) ([]persist.IngestRow, error) {
	b := &sqlb{}
	b.w(`SELECT id, owner_id, content_hash, sid, block FROM (SELECT e.id, e.owner_id, e.content_hash,
		(e.metadata #>> '{ingest,source_id}') COLLATE "C" AS sid, (e.metadata -> 'ingest')::text AS block
		FROM context_entries e WHERE e.thread_id = `).typed(q.ThreadID, "::text")
	b.w(` AND jsonb_typeof(e.metadata -> 'ingest') = 'object'`)
	b.w(` AND jsonb_typeof(e.metadata #> '{ingest,scope}') = 'string' AND jsonb_typeof(e.metadata #> '{ingest,source_id}') = 'string'`)
	b.w(` AND (e.metadata #>> '{ingest,scope}') = `).typed(q.Scope, "::text")
	if q.OwnedOnly {
		b.w(` AND e.owner_id = `).typed(acc.Principal, "::text")
	} else {
		b.w(` AND `)
		b.readable(acc, "e")
	}
	b.w(`) s WHERE true`)
	if q.SourceAfter != nil {
		b.w(` AND sid > `).typed(*q.SourceAfter, "::text")
	}
	if q.SourceThrough != nil {
		b.w(` AND sid <= `).typed(*q.SourceThrough, "::text")
	}
	if q.From != nil {
		b.w(` AND (sid, id) > (`).typed(q.From.SourceID, "::text").w(`, `).typed(q.From.ID, "::text").w(`)`)
	}
	b.w(` ORDER BY sid, id`)
	if q.Limit > 0 {
		b.w(` LIMIT `).typed(int64(q.Limit), "::bigint")
	}
	rows, err := r.q.Query(ctx, b.String(), b.args...)
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
