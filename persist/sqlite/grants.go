package sqlite

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/persist"
)

// Grants lists every grant of entry id. The ORDER BY uses SQLite's BINARY
// collation, which compares UTF-8 bytes and therefore sorts in code-point
// order, the order list_context_grants documents.
func (r reader) Grants(ctx context.Context, id string) ([]persist.Grant, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT principal_type, principal_id, permission, granted_by, created_at
		FROM context_entry_grants WHERE context_entry_id = ?
		ORDER BY principal_type, principal_id, permission`, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list grants: %w", err)
	}
	defer rows.Close()
	out := []persist.Grant{}
	for rows.Next() {
		var (
			g  persist.Grant
			at int64
		)
		if err := rows.Scan(&g.PrincipalType, &g.PrincipalID, &g.Permission, &g.GrantedBy, &at); err != nil {
			return nil, fmt.Errorf("sqlite: list grants: scan: %w", err)
		}
		g.CreatedAt = fromMicros(at)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list grants: %w", err)
	}
	return out, nil
}

// Grant adds g to entry id; an identical grant already present is kept as
// it is (created false) and logs nothing. The entry row is not touched, so
// its updated_at and version stay and a concurrent update never conflicts.
func (t *tx) Grant(ctx context.Context, id string, g persist.Grant) (bool, error) {
	res, err := t.exec(ctx, sqlInsertGrant,
		id, g.PrincipalType, g.PrincipalID, g.Permission, g.GrantedBy, micros(g.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("sqlite: insert grant: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: insert grant: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	return true, t.log(ctx, id, persist.OpGrant)
}

// Ungrant removes one grant of entry id and logs the change when a row
// went away.
func (t *tx) Ungrant(ctx context.Context, id, principalType, principalID, permission string) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM context_entry_grants
		WHERE context_entry_id = ? AND principal_type = ? AND principal_id = ? AND permission = ?`,
		id, principalType, principalID, permission)
	if err != nil {
		return false, fmt.Errorf("sqlite: delete grant: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: delete grant: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	return true, t.log(ctx, id, persist.OpGrant)
}
