package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Rows is a result set being read (a *sql.Rows or a pgx.Rows behind it).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is the first row of a result; Scan reports ErrNoRows when there is
// none.
type Row interface {
	Scan(dest ...any) error
}

// ErrNoRows is what Row.Scan reports for an empty result, whatever the
// driver.
var ErrNoRows = errors.New("sqlstore: no rows in result set")

// Querier runs statements: a pool, a connection or a transaction of one of
// the stores, through a thin adapter of its driver.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
}

// Time scans a stored time, unix microseconds (SQLite) or a timestamptz
// (PostgreSQL), as UTC.
type Time struct{ T time.Time }

// Scan implements sql.Scanner.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		t.T = time.UnixMicro(v).UTC()
	case time.Time:
		t.T = v.UTC()
	default:
		return fmt.Errorf("time column holds %T", src)
	}
	return nil
}

// Text scans a nullable text column: Valid is false for NULL.
type Text struct {
	S     string
	Valid bool
}

// Scan implements sql.Scanner.
func (t *Text) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		t.S, t.Valid = "", false
	case string:
		t.S, t.Valid = v, true
	case []byte:
		t.S, t.Valid = string(v), true
	default:
		return fmt.Errorf("text column holds %T", src)
	}
	return nil
}
