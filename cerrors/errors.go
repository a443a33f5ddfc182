// Package cerrors owns the sentinel errors of contextd and the Error type
// that carries a reference message text. It is a leaf: every package below
// the root returns these sentinels, and the root package re-exports them,
// so errors.Is works the same whichever package produced the error (bbolt
// keeps its errors the same way). Its name is not the standard library's,
// so no importer has to rename it.
//
//	err := cerrors.Invalidf("tags must be a list, got %s", "str")
//	errors.Is(err, cerrors.ErrInvalid) // true
//	err.Error()                        // the text shown to the caller
package cerrors

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the engine returns for caller input wraps one
// of them; its Error text is the exact message of the API reference, so a
// transport can show it verbatim.
var (
	// ErrInvalid: the arguments are malformed or break a documented limit.
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: no readable entry has the id (hidden == absent).
	ErrNotFound = errors.New("not found")
	// ErrNotAuthorized: the caller may read the entry but not do this to it.
	ErrNotAuthorized = errors.New("not authorized")
	// ErrReadOnly: the caller is the anonymous, read-only principal.
	ErrReadOnly = errors.New("read-only principal")
	// ErrConflict: the entry kept changing under a concurrent writer.
	ErrConflict = errors.New("concurrent modification")
	// ErrNoPrincipal: the context carries no principal.
	ErrNoPrincipal = errors.New("no principal in context")
	// ErrUnavailable: a capability (a search mode, a provider) is not available.
	ErrUnavailable = errors.New("unavailable")
	// ErrGeneration: a model provider failed after its retries; nothing
	// was stored.
	ErrGeneration = errors.New("generation failed")
	// ErrEmbeddingModelChanged is wrapped by the start-up error of an engine
	// whose embedder differs from the model the stored vectors came from.
	ErrEmbeddingModelChanged = errors.New("embedding model changed")
	// ErrCompressionChanged is wrapped by the start-up error of an engine
	// whose compression settings differ from the stored vectors' form
	// (C.14: exit 78, `contextd migrate compress|decompress`).
	ErrCompressionChanged = errors.New("compression settings changed")
	// ErrUnsupported: a document's format has no extractor (index/extract),
	// or the file is binary.
	ErrUnsupported = errors.New("unsupported format")
	// ErrTooLarge: a document exceeds an extractor's size limit.
	ErrTooLarge = errors.New("too large")
	// ErrMalformed: a document is damaged or not of its declared format.
	ErrMalformed = errors.New("malformed document")
	// ErrStorageFull: the database could not grow (the disk is full or a
	// file size limit was reached); the write was rolled back.
	ErrStorageFull = errors.New("storage full")
	// ErrStorageIO: the database file could not be written (an I/O error:
	// a file size limit, a failing or vanished disk); the write was rolled
	// back.
	ErrStorageIO = errors.New("storage I/O error")
	// ErrBusy: another process held the database's write lock for longer
	// than the busy timeout.
	ErrBusy = errors.New("database busy")
	// ErrDatabaseUnavailable: the database cannot be reached (the
	// connection was refused, lost or timed out, the server is shutting
	// down or takes no more connections, or no pooled connection came
	// free in time). It matches ErrUnavailable too.
	ErrDatabaseUnavailable error = &subError{msg: "database unavailable", parent: ErrUnavailable}
)

// subError is a sentinel that is also a kind of a broader one.
type subError struct {
	msg    string
	parent error
}

func (e *subError) Error() string { return e.msg }
func (e *subError) Unwrap() error { return e.parent }

// UnavailableText is what a caller is told when the database cannot be
// reached: fixed words, never the driver's (which name hosts and ports).
const UnavailableText = "database unavailable: the server could not get a connection to its database (refused, lost, timed out, or every connection busy); retry later"

// UnexpectedText is what a caller is told about a failure that is not its
// fault (a driver error, a bug): the driver's or package's own text may
// name tables, constraints or Go types, so it goes to the log instead.
const UnexpectedText = "an unexpected error occurred; the server log has the details"

// Error is an engine error with the reference message text.
type Error struct {
	Kind error  // one of the sentinels
	Msg  string // the message shown to the caller
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// New returns an Error of kind with a formatted message.
func New(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Invalidf returns an ErrInvalid Error with a formatted message.
func Invalidf(format string, args ...any) *Error { return New(ErrInvalid, format, args...) }
