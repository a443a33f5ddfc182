package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/contextd/contextd/persist"
)

// ListThreads lists threads holding readable entries with figures over the
// readable entries only, last entry DESC then latest id DESC. limit 0 means
// all; offset applies after ordering.
func (r reader) ListThreads(ctx context.Context, acc persist.Access, limit, offset int) ([]persist.ThreadInfo, error) {
	if limit <= 0 {
		limit = -1
	}
	b := &sqlb{}
	b.w(`SELECT e.thread_id, count(*), count(DISTINCT e.source),
		sum(e.content_type = 'multimodal'), min(e.created_at), max(e.created_at), max(e.id)
		FROM context_entries e WHERE `)
	b.aggregate(acc, "e")
	b.w(" GROUP BY e.thread_id ORDER BY max(e.created_at) DESC, max(e.id) DESC LIMIT ").arg(limit)
	b.w(" OFFSET ").arg(max(offset, 0))
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list threads: %w", err)
	}
	defer rows.Close()
	var out []persist.ThreadInfo
	for rows.Next() {
		var (
			ti          persist.ThreadInfo
			first, last int64
		)
		if err := rows.Scan(&ti.ThreadID, &ti.EntryCount, &ti.SourceTypes, &ti.MultimodalCount,
			&first, &last, &ti.LastID); err != nil {
			return nil, fmt.Errorf("sqlite: list threads: %w", err)
		}
		ti.FirstEntry, ti.LastEntry = fromMicros(first), fromMicros(last)
		out = append(out, ti)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list threads: %w", err)
	}
	return out, nil
}

// Stats computes the get_statistics figures over readable entries, from one
// snapshot of the database.
func (r reader) Stats(ctx context.Context, acc persist.Access) (persist.Stats, error) {
	st := persist.Stats{
		BySource:      map[string]int{},
		ByContentType: map[string]int{},
		MostActive:    []persist.Count{},
		TopTags:       []persist.Count{},
		DBSizeBytes:   -1,
	}
	q := r.q
	if r.db != nil {
		snap, err := r.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return st, fmt.Errorf("sqlite: statistics: %w", err)
		}
		defer snap.Rollback() //nolint:errcheck // read-only snapshot
		q = r.sameCounting(snap)
	}

	// Entries by source and content type, with the summary count.
	b := &sqlb{}
	b.w(`SELECT e.source, e.content_type, count(*), sum(e.summary IS NOT NULL AND e.summary <> '')
		FROM context_entries e WHERE `)
	b.aggregate(acc, "e").w(" GROUP BY e.source, e.content_type")
	err := each(ctx, q, b, func(rows *sql.Rows) error {
		var (
			src, ct  string
			n, summd int
		)
		if err := rows.Scan(&src, &ct, &n, &summd); err != nil {
			return err
		}
		st.TotalEntries += n
		st.BySource[src] += n
		st.ByContentType[ct] += n
		st.SummaryCount += summd
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("sqlite: statistics: entries: %w", err)
	}

	// Threads: the total and the five most active.
	b = &sqlb{}
	b.w(`SELECT e.thread_id, count(*) AS n, count(*) OVER () FROM context_entries e WHERE `)
	b.aggregate(acc, "e").w(" GROUP BY e.thread_id ORDER BY n DESC, e.thread_id ASC LIMIT 5")
	err = each(ctx, q, b, func(rows *sql.Rows) error {
		var c persist.Count
		if err := rows.Scan(&c.Name, &c.Count, &st.TotalThreads); err != nil {
			return err
		}
		st.MostActive = append(st.MostActive, c)
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("sqlite: statistics: threads: %w", err)
	}

	// Tags: the number of distinct tags and the ten most used.
	b = &sqlb{}
	// CROSS JOIN keeps entries as the outer loop: one pass over the
	// readable entries probing the (entry, tag) index, instead of a lookup
	// of the entry of every tag row.
	b.w(`SELECT t.tag, count(*) AS n, count(*) OVER () FROM context_entries e
		CROSS JOIN tags t ON t.context_entry_id = e.id WHERE `)
	b.aggregate(acc, "e").w(" GROUP BY t.tag ORDER BY n DESC, t.tag ASC LIMIT 10")
	err = each(ctx, q, b, func(rows *sql.Rows) error {
		var c persist.Count
		if err := rows.Scan(&c.Name, &c.Count, &st.UniqueTags); err != nil {
			return err
		}
		st.TopTags = append(st.TopTags, c)
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("sqlite: statistics: tags: %w", err)
	}

	b = &sqlb{}
	b.w(`SELECT count(*) FROM image_attachments i JOIN context_entries e ON e.id = i.context_entry_id WHERE `)
	b.aggregate(acc, "e")
	if err := q.QueryRowContext(ctx, b.String(), b.args...).Scan(&st.TotalImages); err != nil {
		return st, fmt.Errorf("sqlite: statistics: images: %w", err)
	}

	if r.file != "" {
		if fi, err := os.Stat(r.file); err == nil {
			st.DBSizeBytes = fi.Size()
		}
	}
	return st, nil
}

// each runs b and calls fn for every row.
func each(ctx context.Context, q querier, b *sqlb, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
