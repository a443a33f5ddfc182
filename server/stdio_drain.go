package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// mcp-go's stdio server stops its workers as soon as stdin reaches EOF, so a
// client that writes its requests and then closes stdin (a script, a pipe)
// could lose the answers still being computed. drainIO holds the EOF back
// until every request read has been answered, or ctx ends.
type drainIO struct {
	ctx context.Context

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever pending changes
	pending int
	partial []byte // the unfinished last input line
}

func newDrainIO(ctx context.Context) *drainIO {
	return &drainIO{ctx: ctx, changed: make(chan struct{})}
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

// requests counts the requests (messages with a method and an id) among
// the complete lines of p.
func (d *drainIO) requests(p []byte) int {
	d.partial = append(d.partial, p...)
	n := 0
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 {
			return n
		}
		var m jsonrpcShape
		if json.Unmarshal(d.partial[:i], &m) == nil && m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			n++
		}
		d.partial = d.partial[i+1:]
	}
}

// reader passes in through, counting requests and delaying EOF.
func (d *drainIO) reader(in io.Reader) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		n, err := in.Read(p)
		if err == io.EOF && len(d.partial)+n > 0 && n < len(p) && (n > 0 && p[n-1] != '\n' || n == 0 && len(d.partial) > 0) {
			// Terminate a last line that has no newline, so the server
			// reads it as a line now rather than together with EOF.
			p[n] = '\n'
			n, err = n+1, nil
		}
		d.add(d.requests(p[:n]))
		if err == io.EOF {
			d.waitAnswered()
		}
		return n, err
	})
}

// writer passes out through, counting the responses written.
func (d *drainIO) writer(out io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		n, err := out.Write(p)
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
		case <-d.ctx.Done():
			return
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
