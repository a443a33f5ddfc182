package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// A large tools/call on stdio is decoded once, here, as bigcall.go does
// for HTTP, instead of by mcp-go's stdio server.
//
// mcp-go's stdio loop reads a line through a 4 KB bufio.Reader into a
// string, copies it to bytes, and then decodes the whole message about ten
// times (as a RawMessage, once per kind of response it might be, for the
// method, again in HandleMessage, in the request hook and for the
// request); with the drainIO line check that is some twenty passes of
// encoding/json over the message (83% of the CPU profile). Linear, but
// about 5 MB/s: a 50 MiB store_context took 10.7 s on two loaded EPYC
// cores. Here the arguments are decoded once (splitArguments), the
// message goes to HandleMessage with "arguments": {}, and the tool
// handler takes the decoded object from the context (takeArguments), as
// on HTTP: 0.78 s for the same call side by side, 43-67 MB/s from 1 to
// 100 MiB (BenchmarkStdioMessage, docs/benchmarks.md).
//
// Only lines of at least stdioDirectMin bytes take this path, so ordinary
// calls keep mcp-go's own handling exactly; a large line that
// splitArguments leaves alone (not a tools/call, not an object, text it
// cannot decode exactly as mcp-go would) and a tools/call without an id
// take mcp-go's path too.

// stdioDirectMin is the shortest line served here (1 MiB, as the HTTP
// memory admission's smallest counted body).
const stdioDirectMin = 1 << 20

// stdioDirectSlots bounds the large calls run at once, as mcp-go's stdio
// worker pool (5) does for its calls; reading waits for a free slot.
const stdioDirectSlots = 5

// stdioCalls serves the large tools/call lines of one stdio session.
type stdioCalls struct {
	mcp *mcpserver.MCPServer
	log *slog.Logger
	out io.Writer // drainIO's counting writer
	d   *drainIO
	min int // the shortest line served here

	slots chan struct{}
	wg    sync.WaitGroup

	mu     sync.Mutex
	ctx    context.Context // the session's, as mcp-go hands it to its handlers
	cancel context.CancelFunc
	closed bool
}

func newStdioCalls(m *mcpserver.MCPServer, log *slog.Logger, d *drainIO) *stdioCalls {
	c := &stdioCalls{mcp: m, log: log, d: d, min: stdioDirectMin, slots: make(chan struct{}, stdioDirectSlots)}
	d.direct = c.take
	return c
}

// session records the session context mcp-go builds (its context
// function calls this before the first line is read).
func (c *stdioCalls) session(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
}

// stop cancels the calls still running and waits for them; later lines
// take mcp-go's path (which by then reads no more).
func (c *stdioCalls) stop() {
	c.mu.Lock()
	c.closed = true
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// take serves line when it is a large tools/call request, reporting
// whether it did; the request is counted as pending in c.d.
func (c *stdioCalls) take(line []byte) bool {
	if len(line) < c.min {
		return false
	}
	msg, args, ok := splitArguments(line)
	if !ok {
		return false
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	var id any
	if json.Unmarshal(msg, &head) != nil || len(head.ID) == 0 || string(head.ID) == "null" ||
		json.Unmarshal(head.ID, &id) != nil {
		return false // a notification: mcp-go's path, which answers none
	}
	c.mu.Lock()
	ctx := c.ctx
	if c.closed || ctx == nil {
		c.mu.Unlock()
		return false
	}
	c.wg.Add(1)
	c.mu.Unlock()
	c.d.add(1)
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		c.wg.Done()
		return true // the session is ending: nothing is answered now
	}
	go func() {
		defer c.wg.Done()
		defer func() { <-c.slots }()
		ctx := context.WithValue(ctx, takenArgsKey{}, &takenArgs{m: args})
		resp := c.handle(ctx, id, msg)
		if resp == nil { // no answer after all: not pending
			c.d.add(-1)
			return
		}
		b, err := json.Marshal(resp)
		if err == nil {
			_, err = c.out.Write(append(b, '\n'))
		}
		if err != nil {
			c.log.Error("writing a stdio response", "error", err)
		}
	}()
	return true
}

// handle runs HandleMessage as mcp-go's stdio workers do: a panic is
// answered as an internal error carrying the request's id.
func (c *stdioCalls) handle(ctx context.Context, id any, msg []byte) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic in a stdio tool call", "panic", r)
			resp = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id),
				Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)}
		}
	}()
	return c.mcp.HandleMessage(ctx, msg)
}
