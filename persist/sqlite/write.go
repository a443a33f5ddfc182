package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
)

// tx is one write transaction: the reads of a reader on the same SQL
// transaction plus the writes, each appending to the change log.
type tx struct {
	reader
	// Writes are Insert, Update, Grant and Ungrant, on this tx.
	sqlstore.Writes
	tx      *sql.Tx
	fk      bool // foreign keys on: children are removed by ON DELETE CASCADE
	stmts   *stmtCache
	lastSeq int64 // highest change-log seq written by this transaction
}

// Log appends one change-log row of op on entry id.
func (t *tx) Log(ctx context.Context, id, op string) error {
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

// InsertTags stores tags, one cached statement a tag.
func (t *tx) InsertTags(ctx context.Context, id string, tags []string) error {
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

// InsertImages stores imgs at at (unix microseconds).
func (t *tx) InsertImages(ctx context.Context, id string, imgs []persist.Image, at any) error {
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

// Exec runs a statement in the transaction, from the statement cache when
// it is one of the fixed statements (sqlstore.Writer).
func (t *tx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Put runs a statement at once (sqlstore.Writer): SQLite has no round
// trips to save. A refused row reads as on PostgreSQL (writeError).
func (t *tx) Put(ctx context.Context, what, query string, args ...any) error {
	if _, err := t.exec(ctx, query, args...); err != nil {
		return writeError(what, err)
	}
	return nil
}

func (dialect) InsertEntrySQL() string { return sqlInsertEntry }
func (dialect) InsertGrantSQL() string { return sqlInsertGrant }
func (dialect) NullEq() string         { return " IS " }

// Delete removes the entries and everything attached to them, logging one
// delete per removed entry (in id order), and returns how many it removed.
func (t *tx) Delete(ctx context.Context, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if !t.fk {
		// Without foreign keys nothing cascades: remove the children here.
		for _, table := range []string{"tags", "image_attachments", "context_entry_grants"} {
			b := newB()
			b.W("DELETE FROM "+table+" WHERE ").IsIn("context_entry_id", ids)
			if _, err := t.tx.ExecContext(ctx, b.String(), b.Args()...); err != nil {
				return 0, fmt.Errorf("sqlite: delete %s: %w", table, err)
			}
		}
	}
	b := newB()
	b.W("DELETE FROM context_entries WHERE ").IsIn("id", ids).W(" RETURNING id")
	rows, err := t.tx.QueryContext(ctx, b.String(), b.Args()...)
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
