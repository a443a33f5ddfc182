package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// DefaultMaxRequestBytes is the request cap of HTTPOptions left zero: the
// largest legal store with the engine defaults (100 MiB of images in base64,
// 10 Mi characters of text at four bytes each, 1 MiB of envelope).
const DefaultMaxRequestBytes = (100<<20*4+2)/3 + 4*(10<<20) + 1<<20

// Why a guarded body stopped before its end.
const (
	bodyOK       = iota
	bodyTooLarge // more than the cap (MaxBytesReader)
	bodyTimeout  // the server's read deadline passed
	bodyShutdown // the server is shutting down
)

// bodyGuard caps request bodies with http.MaxBytesReader and tracks the
// bodies still being received, so a shutdown can cut off clients that are
// still sending (a slow client would otherwise hold the shutdown for its
// whole timeout) while calls whose body has arrived run to completion.
type bodyGuard struct {
	max         int64
	readTimeout time.Duration

	mu      sync.Mutex
	cutoff  time.Time // when shutting down: the last moment a body may arrive
	reading map[*guardedBody]struct{}
}

func newBodyGuard(max int64, readTimeout time.Duration) *bodyGuard {
	if max <= 0 {
		max = DefaultMaxRequestBytes
	}
	return &bodyGuard{max: max, readTimeout: readTimeout, reading: map[*guardedBody]struct{}{}}
}

// wrap guards the POST bodies next reads. A declared Content-Length over
// the cap is answered 413 before anything is read.
func (g *bodyGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > g.max {
			w.Header().Set("Connection", "close")
			writeHTTPError(w, http.StatusRequestEntityTooLarge, g.tooLarge())
			return
		}
		b := &guardedBody{g: g, rc: http.NewResponseController(w), start: time.Now()}
		b.r = http.MaxBytesReader(w, r.Body, g.max)
		g.add(b)
		defer g.done(b)
		r.Body = b
		next.ServeHTTP(&guardedWriter{ResponseWriter: w, b: b}, r)
	})
}

func (g *bodyGuard) tooLarge() string {
	return fmt.Sprintf("Request body too large: more than %d bytes (MCP_MAX_REQUEST_BYTES)", g.max)
}

func (g *bodyGuard) add(b *guardedBody) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reading[b] = struct{}{}
	if !g.cutoff.IsZero() {
		b.stop(g.cutoff, g.readTimeout)
	}
}

func (g *bodyGuard) done(b *guardedBody) {
	g.mu.Lock()
	delete(g.reading, b)
	g.mu.Unlock()
}

// shutdown gives every body still being received, and any body of a
// request already accepted, until now+grace to arrive: a body that has not
// arrived by then fails, its caller gets 503 and the connection closes, so
// http.Server.Shutdown is left waiting only for calls that are running.
func (g *bodyGuard) shutdown(grace time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cutoff = time.Now().Add(grace)
	for b := range g.reading {
		b.stop(g.cutoff, g.readTimeout)
	}
}

// guardedBody is a capped request body that records why it failed.
type guardedBody struct {
	g  *bodyGuard
	r  io.ReadCloser
	rc *http.ResponseController

	start time.Time // when the request reached the guard

	mu       sync.Mutex
	stopping bool
	fail     int
}

// stop moves the body's read deadline to cutoff, unless the server's own
// read timeout ends it sooner.
func (b *guardedBody) stop(cutoff time.Time, readTimeout time.Duration) {
	if end := b.start.Add(readTimeout); readTimeout > 0 && end.Before(cutoff) {
		return
	}
	b.mu.Lock()
	b.stopping = true
	b.mu.Unlock()
	_ = b.rc.SetReadDeadline(cutoff)
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == nil {
		return n, nil
	}
	b.g.done(b) // received (or failed): no longer a slow sender
	if err == io.EOF {
		return n, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		b.fail = bodyTooLarge
	case b.stopping:
		b.fail = bodyShutdown
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		b.fail = bodyTimeout
	}
	return n, err
}

func (b *guardedBody) Close() error { return b.r.Close() }

func (b *guardedBody) failure() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fail
}

// guardedWriter replaces the handler's answer to a failed body (mcp-go
// answers any read error with a JSON-RPC parse error) by the HTTP status
// that says what happened: 413, 408 or 503.
type guardedWriter struct {
	http.ResponseWriter
	b        *guardedBody
	replaced bool
}

func (w *guardedWriter) intercept() bool {
	if w.replaced {
		return true
	}
	var status int
	var msg string
	switch w.b.failure() {
	case bodyTooLarge:
		status, msg = http.StatusRequestEntityTooLarge, w.b.g.tooLarge()
	case bodyTimeout:
		status, msg = http.StatusRequestTimeout, fmt.Sprintf("Request body not received within %s (MCP_HTTP_READ_TIMEOUT_S)", w.b.g.readTimeout)
	case bodyShutdown:
		status, msg = http.StatusServiceUnavailable, "Server is shutting down"
	default:
		return false
	}
	w.replaced = true
	h := w.ResponseWriter.Header()
	for k := range h {
		delete(h, k)
	}
	h.Set("Connection", "close")
	writeHTTPError(w.ResponseWriter, status, msg)
	return true
}

func (w *guardedWriter) WriteHeader(code int) {
	if !w.intercept() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *guardedWriter) Write(p []byte) (int, error) {
	if w.intercept() {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming working through the wrapper (mcp-go checks for
// http.Flusher); Unwrap serves http.ResponseController.
func (w *guardedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.replaced {
		f.Flush()
	}
}

func (w *guardedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeHTTPError answers status with a JSON-RPC error carrying msg (id
// null: the request was never parsed).
func writeHTTPError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32600, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
