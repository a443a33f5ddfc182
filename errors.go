package contextd

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
)

// Error is an engine error with the reference message text.
type Error struct {
	Kind error  // one of the sentinels
	Msg  string // the message shown to the caller
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

func newErr(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func invalidf(format string, args ...any) *Error { return newErr(ErrInvalid, format, args...) }
