package sqlite

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/persist"
)

// Texts returns the text of the readable entries among ids, by id: what a
// reranker reads of a ranked search's candidates, without the tags,
// metadata and images a result page needs.
func (r reader) Texts(ctx context.Context, acc persist.Access, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	b := &sqlb{}
	b.w("SELECT e.id, e.text_content FROM context_entries e WHERE e.id IN ").in(ids).w(" AND ")
	b.readable(acc, "e")
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read texts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, fmt.Errorf("sqlite: read texts: %w", err)
		}
		out[id] = text
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read texts: %w", err)
	}
	return out, nil
}
