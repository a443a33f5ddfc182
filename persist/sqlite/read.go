package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// querier is what reads need: a *sql.DB (reader pool) or a *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// reader implements persist.Reader on a querier. Every method applies the
// READ predicate of the Access it is given.
type reader struct {
	q    querier
	db   *sql.DB // set on the Store's reader (for snapshot reads); nil in a Tx
	file string  // main database file; "" in memory
}

var _ persist.Reader = reader{}

// entryCols are the columns scanEntry reads, on the alias e.
const entryCols = `e.id, e.thread_id, e.source, e.content_type, e.text_content, e.metadata,
	e.summary, e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at`

func scanEntry(rows *sql.Rows) (persist.Entry, error) {
	var (
		e                persist.Entry
		meta             []byte
		summary, hash    sql.NullString
		created, updated int64
	)
	if err := rows.Scan(&e.ID, &e.ThreadID, &e.Source, &e.ContentType, &e.Text, &meta,
		&summary, &hash, &e.Version, &e.Owner, &e.Visibility, &created, &updated); err != nil {
		return e, err
	}
	if meta != nil {
		e.Metadata = meta
	}
	e.Summary = summary.String
	e.ContentHash = hash.String
	e.CreatedAt = fromMicros(created)
	e.UpdatedAt = fromMicros(updated)
	e.Tags = []string{}
	return e, nil
}

// entries runs a query selecting entryCols and hydrates the result with
// tags, image counts and (when images) image rows, using one extra query
// for tags and counts and one for images.
func (r reader) entries(ctx context.Context, what, query string, args []any, images bool) ([]persist.Entry, error) {
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	var out []persist.Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: %s: scan: %w", what, err)
		}
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if err := r.hydrate(ctx, out, images); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return out, nil
}

// hydrate loads the tags and image counts of es, and the images when asked.
func (r reader) hydrate(ctx context.Context, es []persist.Entry, images bool) error {
	if len(es) == 0 {
		return nil
	}
	ids := make([]string, len(es))
	pos := make(map[string]int, len(es))
	for i := range es {
		ids[i] = es[i].ID
		pos[es[i].ID] = i
	}
	b := &sqlb{}
	b.w("SELECT context_entry_id, tag, 0 FROM tags WHERE context_entry_id IN ").in(ids)
	b.w(" UNION ALL SELECT context_entry_id, NULL, count(*) FROM image_attachments WHERE context_entry_id IN ").in(ids)
	b.w(" GROUP BY context_entry_id")
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return fmt.Errorf("load tags: %w", err)
	}
	for rows.Next() {
		var (
			id  string
			tag sql.NullString
			n   int
		)
		if err := rows.Scan(&id, &tag, &n); err != nil {
			rows.Close()
			return fmt.Errorf("load tags: %w", err)
		}
		i, ok := pos[id]
		if !ok {
			continue
		}
		if tag.Valid {
			es[i].Tags = append(es[i].Tags, tag.String)
		} else {
			es[i].ImageCount = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load tags: %w", err)
	}
	for i := range es {
		sort.Strings(es[i].Tags)
	}
	if !images {
		return nil
	}
	var want []string
	for _, e := range es {
		if e.ImageCount > 0 {
			want = append(want, e.ID)
		}
	}
	if len(want) == 0 {
		return nil
	}
	b = &sqlb{}
	b.w("SELECT context_entry_id, image_data, mime_type, image_metadata FROM image_attachments WHERE context_entry_id IN ").in(want)
	b.w(" ORDER BY context_entry_id, position")
	rows, err = r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return fmt.Errorf("load images: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   string
			img  persist.Image
			meta sql.NullString
		)
		if err := rows.Scan(&id, &img.Data, &img.MimeType, &meta); err != nil {
			return fmt.Errorf("load images: %w", err)
		}
		if img.Data == nil {
			img.Data = []byte{}
		}
		if meta.Valid {
			s := meta.String
			img.Metadata = &s
		}
		if i, ok := pos[id]; ok {
			es[i].Images = append(es[i].Images, img)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load images: %w", err)
	}
	return nil
}

// prefixUpper returns the smallest string greater than every string that
// starts with p, or "" when there is none (p empty or all 0xff bytes).
func prefixUpper(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// ResolvePrefix returns up to two readable ids starting with prefix, in id
// order. The range predicate lets SQLite walk the unique id index.
func (r reader) ResolvePrefix(ctx context.Context, acc persist.Access, prefix string) ([]string, error) {
	b := &sqlb{}
	b.w("SELECT e.id FROM context_entries e WHERE e.id >= ").arg(prefix)
	if up := prefixUpper(prefix); up != "" {
		b.w(" AND e.id < ").arg(up)
	}
	b.w(" AND ")
	b.readable(acc, "e").w(" ORDER BY e.id LIMIT 2")
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: resolve prefix: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: resolve prefix: %w", err)
		}
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: resolve prefix: %w", err)
	}
	return out, nil
}

// Get returns the readable entries among ids, created_at DESC, id DESC.
func (r reader) Get(ctx context.Context, acc persist.Access, ids []string, opt persist.GetOptions) ([]persist.Entry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := &sqlb{}
	b.w("SELECT " + entryCols + " FROM context_entries e WHERE e.id IN ").in(ids).w(" AND ")
	b.readable(acc, "e").w(" ORDER BY e.created_at DESC, e.id DESC")
	return r.entries(ctx, "get entries", b.String(), b.args, opt.Images)
}

// searchSQL builds the page query of q, selecting cols.
func searchSQL(acc persist.Access, q persist.SearchQuery, cols string) (*sqlb, error) {
	b := &sqlb{}
	b.w("SELECT " + cols + " FROM context_entries e WHERE ")
	if err := b.filter(acc, q.Filter); err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = -1
	}
	b.w(" ORDER BY e.created_at DESC, e.id DESC LIMIT ").arg(limit).w(" OFFSET ").arg(max(q.Offset, 0))
	return b, nil
}

// Search returns one page of readable entries matching q, newest first.
func (r reader) Search(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	var res persist.SearchResult
	if q.MaxTextBytes > 0 && !q.Explain {
		return r.searchBySize(ctx, acc, q)
	}
	b, err := searchSQL(acc, q, entryCols)
	if err != nil {
		return res, err
	}
	if q.Explain {
		if res.Plan, err = r.plan(ctx, b); err != nil {
			return res, err
		}
	}
	res.Entries, err = r.entries(ctx, "search", b.String(), b.args, q.Images)
	return res, err
}

// searchBySize reads a page bounded by q.MaxTextBytes as well as q.Limit:
// first the ids and text sizes of the page (octet_length reads the size
// from the record header, not the text), then the entries of the prefix
// that fits, by id and still under the read predicate.
func (r reader) searchBySize(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	var res persist.SearchResult
	b, err := searchSQL(acc, q, "e.id, octet_length(e.text_content)")
	if err != nil {
		return res, err
	}
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return res, fmt.Errorf("sqlite: search sizes: %w", err)
	}
	var ids []string
	total := 0
	for rows.Next() {
		var (
			id string
			n  int
		)
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return res, fmt.Errorf("sqlite: search sizes: %w", err)
		}
		if total >= q.MaxTextBytes {
			res.Cut = true
			break
		}
		ids = append(ids, id)
		total += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("sqlite: search sizes: %w", err)
	}
	if len(ids) == 0 {
		return res, nil
	}
	eb := &sqlb{}
	eb.w("SELECT " + entryCols + " FROM context_entries e WHERE e.id IN ").in(ids).w(" AND ")
	eb.readable(acc, "e").w(" ORDER BY e.created_at DESC, e.id DESC")
	res.Entries, err = r.entries(ctx, "search", eb.String(), eb.args, q.Images)
	return res, err
}

// plan returns the EXPLAIN QUERY PLAN detail lines of b, one per line.
func (r reader) plan(ctx context.Context, b *sqlb) (string, error) {
	rows, err := r.q.QueryContext(ctx, "EXPLAIN QUERY PLAN "+b.String(), b.args...)
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

// State reports existence and access of one entry; found is true even when
// the entry is not readable (Readable is false then).
func (r reader) State(ctx context.Context, acc persist.Access, id string) (persist.State, bool, error) {
	var (
		st         persist.State
		meta       []byte
		hash       sql.NullString
		read, writ bool
	)
	b := &sqlb{}
	b.w("SELECT e.id, e.owner_id, e.version, e.metadata, e.visibility, e.content_hash, ")
	b.readable(acc, "e").w(", ")
	b.writable(acc, "e").w(" FROM context_entries e WHERE e.id = ").arg(id)
	err := r.q.QueryRowContext(ctx, b.String(), b.args...).Scan(&st.ID, &st.Owner, &st.Version,
		&meta, &st.Visibility, &hash, &read, &writ)
	if err == sql.ErrNoRows {
		return persist.State{}, false, nil
	}
	if err != nil {
		return persist.State{}, false, fmt.Errorf("sqlite: entry state: %w", err)
	}
	if meta != nil {
		st.Metadata = meta
	}
	st.ContentHash = hash.String
	st.Readable, st.Writable = read, writ
	return st, true, nil
}

// DedupCandidate returns the latest readable entry of thread and source and
// whether a readable entry of the opposite source was stored after it.
func (r reader) DedupCandidate(ctx context.Context, acc persist.Access, threadID, source string) (*persist.Entry, bool, error) {
	b := &sqlb{}
	b.w("SELECT " + entryCols + " FROM context_entries e WHERE e.thread_id = ").arg(threadID)
	b.w(" AND e.source = ").arg(source).w(" AND ")
	b.readable(acc, "e").w(" ORDER BY e.id DESC LIMIT 1")
	es, err := r.entries(ctx, "dedup candidate", b.String(), b.args, false)
	if err != nil || len(es) == 0 {
		return nil, false, err
	}
	cand := &es[0]
	b = &sqlb{}
	b.w("SELECT EXISTS (SELECT 1 FROM context_entries e WHERE e.thread_id = ").arg(threadID)
	b.w(" AND e.source = ").arg(sqlval.Opposite(source)).w(" AND e.id > ").arg(cand.ID).w(" AND ")
	b.readable(acc, "e").w(")")
	var inter bool
	if err := r.q.QueryRowContext(ctx, b.String(), b.args...).Scan(&inter); err != nil {
		return nil, false, fmt.Errorf("sqlite: dedup interleave check: %w", err)
	}
	return cand, inter, nil
}

// MatchDelete returns the readable entries matching the AND of c, in id
// order.
func (r reader) MatchDelete(ctx context.Context, acc persist.Access, c persist.DeleteCriteria) ([]persist.Ref, error) {
	b := &sqlb{}
	b.w("SELECT e.id, e.owner_id FROM context_entries e WHERE ")
	b.readable(acc, "e")
	if c.IDs != nil {
		if len(c.IDs) == 0 {
			b.w(" AND 0")
		} else {
			b.w(" AND e.id IN ").in(c.IDs)
		}
	}
	if c.ThreadIDs != nil {
		if len(c.ThreadIDs) == 0 {
			b.w(" AND 0")
		} else {
			b.w(" AND e.thread_id IN ").in(c.ThreadIDs)
		}
	}
	if c.Source != "" {
		b.w(" AND e.source = ").arg(c.Source)
	}
	if c.CreatedBefore != nil {
		b.w(" AND e.created_at < ").arg(microsCeil(*c.CreatedBefore))
	}
	b.w(" ORDER BY e.id")
	rows, err := r.q.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: match delete: %w", err)
	}
	defer rows.Close()
	var out []persist.Ref
	for rows.Next() {
		var ref persist.Ref
		if err := rows.Scan(&ref.ID, &ref.Owner); err != nil {
			return nil, fmt.Errorf("sqlite: match delete: %w", err)
		}
		out = append(out, ref)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: match delete: %w", err)
	}
	return out, nil
}
