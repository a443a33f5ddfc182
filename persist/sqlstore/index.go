package sqlstore

import (
	"context"

	"github.com/contextd/contextd/persist"
)

// IndexDocs returns the entries among ids that exist, with their grants,
// without any access restriction (ids that do not exist are omitted).
func (r Reader) IndexDocs(ctx context.Context, ids []string) ([]persist.IndexDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := NewBuilder(r.D)
	b.W("SELECT "+r.D.EntryCols()+" FROM context_entries e WHERE ").IsIn("e.id", ids)
	return r.indexDocs(ctx, b, false)
}

// AccessDocs is IndexDocs without the text and summary (Text is ""): what
// the catalogs that follow the change log put again for each changed
// entry. Reading the text there too held a large batch once more per
// catalog (16 texts of 10 MiB read back by each) for nothing.
func (r Reader) AccessDocs(ctx context.Context, ids []string) ([]persist.IndexDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := NewBuilder(r.D)
	b.W("SELECT "+r.D.AccessCols()+" FROM context_entries e WHERE ").IsIn("e.id", ids)
	return r.indexDocs(ctx, b, true)
}

// ScanIndexDocs returns up to limit entries with ids greater than afterID,
// in id order, with their grants and without access restriction: the pages
// of an index rebuild.
func (r Reader) ScanIndexDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error) {
	return r.scanDocs(ctx, r.D.EntryCols(), false, afterID, limit)
}

// ScanAccessDocs is ScanIndexDocs without the text and summary: the pages
// an index's access catalog (with the metadata its filters are answered
// from) is loaded from at start-up, which need not read every stored text.
func (r Reader) ScanAccessDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error) {
	return r.scanDocs(ctx, r.D.AccessCols(), true, afterID, limit)
}

func (r Reader) scanDocs(ctx context.Context, cols string, access bool, afterID string, limit int) ([]persist.IndexDoc, error) {
	b := NewBuilder(r.D)
	b.W("SELECT "+cols+" FROM context_entries e WHERE e.id > ").Typed(afterID, "::text")
	b.W(" ORDER BY e.id LIMIT ").Typed(r.D.Limit(limit), "::bigint")
	return r.indexDocs(ctx, b, access)
}

// indexDocs reads the entries of b's statement with their grants. With
// access, b selects AccessCols, whose summary column is only a marker of
// a non-empty summary: it sets Summarized and is cleared.
func (r Reader) indexDocs(ctx context.Context, b *Builder, access bool) ([]persist.IndexDoc, error) {
	ents, err := r.Entries(ctx, "read index documents", b, false)
	if err != nil || len(ents) == 0 {
		return nil, err
	}
	out := make([]persist.IndexDoc, len(ents))
	pos := make(map[string]int, len(ents))
	ids := make([]string, len(ents))
	for i := range ents {
		out[i].Entry = ents[i]
		out[i].Summarized = ents[i].Summary != ""
		if access {
			out[i].Summary = ""
		}
		pos[ents[i].ID] = i
		ids[i] = ents[i].ID
	}
	if err := r.nodeCounts(ctx, out, pos, ids); err != nil {
		return nil, err
	}
	g := NewBuilder(r.D)
	g.W("SELECT context_entry_id, principal_type, principal_id, permission FROM context_entry_grants WHERE ").IsIn("context_entry_id", ids)
	rows, err := r.Q.Query(ctx, g.String(), g.Args()...)
	if err != nil {
		return nil, r.D.Wrap("read index grants", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var gr persist.Grant
		if err := rows.Scan(&id, &gr.PrincipalType, &gr.PrincipalID, &gr.Permission); err != nil {
			return nil, r.D.Wrap("read index grants", err)
		}
		if i, ok := pos[id]; ok {
			out[i].Grants = append(out[i].Grants, gr)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap("read index grants", err)
	}
	return out, nil
}

// nodeCounts sets the NodeCount of the docs out (at pos by id).
func (r Reader) nodeCounts(ctx context.Context, out []persist.IndexDoc, pos map[string]int, ids []string) error {
	b := NewBuilder(r.D)
	b.W("SELECT context_entry_id, count(*) FROM context_index_nodes WHERE ").IsIn("context_entry_id", ids).W(" GROUP BY context_entry_id")
	counts, err := r.idInts(ctx, b)
	if err != nil {
		return r.D.Wrap("read index node counts", err)
	}
	for id, n := range counts {
		if i, ok := pos[id]; ok {
			out[i].NodeCount = n
		}
	}
	return nil
}

// idInts runs b, which selects an id and an integer, into a map.
func (r Reader) idInts(ctx context.Context, b *Builder) (map[string]int, error) {
	out := map[string]int{}
	err := r.each(ctx, b, func(rows Rows) error {
		var (
			id string
			n  int
		)
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		out[id] = n
		return nil
	})
	return out, err
}

// FilterIDsSQL builds the statement of FilterIDs: the ids of the readable
// entries matching f, in id order (the allowed set when a filter, such as
// a metadata condition, can only be evaluated by SQL).
func (r Reader) FilterIDsSQL(acc persist.Access, f persist.Filter) (*Builder, error) {
	b := NewBuilder(r.D)
	b.W("SELECT e.id FROM context_entries e WHERE ")
	if err := b.Filter(acc, f); err != nil {
		return nil, r.D.Errf("%w", err)
	}
	b.W(" ORDER BY e.id")
	return b, nil
}

// IDs runs a FilterIDsSQL statement; the result is never nil.
func (r Reader) IDs(ctx context.Context, b *Builder) ([]string, error) {
	out, err := r.Strings(ctx, "filter ids", b)
	if out == nil && err == nil {
		out = []string{}
	}
	return out, err
}

// TextSizes returns the size in bytes of the text of each entry among ids
// that exists, without access restriction: how the full-text index cuts a
// change-log batch into parts it reads one at a time, so sixteen texts of
// 10 MiB are not all in memory while each is analysed. On SQLite
// octet_length reads the size from the record header, not the text.
func (r Reader) TextSizes(ctx context.Context, ids []string) (map[string]int, error) {
	if len(ids) == 0 {
		return map[string]int{}, nil
	}
	b := NewBuilder(r.D)
	b.W("SELECT e.id, octet_length(e.text_content) FROM context_entries e WHERE ").IsIn("e.id", ids)
	out, err := r.idInts(ctx, b)
	if err != nil {
		return nil, r.D.Wrap("read text sizes", err)
	}
	return out, nil
}
