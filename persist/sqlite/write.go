package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/contextd/contextd/persist"
)

// tx is one write transaction: the reads of a reader on the same SQL
// transaction plus the writes, each appending to the change log.
type tx struct {
	reader
	tx      *sql.Tx
	fk      bool // foreign keys on: children are removed by ON DELETE CASCADE
	stmts   *stmtCache
	lastSeq int64 // highest change-log seq written by this transaction
}

// nullString maps "" to SQL NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// metadataArg maps absent metadata (nil or a JSON null) to SQL NULL.
func metadataArg(m json.RawMessage) any {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return string(m)
}

func (t *tx) log(ctx context.Context, id, op string) error {
	res, err := t.exec(ctx, sqlInsertLog,
		id, op, time.Now().UnixMicro())
	if err != nil {
		return fmt.Errorf("sqlite: append change log: %w", err)
	}
	return t.noteSeq(res)
}

// noteSeq records the seq of the last change-log row res inserted.
func (t *tx) noteSeq(res sql.Result) error {
	seq, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("sqlite: append change log: %w", err)
	}
	t.lastSeq = max(t.lastSeq, seq)
	return nil
}

// Insert stores a new entry with its tags, images and grants. Zero
// CreatedAt/UpdatedAt are set to now (and written back to e).
func (t *tx) Insert(ctx context.Context, e *persist.Entry, grants []persist.Grant) error {
	if e == nil {
		return errors.New("sqlite: insert: nil entry")
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = e.CreatedAt
	}
	created := micros(e.CreatedAt)
	if _, err := t.exec(ctx, sqlInsertEntry,
		e.ID, e.ThreadID, e.Source, e.ContentType, e.Text, metadataArg(e.Metadata),
		nullString(e.Summary), nullString(e.ContentHash), e.Version, e.Owner, e.Visibility,
		created, micros(e.UpdatedAt)); err != nil {
		return fmt.Errorf("sqlite: insert entry: %w", err)
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
			at = micros(g.CreatedAt)
		}
		if _, err := t.exec(ctx, sqlInsertGrant,
			e.ID, g.PrincipalType, g.PrincipalID, g.Permission, g.GrantedBy, at); err != nil {
			return fmt.Errorf("sqlite: insert grant: %w", err)
		}
	}
	return t.log(ctx, e.ID, persist.OpInsert)
}

func (t *tx) insertTags(ctx context.Context, id string, tags []string) error {
	if len(tags) == 0 {
		return nil
	}
	for _, tag := range tags {
		if _, err := t.exec(ctx, sqlInsertTag, id, tag); err != nil {
			return fmt.Errorf("sqlite: insert tags: %w", err)
		}
	}
	return nil
}

func (t *tx) insertImages(ctx context.Context, id string, imgs []persist.Image, at int64) error {
	for i, img := range imgs {
		var meta any
		if img.Metadata != nil {
			meta = *img.Metadata
		}
		data := img.Data
		if data == nil {
			data = []byte{}
		}
		if _, err := t.exec(ctx, sqlInsertImage, id, data, img.MimeType, meta, i, at); err != nil {
			return fmt.Errorf("sqlite: insert image %d: %w", i, err)
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
	b.w("UPDATE context_entries SET updated_at = ").arg(micros(updated))
	if u.Text != nil {
		b.w(", text_content = ").arg(*u.Text)
	}
	if u.ContentHash != nil {
		b.w(", content_hash = ").arg(nullString(*u.ContentHash))
	}
	if u.Summary != nil {
		b.w(", summary = ").arg(nullString(*u.Summary))
	}
	if u.Metadata != nil {
		b.w(", metadata = ").arg(metadataArg(*u.Metadata))
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
	b.w(" WHERE id = ").arg(id).w(" AND version = ").arg(u.ExpectVersion)
	if u.ExpectHash != nil {
		b.w(" AND content_hash IS ").arg(nullString(*u.ExpectHash))
	}
	res, err := t.tx.ExecContext(ctx, b.String(), b.args...)
	if err != nil {
		return false, fmt.Errorf("sqlite: update entry: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: update entry: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	if u.Tags != nil {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM tags WHERE context_entry_id = ?`, id); err != nil {
			return false, fmt.Errorf("sqlite: replace tags: %w", err)
		}
		if err := t.insertTags(ctx, id, *u.Tags); err != nil {
			return false, err
		}
	}
	if u.Images != nil {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM image_attachments WHERE context_entry_id = ?`, id); err != nil {
			return false, fmt.Errorf("sqlite: replace images: %w", err)
		}
		if err := t.insertImages(ctx, id, *u.Images, micros(updated)); err != nil {
			return false, err
		}
	}
	if err := t.log(ctx, id, persist.OpUpdate); err != nil {
		return false, err
	}
	return true, nil
}

// Delete removes the entries and everything attached to them, logging one
// delete per removed entry (in id order), and returns how many it removed.
func (t *tx) Delete(ctx context.Context, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if !t.fk {
		// Without foreign keys nothing cascades: remove the children here.
		for _, table := range []string{"tags", "image_attachments", "context_entry_grants"} {
			b := &sqlb{}
			b.w("DELETE FROM " + table + " WHERE context_entry_id IN ").in(ids)
			if _, err := t.tx.ExecContext(ctx, b.String(), b.args...); err != nil {
				return 0, fmt.Errorf("sqlite: delete %s: %w", table, err)
			}
		}
	}
	b := &sqlb{}
	b.w("DELETE FROM context_entries WHERE id IN ").in(ids).w(" RETURNING id")
	rows, err := t.tx.QueryContext(ctx, b.String(), b.args...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete entries: %w", err)
	}
	var gone []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqlite: delete entries: %w", err)
		}
		gone = append(gone, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: delete entries: %w", err)
	}
	if len(gone) == 0 {
		return 0, nil
	}
	sort.Strings(gone)
	enc, _ := json.Marshal(gone) // []string always encodes
	res, err := t.tx.ExecContext(ctx, `INSERT INTO change_log (entry_id, op, at)
		SELECT value, ?, ? FROM json_each(?) ORDER BY key`,
		persist.OpDelete, time.Now().UnixMicro(), string(enc))
	if err != nil {
		return 0, fmt.Errorf("sqlite: append change log: %w", err)
	}
	if err := t.noteSeq(res); err != nil {
		return 0, err
	}
	return len(gone), nil
}
