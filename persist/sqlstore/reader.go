package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// Reader is the part of persist.Reader that reads the same on both SQL
// stores, on a querier (the store's reader pool or a transaction). Every
// method applies the READ predicate of the Access it is given.
type Reader struct {
	Q Querier
	D Dialect
}

// Entries runs b (selecting the dialect's EntryCols) and hydrates the
// result with tags, image counts and (when images) image rows: one extra
// statement for tags and counts unless the dialect selects them with the
// entries (InlineTags), and one for images.
func (r Reader) Entries(ctx context.Context, what string, b *Builder, images bool) ([]persist.Entry, error) {
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, r.D.Wrap(what, err)
	}
	out, err := r.D.ScanEntries(rows)
	rows.Close()
	if err != nil {
		return nil, r.D.Wrap(what, err)
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap(what, err)
	}
	if err := r.hydrate(ctx, out, images); err != nil {
		return nil, r.D.Wrap(what, err)
	}
	return out, nil
}

// hydrate loads the tags and image counts of es, and the images when asked.
func (r Reader) hydrate(ctx context.Context, es []persist.Entry, images bool) error {
	if len(es) == 0 {
		return nil
	}
	if r.D.InlineTags() {
		if images {
			return r.images(ctx, es, positions(es))
		}
		return nil
	}
	ids := make([]string, len(es))
	pos := make(map[string]int, len(es))
	for i := range es {
		ids[i] = es[i].ID
		pos[es[i].ID] = i
	}
	b := NewBuilder(r.D)
	b.W("SELECT context_entry_id, tag, 0 FROM tags WHERE ").IsIn("context_entry_id", ids)
	b.W(" UNION ALL SELECT context_entry_id, NULL, count(*) FROM image_attachments WHERE ").IsIn("context_entry_id", ids)
	b.W(" GROUP BY context_entry_id")
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return fmt.Errorf("load tags: %w", err)
	}
	// The scan targets live across rows: one allocation per statement,
	// not three per row (a Scan through the Rows interface makes them
	// escape).
	var (
		id  string
		tag sql.NullString
		n   int
	)
	dest := []any{&id, &tag, &n}
	for rows.Next() {
		tag = sql.NullString{}
		if err := rows.Scan(dest...); err != nil {
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
	if images {
		return r.images(ctx, es, pos)
	}
	return nil
}

// positions maps the ids of es to their index.
func positions(es []persist.Entry) map[string]int {
	pos := make(map[string]int, len(es))
	for i := range es {
		pos[es[i].ID] = i
	}
	return pos
}

// images loads the image rows of the entries of es that have any.
func (r Reader) images(ctx context.Context, es []persist.Entry, pos map[string]int) error {
	var want []string
	for _, e := range es {
		if e.ImageCount > 0 {
			want = append(want, e.ID)
		}
	}
	if len(want) == 0 {
		return nil
	}
	b := NewBuilder(r.D)
	b.W("SELECT context_entry_id, image_data, mime_type, image_metadata FROM image_attachments WHERE ").IsIn("context_entry_id", want)
	b.W(" ORDER BY context_entry_id, position")
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return fmt.Errorf("load images: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   string
			img  persist.Image
			meta Text
		)
		if err := rows.Scan(&id, &img.Data, &img.MimeType, &meta); err != nil {
			return fmt.Errorf("load images: %w", err)
		}
		if img.Data == nil {
			img.Data = []byte{}
		}
		if meta.Valid {
			s := meta.S
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

// Strings runs b and collects its one text column.
func (r Reader) Strings(ctx context.Context, what string, b *Builder) ([]string, error) {
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, r.D.Wrap(what, err)
	}
	defer rows.Close()
	var out []string
	var s string
	dest := []any{&s}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, r.D.Wrap(what, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap(what, err)
	}
	return out, nil
}

// prefixUpper returns the smallest string greater than every string that
// starts with p whose bumped byte stays at most top, or "" when there is
// none (p empty or made of top bytes only).
func prefixUpper(p string, top byte) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < top {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// ResolvePrefix returns up to two readable ids starting with prefix, in id
// order. The range predicate lets the store walk its id index.
func (r Reader) ResolvePrefix(ctx context.Context, acc persist.Access, prefix string) ([]string, error) {
	b := NewBuilder(r.D)
	b.W("SELECT e.id FROM context_entries e WHERE e.id >= ").Typed(prefix, "::text")
	if up := prefixUpper(prefix, r.D.PrefixMax()); up != "" {
		b.W(" AND e.id < ").Typed(up, "::text")
	}
	b.W(" AND ")
	b.Readable(acc, "e").W(" ORDER BY e.id LIMIT 2")
	ids, err := r.Strings(ctx, "resolve prefix", b)
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

// Get returns the readable entries among ids, created_at DESC, id DESC.
func (r Reader) Get(ctx context.Context, acc persist.Access, ids []string, opt persist.GetOptions) ([]persist.Entry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return r.Entries(ctx, "get entries", r.byID(acc, ids), opt.Images)
}

// byID selects the entries among ids under the READ predicate, newest
// first.
func (r Reader) byID(acc persist.Access, ids []string) *Builder {
	b := NewBuilder(r.D)
	b.W("SELECT "+r.D.EntryCols()+" FROM context_entries e WHERE ").IsIn("e.id", ids).W(" AND ")
	b.Readable(acc, "e").W(" ORDER BY e.created_at DESC, e.id DESC")
	return b
}

// Search returns one page of readable entries matching q, newest first.
func (r Reader) Search(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	var res persist.SearchResult
	if q.MaxTextBytes > 0 && !q.Explain {
		return r.searchBySize(ctx, acc, q)
	}
	b, err := r.searchSQL(acc, q, r.D.EntryCols())
	if err != nil {
		return res, err
	}
	if q.Explain {
		if res.Plan, err = r.D.Plan(ctx, r.Q, b); err != nil {
			return res, err
		}
	}
	res.Entries, err = r.Entries(ctx, "search", b, q.Images)
	return res, err
}

// searchSQL is SearchSQL with a refused condition named as the store's.
func (r Reader) searchSQL(acc persist.Access, q persist.SearchQuery, cols string) (*Builder, error) {
	b, err := SearchSQL(r.D, acc, q, cols)
	if err != nil {
		return nil, r.D.Errf("%w", err)
	}
	return b, nil
}

// searchBySize reads a page bounded by q.MaxTextBytes as well as q.Limit:
// first the ids and text sizes of the page (on SQLite octet_length reads
// the size from the record header, not the text), then the entries of the
// prefix that fits, by id and still under the read predicate.
func (r Reader) searchBySize(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	var res persist.SearchResult
	b, err := r.searchSQL(acc, q, "e.id, octet_length(e.text_content)")
	if err != nil {
		return res, err
	}
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return res, r.D.Wrap("search sizes", err)
	}
	var ids []string
	total := 0
	var (
		id string
		n  int
	)
	dest := []any{&id, &n}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return res, r.D.Wrap("search sizes", err)
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
		return res, r.D.Wrap("search sizes", err)
	}
	if len(ids) == 0 {
		return res, nil
	}
	res.Entries, err = r.Entries(ctx, "search", r.byID(acc, ids), q.Images)
	return res, err
}

// State reports existence and access of one entry; found is true even when
// the entry is not readable (Readable is false then).
func (r Reader) State(ctx context.Context, acc persist.Access, id string) (persist.State, bool, error) {
	var (
		st         persist.State
		meta, hash Text
	)
	b := NewBuilder(r.D)
	b.W("SELECT e.id, e.owner_id, e.version, e." + r.D.MetadataCol() + ", e.visibility, e.content_hash, ")
	b.Readable(acc, "e").W(", ")
	b.Writable(acc, "e").W(" FROM context_entries e WHERE e.id = ").Typed(id, "::text")
	err := r.Q.QueryRow(ctx, b.String(), b.Args()...).Scan(&st.ID, &st.Owner, &st.Version,
		&meta, &st.Visibility, &hash, &st.Readable, &st.Writable)
	if errors.Is(err, ErrNoRows) {
		return persist.State{}, false, nil
	}
	if err != nil {
		return persist.State{}, false, r.D.Wrap("entry state", err)
	}
	if meta.Valid {
		st.Metadata = []byte(meta.S)
	}
	st.ContentHash = hash.S
	return st, true, nil
}

// DedupCandidate returns the latest readable entry of thread and source and
// whether a readable entry of the opposite source was stored after it.
func (r Reader) DedupCandidate(ctx context.Context, acc persist.Access, threadID, source string) (*persist.Entry, bool, error) {
	b := NewBuilder(r.D)
	b.W("SELECT "+r.D.EntryCols()+" FROM context_entries e WHERE e.thread_id = ").Typed(threadID, "::text")
	b.W(" AND e.source = ").Typed(source, "::text").W(" AND ")
	b.Readable(acc, "e").W(" ORDER BY e.id DESC LIMIT 1")
	es, err := r.Entries(ctx, "dedup candidate", b, false)
	if err != nil || len(es) == 0 {
		return nil, false, err
	}
	cand := &es[0]
	b = NewBuilder(r.D)
	b.W("SELECT EXISTS (SELECT 1 FROM context_entries e WHERE e.thread_id = ").Typed(threadID, "::text")
	b.W(" AND e.source = ").Typed(sqlval.Opposite(source), "::text").W(" AND e.id > ").Typed(cand.ID, "::text").W(" AND ")
	b.Readable(acc, "e").W(")")
	var inter bool
	if err := r.Q.QueryRow(ctx, b.String(), b.Args()...).Scan(&inter); err != nil {
		return nil, false, r.D.Wrap("dedup interleave check", err)
	}
	return cand, inter, nil
}

// MatchDelete returns the readable entries matching the AND of c, in id
// order.
func (r Reader) MatchDelete(ctx context.Context, acc persist.Access, c persist.DeleteCriteria) ([]persist.Ref, error) {
	b := NewBuilder(r.D)
	b.W("SELECT e.id, e.owner_id FROM context_entries e WHERE ")
	b.Readable(acc, "e")
	if c.IDs != nil {
		b.W(" AND ").IsIn("e.id", c.IDs)
	}
	if c.ThreadIDs != nil {
		b.W(" AND ").IsIn("e.thread_id", c.ThreadIDs)
	}
	if c.Source != "" {
		b.W(" AND e.source = ").Typed(c.Source, "::text")
	}
	if c.CreatedBefore != nil {
		b.W(" AND e.created_at < ").Arg(r.D.TimeCeil(*c.CreatedBefore))
	}
	b.W(" ORDER BY e.id")
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, r.D.Wrap("match delete", err)
	}
	defer rows.Close()
	var out []persist.Ref
	var ref persist.Ref
	dest := []any{&ref.ID, &ref.Owner}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, r.D.Wrap("match delete", err)
		}
		out = append(out, ref)
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap("match delete", err)
	}
	return out, nil
}

// Texts returns the text of the readable entries among ids, by id: what a
// reranker reads of a ranked search's candidates, without the tags,
// metadata and images a result page needs.
func (r Reader) Texts(ctx context.Context, acc persist.Access, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	b := NewBuilder(r.D)
	b.W("SELECT e.id, e.text_content FROM context_entries e WHERE ").IsIn("e.id", ids).W(" AND ")
	b.Readable(acc, "e")
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, r.D.Wrap("read texts", err)
	}
	defer rows.Close()
	var id, text string
	dest := []any{&id, &text}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, r.D.Wrap("read texts", err)
		}
		out[id] = text
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap("read texts", err)
	}
	return out, nil
}

// Grants lists every grant of entry id in code-point order (SQLite's
// BINARY collation compares UTF-8 bytes; PostgreSQL's columns are
// COLLATE "C"), the order list_context_grants documents.
func (r Reader) Grants(ctx context.Context, id string) ([]persist.Grant, error) {
	b := NewBuilder(r.D)
	b.W("SELECT principal_type, principal_id, permission, granted_by, created_at FROM context_entry_grants WHERE context_entry_id = ").Arg(id)
	b.W(" ORDER BY principal_type, principal_id, permission")
	rows, err := r.Q.Query(ctx, b.String(), b.Args()...)
	if err != nil {
		return nil, r.D.Wrap("list grants", err)
	}
	defer rows.Close()
	out := []persist.Grant{}
	for rows.Next() {
		var (
			g  persist.Grant
			at Time
		)
		if err := rows.Scan(&g.PrincipalType, &g.PrincipalID, &g.Permission, &g.GrantedBy, &at); err != nil {
			return nil, r.D.Wrap("list grants", err)
		}
		g.CreatedAt = at.T
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, r.D.Wrap("list grants", err)
	}
	return out, nil
}
