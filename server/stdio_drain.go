package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// mcp-go's stdio server stops its workers as soon as stdin reaches EOF, so a
// client that writes its requests and then closes stdin (a script, a pipe)
// could lose the answers still being computed. drainIO holds the EOF back
// until every request read has been answered, or ctx ends.
//
// It also hands the server whole lines only, each at most max bytes: a
// longer message is read to its end and dropped, and its sender is told
// in a JSON-RPC error (id null, as for any message whose id cannot be
// read), so one oversized message costs neither unbounded memory nor the
// session. Each input byte is looked at once: the search for the end of
// a line starts where the previous read stopped (it started over at the
// line's beginning before, so an 88 MB message took 50 s to read, in
// 4 KB reads: quadratic).
type drainIO struct {
	done <-chan struct{} // the session's context's: stop waiting for answers
	max  int64           // the longest message, newline excluded

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever pending changes
	pending int

	line     []byte // the unfinished current input line
	ready    []byte // whole lines not yet handed to the server
	dropping int64  // >0: the current line is over max; bytes dropped so far
	scratch  []byte
	// direct, when set, may serve a whole line itself (stdio_bigcall.go),
	// reporting whether it did; the line is then not handed on.
	direct func(line []byte) bool

	wmu sync.Mutex // one message at a time on the output
	out io.Writer
}

func newDrainIO(ctx context.Context, max int64) *drainIO {
	if max <= 0 {
		max = DefaultMaxRequestBytes
	}
	return &drainIO{done: ctx.Done(), max: max, changed: make(chan struct{})}
}

// jsonrpcShape is the part of a JSON-RPC message that tells requests from
// responses.
type jsonrpcShape struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (d *drainIO) add(n int) {
	if n == 0 {
		return
	}
	d.mu.Lock()
	d.pending += n
	close(d.changed)
	d.changed = make(chan struct{})
	d.mu.Unlock()
}

// isRequest reports whether line is a request (a message with a method
// and an id), which the server will answer.
func isRequest(line []byte) bool {
	var m jsonrpcShape
	return json.Unmarshal(line, &m) == nil && m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}

// take adds chunk to the input: complete lines go to ready (requests
// counted), an over-long one is dropped and answered with an error.
func (d *drainIO) take(chunk []byte) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		switch {
		case d.dropping > 0:
			d.dropping += int64(len(part))
		case int64(len(d.line)+len(part)) > d.max:
			d.dropping = int64(len(d.line) + len(part))
			d.line = nil // release it now, not at the line's end
		default:
			d.appendLine(part)
		}
		if i < 0 {
			return
		}
		chunk = chunk[i+1:]
		if d.dropping > 0 {
			d.refuse(d.dropping)
			d.dropping = 0
			continue
		}
		if d.direct == nil || !d.direct(d.line) { // else served already
			if isRequest(d.line) {
				d.add(1)
			}
			d.ready = append(append(d.ready, d.line...), '\n')
		}
		if cap(d.line) > 1<<20 {
			d.line = nil // keep no large buffer between large messages
		} else {
			d.line = d.line[:0]
		}
	}
}

// appendLine appends part to the current line, doubling its capacity up
// to the cap: append grows a large slice by a quarter at a time, which for
// a 50 MB line in 64 KB reads allocated 290 MB and copied the line over
// five times (BenchmarkStdioMessage).
func (d *drainIO) appendLine(part []byte) {
	if n := len(d.line) + len(part); n > cap(d.line) {
		c := min(int64(max(2*cap(d.line), n, 64<<10)), max(d.max, int64(n)))
		d.line = append(make([]byte, 0, int(c)), d.line...)
	}
	d.line = append(d.line, part...)
}

// refuse tells the client its message of n bytes was dropped.
func (d *drainIO) refuse(n int64) {
	msg := fmt.Sprintf("Message too large: %d bytes, more than the limit of %d bytes (MCP_MAX_REQUEST_BYTES); it was not read", n, d.max)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": msg}})
	if d.out != nil {
		_, _ = d.write(append(b, '\n'))
	}
}

// reader hands the server whole lines of in, counting requests and
// delaying EOF. A last line without a newline is ended with one, so the
// server reads it now rather than together with EOF.
func (d *drainIO) reader(in io.Reader) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		for len(d.ready) == 0 {
			if d.scratch == nil {
				d.scratch = make([]byte, 64<<10)
			}
			n, err := in.Read(d.scratch)
			d.take(d.scratch[:n])
			if err == io.EOF && (len(d.line) > 0 || d.dropping > 0) {
				d.take([]byte{'\n'})
			}
			if len(d.ready) > 0 {
				break
			}
			if err != nil {
				if err == io.EOF {
					d.waitAnswered()
				}
				return 0, err
			}
		}
		n := copy(p, d.ready)
		d.ready = d.ready[n:]
		if len(d.ready) == 0 {
			d.ready = nil // a large message's buffer goes with it
		}
		return n, nil
	})
}

// write writes one message to the output, never interleaved with another.
func (d *drainIO) write(p []byte) (int, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	return d.out.Write(p)
}

// writer passes out through, counting the responses written.
func (d *drainIO) writer(out io.Writer) io.Writer {
	d.out = out
	return writerFunc(func(p []byte) (int, error) {
		n, err := d.write(p)
		answered := 0
		for _, line := range bytes.Split(p, []byte{'\n'}) {
			var m jsonrpcShape
			if json.Unmarshal(line, &m) == nil && m.Method == "" && len(m.ID) > 0 {
				answered++
			}
		}
		d.add(-answered)
		return n, err
	})
}

func (d *drainIO) waitAnswered() {
	for {
		d.mu.Lock()
		pending, changed := d.pending, d.changed
		d.mu.Unlock()
		if pending <= 0 {
			return
		}
		select {
		case <-changed:
		case <-d.done:
			return
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
