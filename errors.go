package contextd

import "github.com/contextd/contextd/cerrors"

// Sentinel errors, re-exported from package cerrors so that the packages the
// engine hands work to return the same values. Every error the engine
// returns for caller input wraps one of them; its Error text is the exact
// message of the API reference, so a transport can show it verbatim.
var (
	ErrInvalid       = cerrors.ErrInvalid
	ErrNotFound      = cerrors.ErrNotFound
	ErrNotAuthorized = cerrors.ErrNotAuthorized
	ErrReadOnly      = cerrors.ErrReadOnly
	ErrConflict      = cerrors.ErrConflict
	ErrNoPrincipal   = cerrors.ErrNoPrincipal
	ErrUnavailable   = cerrors.ErrUnavailable
	ErrGeneration    = cerrors.ErrGeneration
	// ErrEmbeddingModelChanged is wrapped by the start-up error of an engine
	// whose embedder differs from the stored vectors' model.
	ErrEmbeddingModelChanged = cerrors.ErrEmbeddingModelChanged
	ErrCompressionChanged    = cerrors.ErrCompressionChanged // stored vectors' form vs COMPRESSION_* (exit 78)
	// Document extraction (index/extract): no extractor, over a limit, broken.
	ErrUnsupported, ErrTooLarge, ErrMalformed = cerrors.ErrUnsupported, cerrors.ErrTooLarge, cerrors.ErrMalformed
	// Storage conditions of a failed write (disk full, I/O error, locked by another process).
	ErrStorageFull, ErrStorageIO, ErrBusy = cerrors.ErrStorageFull, cerrors.ErrStorageIO, cerrors.ErrBusy
	// ErrDatabaseUnavailable: the database cannot be reached; it matches ErrUnavailable too.
	ErrDatabaseUnavailable = cerrors.ErrDatabaseUnavailable
)

// Error is an engine error with the reference message text.
type Error = cerrors.Error

func newErr(kind error, format string, args ...any) *Error {
	return cerrors.New(kind, format, args...)
}

func invalidf(format string, args ...any) *Error { return cerrors.Invalidf(format, args...) }
