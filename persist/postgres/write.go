package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
)

// tx is one write transaction: the reads of a reader on the same
// transaction plus the writes, each appending to the change log.
type tx struct {
	reader
	tx pgx.Tx
	// lastSeq is the highest change-log seq written by this transaction;
	// 0 until the first log row, when the head is read (under the write
	// lock, so no other writer can take the next seq).
	lastSeq int64
	seqRead bool
}

var _ persist.Tx = (*tx)(nil)

// nullString maps "" to SQL NULL.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// metadataArg maps absent metadata (nil or a JSON null) to SQL NULL.
func metadataArg(m json.RawMessage) *string {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	s := string(m)
	return &s
}

// nextSeqs reserves n change-log seqs and returns the first.
func (t *tx) nextSeqs(ctx context.Context, n int) (int64, error) {
	if !t.seqRead {
		if err := t.tx.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM change_log`).Scan(&t.lastSeq); err != nil {
			return 0, wrap("append change log", err)
		}
		t.seqRead = true
	}
	first := t.lastSeq + 1
	t.lastSeq += int64(n)
	return first, nil
}

func (t *tx) log(ctx context.Context, id, op string) error {
	seq, err := t.nextSeqs(ctx, 1)
	if err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO change_log (seq, entry_id, op, at) VALUES ($1, $2, $3, now())`, seq, id, op); err != nil {
		return wrap("append change log", err)
	}
	return nil
}

// Insert stores a new entry with its tags, images and grants. Zero
// CreatedAt/UpdatedAt are set to now (and written back to e).
func (t *tx) Insert(ctx context.Context, e *persist.Entry, grants []persist.Grant) error {
	if e == nil {
		return errf("insert: nil entry")
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = e.CreatedAt
	}
	created := ts(e.CreatedAt)
	if _, err := t.tx.Exec(ctx, `INSERT INTO context_entries
		(id, thread_id, source, content_type, text_content, metadata_text, summary, content_hash,
		 version, owner_id, visibility, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		e.ID, e.ThreadID, e.Source, e.ContentType, e.Text, metadataArg(e.Metadata),
		nullString(e.Summary), nullString(e.ContentHash), e.Version, e.Owner, e.Visibility,
		created, ts(e.UpdatedAt)); err != nil {
		return wrap("insert entry", err)
	}
	if err := t.insertTags(ctx, e.ID, e.Tags); err != nil {
		return err
	}
	if err := t.insertImages(ctx, e.ID, e.Images, created); err != nil {
		return err
	}
	for _, g := range grants {
		at := created
		if !g.CreatedAt.IsZero() {
			at = ts(g.CreatedAt)
		}
		if _, err := t.tx.Exec(ctx, sqlInsertGrant, e.ID, g.PrincipalType, g.PrincipalID, g.Permission, g.GrantedBy, at); err != nil {
			return wrap("insert grant", err)
		}
	}
	return t.log(ctx, e.ID, persist.OpInsert)
}

const sqlInsertGrant = `INSERT INTO context_entry_grants
	(context_entry_id, principal_type, principal_id, permission, granted_by, created_at)
	VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`

// insertTags stores tags in one statement (unnest of one array parameter).
func (t *tx) insertTags(ctx context.Context, id string, tags []string) error {
	if len(tags) == 0 {
		return nil
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO tags (context_entry_id, tag)
		SELECT $1, u.tag FROM unnest($2::text[]) WITH ORDINALITY AS u(tag, o) ORDER BY u.o
		ON CONFLICT DO NOTHING`, id, tags); err != nil {
		return wrap("insert tags", err)
	}
	return nil
}

func (t *tx) insertImages(ctx context.Context, id string, imgs []persist.Image, at time.Time) error {
	for i, img := range imgs {
		data := img.Data
		if data == nil {
			data = []byte{}
		}
		if _, err := t.tx.Exec(ctx, `INSERT INTO image_attachments
			(context_entry_id, image_data, mime_type, image_metadata, position, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, id, data, img.MimeType, img.Metadata, i, at); err != nil {
			return wrap("insert image", err)
		}
	}
	return nil
}

// Update applies u to entry id when its version (and hash) match and
// reports whether a row was changed. Tags and images are replaced when set;
// with Images set and ContentType nil, content_type follows the images.
func (t *tx) Update(ctx context.Context, id string, u persist.Update) (bool, error) {
	updated := u.UpdatedAt
	if updated.IsZero() {
		updated = time.Now().UTC()
	}
	b := &sqlb{}
	b.w("UPDATE context_entries SET updated_at = ").arg(ts(updated))
	if u.Text != nil {
		b.w(", text_content = ").arg(*u.Text)
	}
	if u.ContentHash != nil {
		b.w(", content_hash = ").typed(nullString(*u.ContentHash), "::text")
	}
	if u.Summary != nil {
		b.w(", summary = ").typed(nullString(*u.Summary), "::text")
	}
	if u.Metadata != nil {
		b.w(", metadata_text = ").typed(metadataArg(*u.Metadata), "::text")
	}
	if u.Visibility != nil {
		b.w(", visibility = ").arg(*u.Visibility)
	}
	switch {
	case u.ContentType != nil:
		b.w(", content_type = ").arg(*u.ContentType)
	case u.Images != nil:
		ct := "text"
		if len(*u.Images) > 0 {
			ct = "multimodal"
		}
		b.w(", content_type = ").arg(ct)
	}
	if u.BumpVersion {
		b.w(", version = version + 1")
	}
	b.w(" WHERE id = ").typed(id, "::text").w(" AND version = ").typed(u.ExpectVersion, "::bigint")
	if u.ExpectHash != nil {
		b.w(" AND content_hash IS NOT DISTINCT FROM ").typed(nullString(*u.ExpectHash), "::text")
	}
	tag, err := t.tx.Exec(ctx, b.String(), b.args...)
	if err != nil {
		return false, wrap("update entry", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if u.Tags != nil {
		if _, err := t.tx.Exec(ctx, `DELETE FROM tags WHERE context_entry_id = $1`, id); err != nil {
			return false, wrap("replace tags", err)
		}
		if err := t.insertTags(ctx, id, *u.Tags); err != nil {
			return false, err
		}
	}
	if u.Images != nil {
		if _, err := t.tx.Exec(ctx, `DELETE FROM image_attachments WHERE context_entry_id = $1`, id); err != nil {
			return false, wrap("replace images", err)
		}
		if err := t.insertImages(ctx, id, *u.Images, ts(updated)); err != nil {
			return false, err
		}
	}
	if err := t.log(ctx, id, persist.OpUpdate); err != nil {
		return false, err
	}
	return true, nil
}

// Delete removes the entries and everything attached to them (foreign keys
// cascade), logging one delete per removed entry in id order, and returns
// how many it removed.
func (t *tx) Delete(ctx context.Context, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	rows, err := t.tx.Query(ctx, `DELETE FROM context_entries WHERE id = ANY($1::text[]) RETURNING id`, ids)
	if err != nil {
		return 0, wrap("delete entries", err)
	}
	gone, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, wrap("delete entries", err)
	}
	if len(gone) == 0 {
		return 0, nil
	}
	sort.Strings(gone)
	first, err := t.nextSeqs(ctx, len(gone))
	if err != nil {
		return 0, err
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO change_log (seq, entry_id, op, at)
		SELECT $1 + u.o - 1, u.id, $2, now() FROM unnest($3::text[]) WITH ORDINALITY AS u(id, o)`,
		first, persist.OpDelete, gone); err != nil {
		return 0, wrap("append change log", err)
	}
	return len(gone), nil
}

// Grant adds g to entry id; an identical grant already present is kept as
// it is (created false) and logs nothing. The entry row is not touched.
func (t *tx) Grant(ctx context.Context, id string, g persist.Grant) (bool, error) {
	tag, err := t.tx.Exec(ctx, sqlInsertGrant, id, g.PrincipalType, g.PrincipalID, g.Permission, g.GrantedBy, ts(g.CreatedAt))
	if err != nil {
		return false, wrap("insert grant", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	return true, t.log(ctx, id, persist.OpGrant)
}

// Ungrant removes one grant of entry id and logs the change when a row
// went away.
func (t *tx) Ungrant(ctx context.Context, id, principalType, principalID, permission string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM context_entry_grants
		WHERE context_entry_id = $1 AND principal_type = $2 AND principal_id = $3 AND permission = $4`,
		id, principalType, principalID, permission)
	if err != nil {
		return false, wrap("delete grant", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	return true, t.log(ctx, id, persist.OpGrant)
}
