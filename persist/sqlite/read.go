package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
)

// querier is what reads need: a *sql.DB (reader pool) or a *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// reader implements persist.Reader on a querier: the reads both SQL stores
// share (sqlstore.Reader) and SQLite's own. Every method applies the READ
// predicate of the Access it is given.
type reader struct {
	sqlstore.Reader
	q    querier
	db   *sql.DB // set on the Store's reader (for snapshot reads); nil in a Tx
	file string  // main database file; "" in memory
}

var _ persist.Reader = reader{}

func newReader(q querier, db *sql.DB, file string) reader {
	return reader{Reader: sqlstore.Reader{Q: sqlQ{q}, D: Dialect}, q: q, db: db, file: file}
}

// sqlQ runs the shared statements on a querier (sqlstore.Querier).
type sqlQ struct{ q querier }

func (a sqlQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := a.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (a sqlQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return sqlRow{a.q.QueryRowContext(ctx, query, args...)}
}

func (a sqlQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := a.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	if err := r.Row.Scan(dest...); err != sql.ErrNoRows {
		return err
	}
	return sqlstore.ErrNoRows
}

// entryCols are the columns scanEntry reads, on the alias e.
const entryCols = `e.id, e.thread_id, e.source, e.content_type, e.text_content, e.metadata,
	e.summary, e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at`

func (dialect) EntryCols() string   { return entryCols }
func (dialect) MetadataCol() string { return "metadata" }

// InlineTags: the tags and image counts come from a second statement,
// answered in-process (Reader.Entries).
func (dialect) InlineTags() bool { return false }

// PrefixMax: ids compare as bytes (BINARY collation).
func (dialect) PrefixMax() byte { return 0xff }

// ScanEntries reads the rows of entryCols. The scan targets live across
// rows: a Scan through the sqlstore.Rows interface makes its targets
// escape, so per-row targets cost allocations per row.
func (dialect) ScanEntries(rows sqlstore.Rows) ([]persist.Entry, error) {
	var (
		out              []persist.Entry
		e                persist.Entry
		meta             []byte
		summary, hash    sql.NullString
		created, updated int64
	)
	dest := []any{&e.ID, &e.ThreadID, &e.Source, &e.ContentType, &e.Text, &meta,
		&summary, &hash, &e.Version, &e.Owner, &e.Visibility, &created, &updated}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		x := e
		if meta != nil {
			x.Metadata = meta
		}
		x.Summary = summary.String
		x.ContentHash = hash.String
		x.CreatedAt = fromMicros(created)
		x.UpdatedAt = fromMicros(updated)
		x.Tags = []string{}
		out = append(out, x)
	}
	return out, nil
}

// Plan returns the EXPLAIN QUERY PLAN detail lines of b, one per line.
func (dialect) Plan(ctx context.Context, q sqlstore.Querier, b *sqlb) (string, error) {
	rows, err := q.Query(ctx, "EXPLAIN QUERY PLAN "+b.String(), b.Args()...)
	if err != nil {
		return "", fmt.Errorf("sqlite: explain search: %w", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var (
			id, parent, unused int64
			detail             string
		)
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return "", fmt.Errorf("sqlite: explain search: %w", err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("sqlite: explain search: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}
