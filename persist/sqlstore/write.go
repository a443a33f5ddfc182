package sqlstore

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/contextd/contextd/persist"
)

// Writer is a store's write transaction as the shared writes use it; the
// statements that differ in shape between the stores (tags in one array
// statement or one per tag, the change log's seq) stay the store's.
type Writer interface {
	// Exec runs a statement in the transaction (a fixed one from the
	// store's statement cache where it keeps one) and returns the number
	// of rows it changed.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Put runs a statement whose changed-row count the write does not
	// read. A store may hold it back and send it with later statements in
	// one round trip (PostgreSQL's pipeline); its failure, wrapped with
	// what, is then reported by the call that sends it or by the commit.
	Put(ctx context.Context, what, sql string, args ...any) error
	InsertTags(ctx context.Context, id string, tags []string) error
	// InsertImages stores imgs at the time at, as Dialect.Time binds it.
	InsertImages(ctx context.Context, id string, imgs []persist.Image, at any) error
	// Log appends one change-log row of op on entry id.
	Log(ctx context.Context, id, op string) error
}

// WriteDialect is the dialect's side of the shared writes.
type WriteDialect interface {
	// InsertEntrySQL inserts the 13 columns of an entry, in the order
	// Insert binds them; InsertGrantSQL the 6 of a grant, keeping an
	// identical grant.
	InsertEntrySQL() string
	InsertGrantSQL() string
	// NullEq is the equality operator under which NULL equals NULL.
	NullEq() string
}

// NullString maps "" to SQL NULL.
func NullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// MetadataArg maps absent metadata (nil or a JSON null) to SQL NULL.
func MetadataArg(m json.RawMessage) any {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return string(m)
}

// Writes are the writes of persist.Tx that are the same on both stores,
// on a store's write transaction W; a store's tx embeds them.
type Writes struct {
	D Dialect
	W Writer
}

// Insert stores a new entry with its tags, images and grants. Zero
// CreatedAt/UpdatedAt are set to now (and written back to e).
func (x Writes) Insert(ctx context.Context, e *persist.Entry, grants []persist.Grant) error {
	d, w := x.D, x.W
	if e == nil {
		return d.Errf("insert: nil entry")
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = e.CreatedAt
	}
	created := d.Time(e.CreatedAt)
	if err := w.Put(ctx, "insert entry", d.InsertEntrySQL(),
		e.ID, e.ThreadID, e.Source, e.ContentType, e.Text, MetadataArg(e.Metadata),
		NullString(e.Summary), NullString(e.ContentHash), e.Version, e.Owner, e.Visibility,
		created, d.Time(e.UpdatedAt)); err != nil {
		return err
	}
	if err := w.InsertTags(ctx, e.ID, e.Tags); err != nil {
		return err
	}
	if err := w.InsertImages(ctx, e.ID, e.Images, created); err != nil {
		return err
	}
	for _, g := range grants {
		at := created
		if !g.CreatedAt.IsZero() {
			at = d.Time(g.CreatedAt)
		}
		if err := w.Put(ctx, "insert grant", d.InsertGrantSQL(), e.ID, g.PrincipalType, g.PrincipalID, g.Permission, g.GrantedBy, at); err != nil {
			return err
		}
	}
	return w.Log(ctx, e.ID, persist.OpInsert)
}

// Update applies u to entry id when its version (and hash) match and
// reports whether a row was changed. Tags and images are replaced when set;
// with Images set and ContentType nil, content_type follows the images.
func (x Writes) Update(ctx context.Context, id string, u persist.Update) (bool, error) {
	d, w := x.D, x.W
	updated := u.UpdatedAt
	if updated.IsZero() {
		updated = time.Now().UTC()
	}
	b := NewBuilder(d)
	b.W("UPDATE context_entries SET updated_at = ").Arg(d.Time(updated))
	if u.Text != nil {
		b.W(", text_content = ").Arg(*u.Text)
	}
	if u.ContentHash != nil {
		b.W(", content_hash = ").Typed(NullString(*u.ContentHash), "::text")
	}
	if u.Summary != nil {
		b.W(", summary = ").Typed(NullString(*u.Summary), "::text")
	}
	if u.Metadata != nil {
		b.W(", "+d.MetadataCol()+" = ").Typed(MetadataArg(*u.Metadata), "::text")
	}
	if u.Visibility != nil {
		b.W(", visibility = ").Arg(*u.Visibility)
	}
	switch {
	case u.ContentType != nil:
		b.W(", content_type = ").Arg(*u.ContentType)
	case u.Images != nil:
		ct := "text"
		if len(*u.Images) > 0 {
			ct = "multimodal"
		}
		b.W(", content_type = ").Arg(ct)
	}
	if u.BumpVersion {
		b.W(", version = version + 1")
	}
	b.W(" WHERE id = ").Typed(id, "::text").W(" AND version = ").Typed(u.ExpectVersion, "::bigint")
	if u.ExpectHash != nil {
		b.W(" AND content_hash"+d.NullEq()).Typed(NullString(*u.ExpectHash), "::text")
	}
	n, err := w.Exec(ctx, b.String(), b.Args()...)
	if err != nil {
		return false, d.Wrap("update entry", err)
	}
	if n == 0 {
		return false, nil
	}
	if u.Tags != nil {
		if err := byEntry(ctx, d, w, "DELETE FROM tags", id); err != nil {
			return false, d.Wrap("replace tags", err)
		}
		if err := w.InsertTags(ctx, id, *u.Tags); err != nil {
			return false, err
		}
	}
	if u.Images != nil {
		if err := byEntry(ctx, d, w, "DELETE FROM image_attachments", id); err != nil {
			return false, d.Wrap("replace images", err)
		}
		if err := w.InsertImages(ctx, id, *u.Images, d.Time(updated)); err != nil {
			return false, err
		}
	}
	if err := w.Log(ctx, id, persist.OpUpdate); err != nil {
		return false, err
	}
	return true, nil
}

// byEntry runs stmt on the rows of entry id.
func byEntry(ctx context.Context, d Dialect, w Writer, stmt, id string) error {
	b := NewBuilder(d)
	b.W(stmt + " WHERE context_entry_id = ").Arg(id)
	_, err := w.Exec(ctx, b.String(), b.Args()...)
	return err
}

// Grant adds g to entry id; an identical grant already present is kept as
// it is (created false) and logs nothing. The entry row is not touched, so
// its updated_at and version stay and a concurrent update never conflicts.
func (x Writes) Grant(ctx context.Context, id string, g persist.Grant) (bool, error) {
	d, w := x.D, x.W
	n, err := w.Exec(ctx, d.InsertGrantSQL(), id, g.PrincipalType, g.PrincipalID, g.Permission, g.GrantedBy, d.Time(g.CreatedAt))
	if err != nil {
		return false, d.Wrap("insert grant", err)
	}
	if n == 0 {
		return false, nil
	}
	return true, w.Log(ctx, id, persist.OpGrant)
}

// Ungrant removes one grant of entry id and logs the change when a row
// went away.
func (x Writes) Ungrant(ctx context.Context, id, principalType, principalID, permission string) (bool, error) {
	d, w := x.D, x.W
	b := NewBuilder(d)
	b.W("DELETE FROM context_entry_grants WHERE context_entry_id = ").Arg(id)
	b.W(" AND principal_type = ").Arg(principalType).W(" AND principal_id = ").Arg(principalID)
	b.W(" AND permission = ").Arg(permission)
	n, err := w.Exec(ctx, b.String(), b.Args()...)
	if err != nil {
		return false, d.Wrap("delete grant", err)
	}
	if n == 0 {
		return false, nil
	}
	return true, w.Log(ctx, id, persist.OpGrant)
}
