package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/contextd/contextd/internal/memrelease"
)

// A tools/call over HTTP is decoded once, here, before mcp-go sees it.
//
// mcp-go reads the body whole, then decodes a call's arguments by copying
// them twice (a json.RawMessage of the params and RawArguments) before
// decoding them into Go strings, while the body stays referenced: a
// store_context_batch of 16 texts of 10 MiB was held four times at once
// (body, two raw copies, the strings) before any tool ran, and the
// request hook's own check decoded it a third time. Here the body is read
// into one buffer of its declared length, the arguments are decoded once,
// and mcp-go gets the message with "arguments": {} in their place; the
// tool handler takes the decoded object from the request context. The
// body is released as soon as this returns.
//
// Anything this cannot decode exactly as mcp-go would (a message that is
// not an object, a params or arguments key spelt in another case or with
// escapes or twice, arguments that are not an object, hold a number no
// float64 holds, invalid UTF-8, a lone surrogate escape or an integer
// beyond int64) goes to mcp-go unchanged and takes the ordinary path,
// with its error texts.

// takenArgs carries the decoded arguments of one call from the HTTP layer
// to the tool handler.
type takenArgs struct{ m map[string]any }

type takenArgsKey struct{}

// takeArguments returns the arguments decoded by predecode for the call
// of ctx, once: the handler's copy is the only one left afterwards.
func takeArguments(ctx context.Context) (map[string]any, bool) {
	t, ok := ctx.Value(takenArgsKey{}).(*takenArgs)
	if !ok || t.m == nil {
		return nil, false
	}
	m := t.m
	t.m = nil
	return m, true
}

// withTakenArguments copies the taken arguments of from into ctx (mcp-go
// builds the handler's context from its own).
func withTakenArguments(ctx, from context.Context) context.Context {
	if t, ok := from.Value(takenArgsKey{}).(*takenArgs); ok {
		return context.WithValue(ctx, takenArgsKey{}, t)
	}
	return ctx
}

// predecode wraps mcp-go's handler: POST bodies are read here (see
// above), once the memory admission has let them in.
func predecode(next http.Handler, adm *admission) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		release, status, refusal := adm.admit(r.ContentLength)
		if refusal != "" {
			w.Header().Set("Connection", "close") // the body is not read
			writeHTTPError(w, status, refusal)
			return
		}
		defer release()
		body, err := readBody(r.Body, r.ContentLength)
		if err != nil {
			// mcp-go reports the failure as before: it reads what arrived,
			// then the same error.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		msg, args, ok := splitArguments(body)
		if !ok {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
			return
		}
		r2 := r.WithContext(context.WithValue(r.Context(), takenArgsKey{}, &takenArgs{m: args}))
		r2.Body = io.NopCloser(bytes.NewReader(msg))
		r2.ContentLength = int64(len(msg))
		next.ServeHTTP(w, r2)
	})
}

// memoryMultiple is the memory a large call may need at its peak, as a
// multiple of its body: the stated bound of the memory a batch takes. With
// the body decoded once (above), a store_context_batch of 16 texts of
// 10 MiB holds its texts about twice while it is decoded and stored (the
// body and the strings, then the strings and the database's copy), and
// the indexes that follow the change log read them back after it.
const memoryMultiple = 4

// admittedMin is the smallest body the admission counts: ordinary calls
// are never refused for memory.
const admittedMin = 1 << 20

// admission refuses a call whose body, times memoryMultiple, does not fit
// in the soft memory limit (MEMORY_LIMIT_MB, or GOMEMLIMIT) beside the
// large calls already running. Past that limit the collector runs nearly
// without pause and the process still grows: refusing first, with the
// sizes, tells the client what to change.
type admission struct {
	limit func() int64 // the memory limit in bytes; math.MaxInt64 = none

	mu   sync.Mutex
	held int64 // reserved by the large calls in progress
}

func newAdmission() *admission {
	return &admission{limit: func() int64 { return debug.SetMemoryLimit(-1) }}
}

// admit reserves memoryMultiple times a body of n bytes (-1: unknown,
// admitted). A refusal gives the HTTP status and the message.
func (a *admission) admit(n int64) (release func(), status int, refusal string) {
	nothing := func() {}
	if n < admittedMin {
		return nothing, 0, ""
	}
	limit := a.limit()
	if limit <= 0 || limit == math.MaxInt64 {
		return memrelease.Tighten(), 0, ""
	}
	need := memoryMultiple * n
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case need > limit:
		return nothing, http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"Request refused: a body of %d bytes needs about %d MiB of memory while it is decoded and stored (%d times its size), more than the server's limit of %d MiB (MEMORY_LIMIT_MB); send fewer or smaller entries per call, or raise MEMORY_LIMIT_MB",
			n, need>>20, memoryMultiple, limit>>20)
	case a.held+need > limit:
		return nothing, http.StatusServiceUnavailable, fmt.Sprintf(
			"Request refused for now: a body of %d bytes needs about %d MiB of memory while it is decoded and stored (%d times its size), and other large calls in progress hold %d MiB of the server's limit of %d MiB (MEMORY_LIMIT_MB); retry when they are done, or send fewer or smaller entries per call",
			n, need>>20, memoryMultiple, a.held>>20, limit>>20)
	}
	a.held += need
	// The call's body, its decoded texts and the database's copy are
	// garbage step by step: a tight collector goal keeps the process
	// near what is live (memrelease.TightPercent).
	loosen := memrelease.Tighten()
	return func() {
		loosen()
		a.mu.Lock()
		a.held -= need
		a.mu.Unlock()
	}, 0, ""
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// readBody reads a body of declared length n (-1: unknown) into one
// buffer of that length; io.ReadAll would hold its growing pieces and the
// final copy at once, twice the body.
func readBody(rc io.Reader, n int64) ([]byte, error) {
	if n < 0 {
		return io.ReadAll(rc)
	}
	b := make([]byte, n)
	got, err := io.ReadFull(rc, b)
	if err != nil {
		return b[:got], err
	}
	// net/http ends a body at its Content-Length; reading on to EOF lets
	// the guard see it end (and any error after it).
	rest, err := io.ReadAll(rc)
	if len(rest) > 0 {
		b = append(b, rest...)
	}
	return b, err
}

// splitArguments finds the arguments of a tools/call message and decodes
// them, returning the message with "arguments" replaced by {}. ok is false
// when the message must take the ordinary path.
func splitArguments(body []byte) (msg []byte, args map[string]any, ok bool) {
	sc := &jsonSpan{b: body}
	var method, params span
	if !sc.object(func(key span) bool {
		switch {
		case sc.keyIs(key, "method"):
			if method.set() {
				return false
			}
			method = sc.value()
		case sc.keyIs(key, "params"):
			if params.set() {
				return false
			}
			params = sc.value()
		case sc.keyFolds(key, "method"), sc.keyFolds(key, "params"):
			return false
		default:
			sc.value()
		}
		return sc.ok
	}) || sc.skipSpace() != len(body) || !method.set() || !params.set() ||
		!bytes.Equal(body[method.a:method.b], []byte(`"tools/call"`)) {
		return nil, nil, false
	}
	ps := &jsonSpan{b: body, i: params.a}
	var arg span
	if !ps.object(func(key span) bool {
		switch {
		case ps.keyIs(key, "arguments"):
			if arg.set() {
				return false
			}
			arg = ps.value()
		case ps.keyFolds(key, "arguments"):
			return false
		default:
			ps.value()
		}
		return ps.ok
	}) || !arg.set() || body[arg.a] != '{' {
		return nil, nil, false
	}
	raw := body[arg.a:arg.b]
	if mayHoldInvalidText(raw) || hasLongDigitRun(raw) {
		return nil, nil, false
	}
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, nil, false
	}
	msg = make([]byte, 0, len(body)-len(raw)+2)
	msg = append(append(append(msg, body[:arg.a]...), "{}"...), body[arg.b:]...)
	return msg, args, true
}

// span is a value's bytes [a, b) in a message; b is 0 when unset.
type span struct{ a, b int }

func (s span) set() bool { return s.b > 0 }

// jsonSpan walks JSON without decoding it: it finds where values start and
// end. ok turns false on anything malformed (encoding/json then reports
// it on the ordinary path).
type jsonSpan struct {
	b  []byte
	i  int
	ok bool
}

func (s *jsonSpan) skipSpace() int {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return s.i
		}
	}
	return s.i
}

// object walks an object, calling member with each key (a string's span,
// quotes included) with the position at the key's value; member must
// consume the value and return false to stop.
func (s *jsonSpan) object(member func(key span) bool) bool {
	s.ok = true
	if s.skipSpace(); s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	if s.skipSpace(); s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.skipSpace()
		key := s.str()
		if !s.ok {
			return false
		}
		if s.skipSpace(); s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.skipSpace()
		if !member(key) || !s.ok {
			return false
		}
		if s.skipSpace(); s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// keyIs reports a key spelt exactly name, without escapes.
func (s *jsonSpan) keyIs(key span, name string) bool {
	return string(s.b[key.a+1:key.b-1]) == name
}

// keyFolds reports a key that encoding/json might match to the field
// name otherwise than exactly: another case, an escape, or any non-ASCII
// byte (it folds U+017F to s and U+212A to k).
func (s *jsonSpan) keyFolds(key span, name string) bool {
	k := s.b[key.a+1 : key.b-1]
	if bytes.EqualFold(k, []byte(name)) {
		return true
	}
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	return false
}

// str consumes a string.
func (s *jsonSpan) str() span {
	a := s.i
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		s.ok = false
		return span{}
	}
	q := closingQuote(s.b, s.i)
	if q < 0 {
		s.ok = false
		return span{}
	}
	s.i = q + 1
	return span{a, s.i}
}

// closingQuote returns the index of the quote ending the string that
// opens at b[i], or -1. It jumps from quote to quote with bytes.IndexByte
// and counts the backslashes just before each (an odd number escapes it),
// rather than looking at every byte: the byte loop was a tenth of a
// 50 MB stdio call's time (BenchmarkStdioMessage). Each backslash is
// counted at most once, so this stays linear.
func closingQuote(b []byte, i int) int {
	for j := i + 1; j <= len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
	return -1
}

// value consumes one value of any kind and returns its span.
func (s *jsonSpan) value() span {
	a := s.skipSpace()
	if s.i >= len(s.b) {
		s.ok = false
		return span{}
	}
	switch c := s.b[s.i]; c {
	case '"':
		return s.str()
	case '{', '[':
		depth := 0
		for ; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case '"':
				s.str()
				if !s.ok {
					return span{}
				}
				s.i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.i++
					return span{a, s.i}
				}
			}
		}
		s.ok = false
		return span{}
	default:
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if s.i == a {
					s.ok = false
				}
				return span{a, s.i}
			}
			s.i++
		}
		return span{a, s.i}
	}
}
