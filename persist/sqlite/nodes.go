package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/persist"
)

var (
	_ persist.NodeSummaryReader = reader{}
	_ persist.NodeSummaryWriter = (*tx)(nil)
)

// NodeSummaries returns the stored node summaries of entry id.
func (r reader) NodeSummaries(ctx context.Context, id string) ([]persist.NodeSummary, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT node_id, char_start, char_end, summary
		FROM context_index_nodes WHERE context_entry_id = ? ORDER BY char_start, node_id`, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read node summaries: %w", err)
	}
	defer rows.Close()
	var out []persist.NodeSummary
	for rows.Next() {
		var n persist.NodeSummary
		if err := rows.Scan(&n.NodeID, &n.Start, &n.End, &n.Summary); err != nil {
			return nil, fmt.Errorf("sqlite: scan node summary: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// ReplaceNodeSummaries deletes the node summaries of entry id and stores
// nodes in their place.
func (t *tx) ReplaceNodeSummaries(ctx context.Context, id string, nodes []persist.NodeSummary) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM context_index_nodes WHERE context_entry_id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: clear node summaries: %w", err)
	}
	now := time.Now().UnixMicro()
	for _, n := range nodes {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO context_index_nodes
			(context_entry_id, node_id, char_start, char_end, summary, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, n.NodeID, n.Start, n.End, n.Summary, now); err != nil {
			return fmt.Errorf("sqlite: store node summary: %w", err)
		}
	}
	// The catalogs count node summaries (get_statistics): they re-read
	// the entry.
	return t.Log(ctx, id, persist.OpUpdate)
}
