package postgres

import (
	"context"
	"sort"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/jackc/pgx/v5"
)

// tx is one write transaction: the reads of a reader on the same
// transaction plus the writes, each appending to the change log.
type tx struct {
	reader
	// Writes are Insert, Update, Grant and Ungrant, on this tx.
	sqlstore.Writes
	tx *pipe
	// lastSeq is the highest change-log seq written by this transaction;
	// 0 until the first log row, when the head is read (under the write
	// lock, so no other writer can take the next seq).
	lastSeq int64
	seqRead bool
}

var _ persist.Tx = (*tx)(nil)

// nextSeqs reserves n change-log seqs and returns the first.
func (t *tx) nextSeqs(ctx context.Context, n int) (int64, error) {
	if !t.seqRead {
		// Read past the queued statements, which write no change-log row
		// before this first seq: they wait for the next round trip.
		if err := t.tx.queryRowNow(ctx, `SELECT coalesce(max(seq), 0) FROM change_log`).Scan(&t.lastSeq); err != nil {
			return 0, wrap("append change log", err)
		}
		t.seqRead = true
	}
	first := t.lastSeq + 1
	t.lastSeq += int64(n)
	return first, nil
}

// Log appends one change-log row of op on entry id.
func (t *tx) Log(ctx context.Context, id, op string) error {
	seq, err := t.nextSeqs(ctx, 1)
	if err != nil {
		return err
	}
	return t.tx.putRows(ctx, logRows, [][]any{{seq, id, op}},
		`INSERT INTO change_log (seq, entry_id, op, at) VALUES ($1, $2, $3, now())`, seq, id, op)
}

const sqlInsertGrant = `INSERT INTO context_entry_grants
	(context_entry_id, principal_type, principal_id, permission, granted_by, created_at)
	VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`

// InsertTags stores tags in one statement (unnest of one array parameter).
func (t *tx) InsertTags(ctx context.Context, id string, tags []string) error {
	if len(tags) == 0 {
		return nil
	}
	rows := make([][]any, len(tags))
	for i, tag := range tags {
		rows[i] = []any{id, tag}
	}
	return t.tx.putRows(ctx, tagRows, rows, `INSERT INTO tags (context_entry_id, tag)
		SELECT $1, u.tag FROM unnest($2::text[]) WITH ORDINALITY AS u(tag, o) ORDER BY u.o
		ON CONFLICT DO NOTHING`, id, tags)
}

// InsertImages stores imgs at at (a time.Time).
func (t *tx) InsertImages(ctx context.Context, id string, imgs []persist.Image, at any) error {
	for i, img := range imgs {
		data := img.Data
		if data == nil {
			data = []byte{}
		}
		if err := t.tx.put(ctx, "insert image", `INSERT INTO image_attachments
			(context_entry_id, image_data, mime_type, image_metadata, position, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, id, data, img.MimeType, img.Metadata, i, at); err != nil {
			return err
		}
	}
	return nil
}

// Exec runs a statement in the transaction (sqlstore.Writer).
func (t *tx) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

// Put queues a statement whose changed-row count the write does not read
// (sqlstore.Writer; pipe.go); the row of an entry or a grant is gathered
// with the others of its table (coalesce.go).
func (t *tx) Put(ctx context.Context, what, sql string, args ...any) error {
	switch sql {
	case sqlInsertEntry:
		return t.tx.putRows(ctx, entryRows, [][]any{args}, sql, args...)
	case sqlInsertGrant:
		return t.tx.putRows(ctx, grantRows, [][]any{args}, sql, args...)
	}
	return t.tx.put(ctx, what, sql, args...)
}

const sqlInsertEntry = `INSERT INTO context_entries
	(id, thread_id, source, content_type, text_content, metadata_text, summary, content_hash,
	 version, owner_id, visibility, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

func (dialect) InsertEntrySQL() string { return sqlInsertEntry }
func (dialect) InsertGrantSQL() string { return sqlInsertGrant }
func (dialect) NullEq() string         { return " IS NOT DISTINCT FROM " }

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
