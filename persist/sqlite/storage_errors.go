package sqlite

import (
	"errors"
	"fmt"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/contextd/contextd/cerrors"
)

// storageError wraps a failed write whose cause is the storage itself
// with the sentinel a caller can act on (ErrStorageFull, ErrStorageIO,
// ErrBusy), keeping the driver error for the log: the transport shows a
// fixed text for each sentinel, never the driver's message. Other errors
// are returned as they are.
func storageError(err error) error {
	var se *sqlitedrv.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%w: %w", cerrors.ErrStorageFull, err)
	case sqlite3.SQLITE_IOERR:
		return fmt.Errorf("%w: %w", cerrors.ErrStorageIO, err)
	case sqlite3.SQLITE_BUSY:
		return fmt.Errorf("%w: %w", cerrors.ErrBusy, err)
	}
	return err
}

// constraintError is a write the schema refused (a duplicate id, a
// missing entry under a child row, a NULL or a value a check rejects), in
// the fixed words and with the sentinel the PostgreSQL store gives the
// same refusal ("sqlite: insert entry: unique violation", ErrConflict):
// the driver's text quotes tables and columns, and an atomic batch's
// error must read the same on both stores. The driver error stays
// reachable through Unwrap for the metrics' error kind and the log.
type constraintError struct {
	what, kind string
	sent       error // nil when no sentinel fits
	cause      error
}

func (e *constraintError) Error() string { return "sqlite: " + e.what + ": " + e.kind }

func (e *constraintError) Unwrap() []error {
	if e.sent == nil {
		return []error{e.cause}
	}
	return []error{e.sent, e.cause}
}

// writeError wraps a failed write statement with what it did: a
// constraint violation as a constraintError, anything else as
// Dialect.Wrap does.
func writeError(what string, err error) error {
	var se *sqlitedrv.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_CONSTRAINT {
		return Dialect.Wrap(what, err)
	}
	ce := &constraintError{what: what, kind: "constraint violation", cause: err}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		ce.kind, ce.sent = "unique violation", cerrors.ErrConflict
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		ce.kind, ce.sent = "foreign key violation", cerrors.ErrNotFound
	case sqlite3.SQLITE_CONSTRAINT_NOTNULL, sqlite3.SQLITE_CONSTRAINT_CHECK:
		ce.kind, ce.sent = "value rejected by the database", cerrors.ErrInvalid
	}
	return ce
}
