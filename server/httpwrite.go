package server

import (
	"net/http"
	"time"
)

// DefaultWriteTimeout is the write deadline of HTTPOptions left zero.
const DefaultWriteTimeout = 60 * time.Second

// writeDeadline bounds how long one response may take to be written
// (MCP_HTTP_WRITE_TIMEOUT_S). The clock starts when the response starts,
// not when the request arrives, so a long tool call is not cut: each
// Write (mcp-go writes a JSON answer in one Write, an event stream an
// event at a time) and each Flush must be accepted by the client within
// timeout. A client that stops reading blocks that Write in the kernel
// until the deadline passes; the Write then fails, the handler returns,
// net/http closes the connection, and the answer's buffers (the encoded
// JSON and the result it came from) become garbage. What one connection
// holds in the meantime is its one answer plus net/http's 4 KiB buffer and
// the socket's send buffer; http.Server.WriteTimeout would instead count
// from the request and cut long calls.
type writeDeadline struct {
	timeout time.Duration
}

func (d writeDeadline) wrap(next http.Handler) http.Handler {
	if d.timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// A deadline left by the previous request of a keep-alive
		// connection must not cut this one while it computes.
		_ = rc.SetWriteDeadline(time.Time{})
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, timeout: d.timeout}
		next.ServeHTTP(dw, r)
		// net/http writes what is still buffered after the handler
		// returns: that write is bounded too.
		dw.arm()
	})
}

// deadlineWriter moves the connection's write deadline to now+timeout
// before each write that reaches the client.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) WriteHeader(code int) {
	w.arm()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming working through the wrapper (mcp-go checks for
// http.Flusher); Unwrap serves http.ResponseController.
func (w *deadlineWriter) Flush() {
	w.arm()
	_ = w.rc.Flush()
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
