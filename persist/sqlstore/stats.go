package sqlstore

import (
	"context"

	"github.com/contextd/contextd/persist"
)

// StatsDialect is the dialect's side of the aggregate views.
type StatsDialect interface {
	// CountIf is the SQL aggregate counting the rows where cond holds.
	CountIf(cond string) string
	// TagJoin joins tags to the readable entries of the statistics; on
	// SQLite a CROSS JOIN keeps entries as the outer loop: one pass over
	// the readable entries probing the (entry, tag) index, instead of a
	// lookup of the entry of every tag row.
	TagJoin() string
}

// ListThreads lists threads holding readable entries with figures over the
// readable entries only, last entry DESC then latest id DESC. limit 0 means
// all; offset applies after ordering.
func (r Reader) ListThreads(ctx context.Context, acc persist.Access, limit, offset int) ([]persist.ThreadInfo, error) {
	b := NewBuilder(r.D)
	b.W("SELECT e.thread_id, count(*), count(DISTINCT e.source), " + r.D.CountIf("e.content_type = 'multimodal'") +
		", min(e.created_at), max(e.created_at), max(e.id) FROM ")
	b.AggregateFrom(acc, "e", []string{"thread_id", "source", "content_type", "created_at", "id"}, "", false)
	b.W(" GROUP BY e.thread_id ORDER BY max(e.created_at) DESC, max(e.id) DESC LIMIT ").Typed(r.D.Limit(limit), "::bigint")
	b.W(" OFFSET ").Typed(r.D.Count(max(offset, 0)), "::bigint")
	var out []persist.ThreadInfo
	err := r.each(ctx, b, func(rows Rows) error {
		var (
			ti          persist.ThreadInfo
			first, last Time
		)
		if err := rows.Scan(&ti.ThreadID, &ti.EntryCount, &ti.SourceTypes, &ti.MultimodalCount,
			&first, &last, &ti.LastID); err != nil {
			return err
		}
		ti.FirstEntry, ti.LastEntry = first.T, last.T
		out = append(out, ti)
		return nil
	})
	if err != nil {
		return nil, r.D.Wrap("list threads", err)
	}
	return out, nil
}

// each runs b and calls fn for every row.
func (r Reader) each(ctx context.Context, b *Builder, fn func(Rows) error) error {
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
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

// Stats computes the get_statistics figures over readable entries with
// r's querier, which the store makes one snapshot of the database. The
// size of the database (DBSizeBytes) is the store's to fill; it is -1
// here.
func (r Reader) Stats(ctx context.Context, acc persist.Access) (persist.Stats, error) {
	st := persist.Stats{
		BySource:      map[string]int{},
		ByContentType: map[string]int{},
		MostActive:    []persist.Count{},
		TopTags:       []persist.Count{},
		DBSizeBytes:   -1,
	}
	if acc.Narrow {
		return st, r.narrowStats(ctx, acc, &st)
	}
	// Entries by source and content type, with the summary count.
	b := NewBuilder(r.D)
	b.W("SELECT e.source, e.content_type, count(*), " + r.D.CountIf("e.summary IS NOT NULL AND e.summary <> ''") + " FROM ")
	b.AggregateFrom(acc, "e", []string{"source", "content_type", "summary"}, "", false).W(" GROUP BY e.source, e.content_type")
	err := r.each(ctx, b, func(rows Rows) error {
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
		return st, r.D.Wrap("statistics: entries", err)
	}

	// Threads: the total and the five most active.
	b = NewBuilder(r.D)
	b.W(`SELECT e.thread_id, count(*) AS n, count(*) OVER () FROM `)
	b.AggregateFrom(acc, "e", []string{"thread_id"}, "", false).W(" GROUP BY e.thread_id ORDER BY n DESC, e.thread_id ASC LIMIT 5")
	err = r.each(ctx, b, func(rows Rows) error {
		var c persist.Count
		if err := rows.Scan(&c.Name, &c.Count, &st.TotalThreads); err != nil {
			return err
		}
		st.MostActive = append(st.MostActive, c)
		return nil
	})
	if err != nil {
		return st, r.D.Wrap("statistics: threads", err)
	}

	// Tags: the number of distinct tags and the ten most used.
	b = NewBuilder(r.D)
	b.W("SELECT t.tag, count(*) AS n, count(*) OVER () FROM ")
	b.AggregateFrom(acc, "e", []string{"id"}, "tags t ON t.context_entry_id = e.id", true).W(" GROUP BY t.tag ORDER BY n DESC, t.tag ASC LIMIT 10")
	err = r.each(ctx, b, func(rows Rows) error {
		var c persist.Count
		if err := rows.Scan(&c.Name, &c.Count, &st.UniqueTags); err != nil {
			return err
		}
		st.TopTags = append(st.TopTags, c)
		return nil
	})
	if err != nil {
		return st, r.D.Wrap("statistics: tags", err)
	}

	b = NewBuilder(r.D)
	b.W(`SELECT count(*) FROM `)
	b.AggregateFrom(acc, "e", []string{"id"}, "image_attachments i ON i.context_entry_id = e.id", false)
	if err := r.Q.QueryRow(ctx, b.String(), b.Args()...).Scan(&st.TotalImages); err != nil {
		return st, r.D.Wrap("statistics: images", err)
	}
	return st, nil
}

// CountNodeSummaries counts the node summaries of the readable entries.
func (r Reader) CountNodeSummaries(ctx context.Context, acc persist.Access) (int, error) {
	b := NewBuilder(r.D)
	b.W(`SELECT count(*) FROM `)
	b.AggregateFrom(acc, "e", []string{"id"}, "context_index_nodes n ON n.context_entry_id = e.id", false)
	var n int
	if err := r.Q.QueryRow(ctx, b.String(), b.Args()...).Scan(&n); err != nil {
		return 0, r.D.Wrap("count node summaries", err)
	}
	return n, nil
}
