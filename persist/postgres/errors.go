package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/contextd/contextd/cerrors"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// dbError is a failed database operation as callers see it: what the store
// was doing and the kind of failure in fixed words. The driver's own text
// (which may quote table names, constraint names or stored values, and
// carries "ERROR:" and the SQLSTATE) never appears in Error(); it stays
// reachable through Cause for the server log.
type dbError struct {
	what  string // "insert entry", "search", ...
	kind  string // "unique violation", "connection failed", ...
	sent  error  // the sentinel errors.Is matches, nil when none fits
	cause error  // the driver error, for logs only
}

func (e *dbError) Error() string { return "postgresql: " + e.what + ": " + e.kind }

// Unwrap exposes the sentinel (and a context error the caller caused), so
// errors.Is works; the driver error is not unwrapped, so neither
// errors.As(err, **pgconn.PgError) nor a transport printing the chain can
// reach the driver message.
func (e *dbError) Unwrap() error { return e.sent }

// Cause returns the driver error behind e, for the server log.
func (e *dbError) Cause() error { return e.cause }

// wrap turns err from the driver into a dbError naming what failed. nil
// stays nil; errors this package made itself (already dbErrors or engine
// sentinels) and the caller's cancellation pass through with context.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var de *dbError
	if errors.As(err, &de) {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &dbError{what: what, kind: "canceled", sent: context.Canceled, cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &dbError{what: what, kind: "deadline exceeded", sent: context.DeadlineExceeded, cause: err}
	}
	kind, sent := classify(err)
	return &dbError{what: what, kind: kind, sent: sent, cause: err}
}

// classify names the kind of a driver error in fixed words, with the
// sentinel of package cerrors it maps to. Codes follow PostgreSQL's
// Appendix A (SQLSTATE classes).
func classify(err error) (string, error) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505":
			return "unique violation", cerrors.ErrConflict
		case "23503":
			return "foreign key violation", cerrors.ErrNotFound
		case "23502", "23514", "22P02", "22003", "22021", "22P05", "22023", "54000", "54001":
			return "value rejected by the database", cerrors.ErrInvalid
		case "40001", "40P01", "55P03":
			return "serialization conflict", cerrors.ErrConflict
		case "57014":
			return "statement timeout", cerrors.ErrUnavailable
		case "53100":
			return "disk full", cerrors.ErrUnavailable
		case "53300":
			return "too many connections", cerrors.ErrDatabaseUnavailable
		case "42501":
			return "permission denied", cerrors.ErrUnavailable
		case "3F000", "42P01", "42883", "42703":
			return "schema mismatch", nil
		}
		switch pe.Code[:2] {
		case "08", "57":
			return "connection failed", cerrors.ErrDatabaseUnavailable
		case "53":
			return "insufficient resources", cerrors.ErrUnavailable
		}
		return "database error", nil
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) || isConnLost(err) {
		return "connection failed", cerrors.ErrDatabaseUnavailable
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return "no rows", nil
	}
	return "database error", nil
}

// isConnLost reports a connection that broke under a statement: the
// server went away (EOF, reset, a closed socket) rather than refusing it.
func isConnLost(err error) bool {
	var ne *net.OpError
	return errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &ne)
}

// errorKind is the fixed-words kind of err for PoolStats.LastError.
func errorKind(err error) string {
	var de *dbError
	if errors.As(err, &de) {
		return de.kind
	}
	k, _ := classify(err)
	return k
}

// errf returns an error of this package that is not a driver failure (bad
// options, a refused argument), prefixed like the others.
func errf(format string, args ...any) error {
	return fmt.Errorf("postgresql: "+format, args...)
}
