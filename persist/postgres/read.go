package postgres

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
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

// reader implements persist.Reader on a querier. Every method applies the
// READ predicate of the Access it is given.
type reader struct {
	q      querier
	pool   txBeginner // set on the Store's reader (for snapshot reads); nil in a Tx
	schema string
}

var _ persist.Reader = reader{}

// entryCols are the columns scanEntry reads, on the alias e.
const entryCols = `e.id, e.thread_id, e.source, e.content_type, e.text_content, e.metadata_text,
	e.summary, e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at`

// accessCols are entryCols without the text and summary: what an index's
// access catalog keeps (the metadata answers search_context's filters).
const accessCols = `e.id, e.thread_id, e.source, e.content_type, '' AS text_content, e.metadata_text,
	NULL::text AS summary, e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at`

func scanEntry(row pgx.CollectableRow) (persist.Entry, error) {
	var (
		e                persist.Entry
		meta             *string
		summary, hash    *string
		created, updated time.Time
	)
	if err := row.Scan(&e.ID, &e.ThreadID, &e.Source, &e.ContentType, &e.Text, &meta,
		&summary, &hash, &e.Version, &e.Owner, &e.Visibility, &created, &updated); err != nil {
		return e, err
	}
	if meta != nil {
		e.Metadata = []byte(*meta)
	}
	if summary != nil {
		e.Summary = *summary
	}
	if hash != nil {
		e.ContentHash = *hash
	}
	e.CreatedAt, e.UpdatedAt = created.UTC(), updated.UTC()
	e.Tags = []string{}
	return e, nil
}

// entries runs b (selecting entryCols) and hydrates the result with tags,
// image counts and (when images) image rows.
func (r reader) entries(ctx context.Context, what string, b *sqlb, images bool) ([]persist.Entry, error) {
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return nil, wrap(what, err)
	}
	out, err := pgx.CollectRows(rows, scanEntry)
	if err != nil {
		return nil, wrap(what, err)
	}
	if err := r.hydrate(ctx, out, images); err != nil {
		return nil, wrap(what, err)
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
	rows, err := r.q.Query(ctx, `SELECT context_entry_id, tag, 0 FROM tags WHERE context_entry_id = ANY($1::text[])
		UNION ALL SELECT context_entry_id, NULL, count(*) FROM image_attachments WHERE context_entry_id = ANY($1::text[])
		GROUP BY context_entry_id`, ids)
	if err != nil {
		return err
	}
	var (
		id  string
		tag *string
		n   int
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &tag, &n}, func() error {
		if i, ok := pos[id]; ok {
			if tag != nil {
				es[i].Tags = append(es[i].Tags, *tag)
			} else {
				es[i].ImageCount = n
			}
		}
		return nil
	})
	if err != nil {
		return err
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
	rows, err = r.q.Query(ctx, `SELECT context_entry_id, image_data, mime_type, image_metadata FROM image_attachments
		WHERE context_entry_id = ANY($1::text[]) ORDER BY context_entry_id, position`, want)
	if err != nil {
		return err
	}
	var (
		data []byte
		mime string
		meta *string
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &data, &mime, &meta}, func() error {
		img := persist.Image{Data: append([]byte{}, data...), MimeType: mime}
		if meta != nil {
			m := *meta
			img.Metadata = &m
		}
		if i, ok := pos[id]; ok {
			es[i].Images = append(es[i].Images, img)
		}
		return nil
	})
	return err
}

// strings1 runs b and collects its one text column.
func (r reader) strings1(ctx context.Context, what string, b *sqlb) ([]string, error) {
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return nil, wrap(what, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, wrap(what, err)
	}
	return out, nil
}

// ResolvePrefix returns up to two readable ids starting with prefix, in id
// order. The range predicate walks the primary key (COLLATE "C").
func (r reader) ResolvePrefix(ctx context.Context, acc persist.Access, prefix string) ([]string, error) {
	b := &sqlb{}
	b.w("SELECT e.id FROM context_entries e WHERE e.id >= ").typed(prefix, "::text")
	if up := prefixUpper(prefix); up != "" {
		b.w(" AND e.id < ").typed(up, "::text")
	}
	b.w(" AND ")
	b.readable(acc, "e").w(" ORDER BY e.id LIMIT 2")
	ids, err := r.strings1(ctx, "resolve prefix", b)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	return out, nil
}

// prefixUpper returns the smallest string greater than every string that
// starts with p, or "" when there is none. Ids are hex, so the bumped byte
// stays valid UTF-8 for every prefix that can match.
func prefixUpper(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0x7f {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// Get returns the readable entries among ids, created_at DESC, id DESC.
func (r reader) Get(ctx context.Context, acc persist.Access, ids []string, opt persist.GetOptions) ([]persist.Entry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := &sqlb{}
	b.w("SELECT " + entryCols + " FROM context_entries e WHERE e.id").anyOf(ids).w(" AND ")
	b.readable(acc, "e").w(" ORDER BY e.created_at DESC, e.id DESC")
	return r.entries(ctx, "get entries", b, opt.Images)
}

// searchSQL builds the page query of q, selecting cols.
func searchSQL(acc persist.Access, q persist.SearchQuery, cols string) (*sqlb, error) {
	b := &sqlb{}
	b.w("SELECT " + cols + " FROM context_entries e WHERE ")
	if err := b.filter(acc, q.Filter); err != nil {
		return nil, err
	}
	var limit any
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	b.w(" ORDER BY e.created_at DESC, e.id DESC LIMIT ").typed(limit, "::bigint").w(" OFFSET ").typed(int64(max(q.Offset, 0)), "::bigint")
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
	res.Entries, err = r.entries(ctx, "search", b, q.Images)
	return res, err
}

// searchBySize reads a page bounded by q.MaxTextBytes as well as q.Limit:
// first the ids and text sizes of the page, then the entries of the
// prefix that fits, by id and still under the read predicate.
func (r reader) searchBySize(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	var res persist.SearchResult
	b, err := searchSQL(acc, q, "e.id, octet_length(e.text_content)")
	if err != nil {
		return res, err
	}
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return res, wrap("search sizes", err)
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
			return res, wrap("search sizes", err)
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
		return res, wrap("search sizes", err)
	}
	if len(ids) == 0 {
		return res, nil
	}
	eb := &sqlb{}
	eb.w("SELECT " + entryCols + " FROM context_entries e WHERE e.id").anyOf(ids).w(" AND ")
	eb.readable(acc, "e").w(" ORDER BY e.created_at DESC, e.id DESC")
	res.Entries, err = r.entries(ctx, "search", eb, q.Images)
	return res, err
}

// plan returns the EXPLAIN output of b, one line per plan line.
func (r reader) plan(ctx context.Context, b *sqlb) (string, error) {
	p := &sqlb{args: b.args}
	p.w("EXPLAIN " + b.String())
	lines, err := r.strings1(ctx, "explain search", p)
	if err != nil {
		return "", err
	}
	return strings.Join(lines, "\n"), nil
}

// State reports existence and access of one entry; found is true even when
// the entry is not readable (Readable is false then).
func (r reader) State(ctx context.Context, acc persist.Access, id string) (persist.State, bool, error) {
	var (
		st         persist.State
		meta, hash *string
	)
	b := &sqlb{}
	b.w("SELECT e.id, e.owner_id, e.version, e.metadata_text, e.visibility, e.content_hash, ")
	b.readable(acc, "e").w(", ")
	b.writable(acc, "e").w(" FROM context_entries e WHERE e.id = ").typed(id, "::text")
	err := r.q.QueryRow(ctx, b.String(), b.args...).Scan(&st.ID, &st.Owner, &st.Version,
		&meta, &st.Visibility, &hash, &st.Readable, &st.Writable)
	if errors.Is(err, pgx.ErrNoRows) {
		return persist.State{}, false, nil
	}
	if err != nil {
		return persist.State{}, false, wrap("entry state", err)
	}
	if meta != nil {
		st.Metadata = []byte(*meta)
	}
	if hash != nil {
		st.ContentHash = *hash
	}
	return st, true, nil
}

// DedupCandidate returns the latest readable entry of thread and source and
// whether a readable entry of the opposite source was stored after it.
func (r reader) DedupCandidate(ctx context.Context, acc persist.Access, threadID, source string) (*persist.Entry, bool, error) {
	b := &sqlb{}
	b.w("SELECT "+entryCols+" FROM context_entries e WHERE e.thread_id = ").typed(threadID, "::text")
	b.w(" AND e.source = ").typed(source, "::text").w(" AND ")
	b.readable(acc, "e").w(" ORDER BY e.id DESC LIMIT 1")
	es, err := r.entries(ctx, "dedup candidate", b, false)
	if err != nil || len(es) == 0 {
		return nil, false, err
	}
	cand := &es[0]
	b = &sqlb{}
	b.w("SELECT EXISTS (SELECT 1 FROM context_entries e WHERE e.thread_id = ").typed(threadID, "::text")
	b.w(" AND e.source = ").typed(sqlval.Opposite(source), "::text").w(" AND e.id > ").typed(cand.ID, "::text").w(" AND ")
	b.readable(acc, "e").w(")")
	var inter bool
	if err := r.q.QueryRow(ctx, b.String(), b.args...).Scan(&inter); err != nil {
		return nil, false, wrap("dedup interleave check", err)
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
		b.w(" AND e.id").anyOf(c.IDs)
	}
	if c.ThreadIDs != nil {
		b.w(" AND e.thread_id").anyOf(c.ThreadIDs)
	}
	if c.Source != "" {
		b.w(" AND e.source = ").typed(c.Source, "::text")
	}
	if c.CreatedBefore != nil {
		b.w(" AND e.created_at < ").arg(tsCeil(*c.CreatedBefore))
	}
	b.w(" ORDER BY e.id")
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return nil, wrap("match delete", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (persist.Ref, error) {
		var ref persist.Ref
		err := row.Scan(&ref.ID, &ref.Owner)
		return ref, err
	})
	if err != nil {
		return nil, wrap("match delete", err)
	}
	return out, nil
}

// Texts returns the text of the readable entries among ids, by id.
func (r reader) Texts(ctx context.Context, acc persist.Access, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	b := &sqlb{}
	b.w("SELECT e.id, e.text_content FROM context_entries e WHERE e.id").anyOf(ids).w(" AND ")
	b.readable(acc, "e")
	rows, err := r.q.Query(ctx, b.String(), b.args...)
	if err != nil {
		return nil, wrap("read texts", err)
	}
	var id, text string
	if _, err := pgx.ForEachRow(rows, []any{&id, &text}, func() error { out[id] = text; return nil }); err != nil {
		return nil, wrap("read texts", err)
	}
	return out, nil
}

// Grants lists every grant of entry id in code-point order (COLLATE "C").
func (r reader) Grants(ctx context.Context, id string) ([]persist.Grant, error) {
	rows, err := r.q.Query(ctx, `SELECT principal_type, principal_id, permission, granted_by, created_at
		FROM context_entry_grants WHERE context_entry_id = $1
		ORDER BY principal_type, principal_id, permission`, id)
	if err != nil {
		return nil, wrap("list grants", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (persist.Grant, error) {
		var g persist.Grant
		err := row.Scan(&g.PrincipalType, &g.PrincipalID, &g.Permission, &g.GrantedBy, &g.CreatedAt)
		g.CreatedAt = g.CreatedAt.UTC()
		return g, err
	})
	if err != nil {
		return nil, wrap("list grants", err)
	}
	if out == nil {
		out = []persist.Grant{}
	}
	return out, nil
}
