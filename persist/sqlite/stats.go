package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
)

var _ persist.DBSizer = reader{}

// Stats computes the get_statistics figures over readable entries, from one
// snapshot of the database (sqlstore.Reader.Stats), and the size of the
// database file.
func (r reader) Stats(ctx context.Context, acc persist.Access) (persist.Stats, error) {
	var q querier = r.q
	if r.db != nil {
		snap, err := r.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return persist.Stats{}, fmt.Errorf("sqlite: statistics: %w", err)
		}
		defer snap.Rollback() //nolint:errcheck // read-only snapshot
		q = r.sameCounting(snap)
	}

	st, err := sqlstore.Reader{Q: sqlQ{q}, D: Dialect}.Stats(ctx, acc)
	if err != nil {
		return st, err
	}
	st.DBSizeBytes, _ = r.DBSize(ctx)
	return st, nil
}

// DBSize is the size of the database file (persist.DBSizer); -1 in
// memory or when the file cannot be stat'ed.
func (r reader) DBSize(context.Context) (int64, error) {
	if r.file != "" {
		if fi, err := os.Stat(r.file); err == nil {
			return fi.Size(), nil
		}
	}
	return -1, nil
}

func (dialect) CountIf(cond string) string { return "sum(" + cond + ")" }
func (dialect) TagJoin() string            { return "CROSS JOIN" }
