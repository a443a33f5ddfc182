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
