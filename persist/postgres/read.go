package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is what reads need: the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// txBeginner starts transactions (the Store's poolQ).
type txBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// reader implements persist.Reader on a querier: the reads both SQL stores
// share (sqlstore.Reader) and PostgreSQL's own. Every method applies the
// READ predicate of the Access it is given.
type reader struct {
	sqlstore.Reader
	q      querier
	pool   txBeginner // set on the Store's reader (for snapshot reads); nil in a Tx
	schema string
}

var _ persist.Reader = reader{}

func newReader(q querier, pool txBeginner, schema string) reader {
	return reader{Reader: sqlstore.Reader{Q: pgQ{q}, D: Dialect}, q: q, pool: pool, schema: schema}
}

// pgQ runs the shared statements on a querier (sqlstore.Querier).
type pgQ struct{ q querier }

func (a pgQ) Query(ctx context.Context, sql string, args ...any) (sqlstore.Rows, error) {
	return a.q.Query(ctx, sql, args...)
}

func (a pgQ) QueryRow(ctx context.Context, sql string, args ...any) sqlstore.Row {
	return pgRow{a.q.QueryRow(ctx, sql, args...)}
}

func (a pgQ) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := a.q.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

type pgRow struct{ pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	if err := r.Row.Scan(dest...); !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return sqlstore.ErrNoRows
}

// entryCols are the columns scanEntry reads, on the alias e: the entry's
// own, then its tags (in byte order) and its image count. Every statement
// is a round trip to the server, so the page a search hydrates comes in
// the entries' own statement rather than in a second one for the tags and
// counts (sqlstore.Reader.Entries); PostgreSQL evaluates the two
// subqueries only for the rows a LIMIT keeps. hydrateCols is that tail.
const entryCols = `e.id, e.thread_id, e.source, e.content_type, e.text_content, e.metadata_text,
	e.summary, e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at` + hydrateCols

const hydrateCols = `,
	ARRAY(SELECT t.tag FROM tags t WHERE t.context_entry_id = e.id ORDER BY t.tag),
	(SELECT count(*) FROM image_attachments i WHERE i.context_entry_id = e.id)`

// accessCols are entryCols without the text and summary: what an index's
// access catalog keeps (the metadata answers search_context's filters);
// the summary column is "*" when the entry has one (IndexDoc.Summarized).
const accessCols = `e.id, e.thread_id, e.source, e.content_type, '' AS text_content, e.metadata_text,
	CASE WHEN e.summary IS NOT NULL AND e.summary <> '' THEN '*' END::text AS summary,
	e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at` + hydrateCols

func (dialect) EntryCols() string   { return entryCols }
func (dialect) AccessCols() string  { return accessCols }
func (dialect) MetadataCol() string { return "metadata_text" }
func (dialect) InlineTags() bool    { return true }

// PrefixMax keeps a bumped prefix valid UTF-8; ids are hex, so every
// prefix that can match stays below it.
func (dialect) PrefixMax() byte { return 0x7f }

// ScanEntries reads the rows of entryCols, tags and image count
// included. The scan targets live across rows: a Scan through the
// sqlstore.Rows interface makes its targets escape, so per-row targets
// cost allocations per row.
func (dialect) ScanEntries(rows sqlstore.Rows) ([]persist.Entry, error) {
	var (
		out              []persist.Entry
		e                persist.Entry
		meta             *string
		summary, hash    *string
		created, updated time.Time
		tags             []string
		images           int64
	)
	dest := []any{&e.ID, &e.ThreadID, &e.Source, &e.ContentType, &e.Text, &meta,
		&summary, &hash, &e.Version, &e.Owner, &e.Visibility, &created, &updated, &tags, &images}
	for rows.Next() {
		tags = nil // a fresh slice for each row
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		x := e
		if meta != nil {
			x.Metadata = []byte(*meta)
		}
		if summary != nil {
			x.Summary = *summary
		}
		if hash != nil {
			x.ContentHash = *hash
		}
		x.CreatedAt, x.UpdatedAt = created.UTC(), updated.UTC()
		x.Tags = tags
		if x.Tags == nil {
			x.Tags = []string{}
		}
		x.ImageCount = int(images)
		out = append(out, x)
	}
	return out, nil
}

// Plan returns the EXPLAIN output of b, one line per plan line.
func (dialect) Plan(ctx context.Context, q sqlstore.Querier, b *sqlb) (string, error) {
	lines, err := sqlstore.Reader{Q: q, D: Dialect}.Strings(ctx, "explain search", b.Plan("EXPLAIN "))
	if err != nil {
		return "", err
	}
	return strings.Join(lines, "\n"), nil
}
