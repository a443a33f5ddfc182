package postgres

import (
	"context"

	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
)

// IndexDocs returns the entries among ids that exist, with their grants,
// without any access restriction (ids that do not exist are omitted).
func (s *Store) IndexDocs(ctx context.Context, ids []string) ([]persist.IndexDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := &sqlb{}
	b.w("SELECT " + entryCols + " FROM context_entries e WHERE e.id").anyOf(ids)
	return s.indexDocs(ctx, b)
}

// ScanIndexDocs returns up to limit entries with ids greater than afterID,
// in id order, with their grants and without access restriction.
func (s *Store) ScanIndexDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error) {
	return s.scan(ctx, entryCols, afterID, limit)
}

// ScanAccessDocs is ScanIndexDocs without the text and summary.
func (s *Store) ScanAccessDocs(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error) {
	return s.scan(ctx, accessCols, afterID, limit)
}

func (s *Store) scan(ctx context.Context, cols, afterID string, limit int) ([]persist.IndexDoc, error) {
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	b := &sqlb{}
	b.w("SELECT "+cols+" FROM context_entries e WHERE e.id > ").typed(afterID, "::text").w(" ORDER BY e.id LIMIT ").typed(lim, "::bigint")
	return s.indexDocs(ctx, b)
}

func (s *Store) indexDocs(ctx context.Context, b *sqlb) ([]persist.IndexDoc, error) {
	ents, err := s.reader.entries(ctx, "read index documents", b, false)
	if err != nil || len(ents) == 0 {
		return nil, err
	}
	out := make([]persist.IndexDoc, len(ents))
	pos := make(map[string]int, len(ents))
	ids := make([]string, len(ents))
	for i := range ents {
		out[i].Entry = ents[i]
		pos[ents[i].ID] = i
		ids[i] = ents[i].ID
	}
	rows, err := s.q.Query(ctx, `SELECT context_entry_id, principal_type, principal_id, permission
		FROM context_entry_grants WHERE context_entry_id = ANY($1::text[])`, ids)
	if err != nil {
		return nil, wrap("read index grants", err)
	}
	var (
		id string
		g  persist.Grant
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &g.PrincipalType, &g.PrincipalID, &g.Permission}, func() error {
		if i, ok := pos[id]; ok {
			out[i].Grants = append(out[i].Grants, g)
		}
		return nil
	}); err != nil {
		return nil, wrap("read index grants", err)
	}
	return out, nil
}

// FilterIDs returns the ids of the readable entries matching f, in id
// order.
func (s *Store) FilterIDs(ctx context.Context, acc persist.Access, f persist.Filter) ([]string, error) {
	b := &sqlb{}
	b.w("SELECT e.id FROM context_entries e WHERE ")
	if err := b.filter(acc, f); err != nil {
		return nil, err
	}
	b.w(" ORDER BY e.id")
	out, err := asCaller(s, ctx, acc, func(r reader) ([]string, error) { return r.strings1(ctx, "filter ids", b) })
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}
