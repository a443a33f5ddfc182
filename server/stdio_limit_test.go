package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioMessageCap: a message over Options.MaxMessageBytes is dropped
// and answered with a JSON-RPC error naming the limit; the session goes
// on (the requests before and after it are answered, the last one even
// without a final newline).
func TestStdioMessageCap(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "p", MaxMessageBytes: 64 << 10})
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":"` +
		strings.Repeat("x", 200<<10) + `"}}}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		big,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.ServeStdio(ctx, strings.NewReader(strings.Join(lines, "\n")), &out); err != nil {
		t.Fatal(err)
	}
	got := out.b.String()
	want := fmt.Sprintf(`{"error":{"code":-32600,"message":"Message too large: %d bytes, more than the limit of %d bytes (MCP_MAX_REQUEST_BYTES); it was not read"},"id":null,"jsonrpc":"2.0"}`, len(big), 64<<10)
	for _, w := range []string{want, `"id":2,"result":{}`, `"id":3,"result":{}`} {
		if !strings.Contains(got, w) {
			t.Fatalf("missing %s in:\n%.2000s", w, got)
		}
	}
	if strings.Contains(got, `"id":5`) {
		t.Fatalf("the oversized request was served:\n%.2000s", got)
	}
}

// TestStdioLines: the reader hands over exactly the input's lines,
// whatever the sizes of the reads that bring them.
func TestStdioLines(t *testing.T) {
	in := "a\n\nbb\n" + strings.Repeat("c", 100_000) + "\nlast"
	for _, step := range []int{1, 7, 4096, 1 << 20} {
		d := newDrainIO(context.Background(), 1<<20)
		d.writer(io.Discard)
		r := bufio.NewReader(d.reader(&chunked{s: in, n: step}))
		var lines []string
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				lines = append(lines, l)
			}
			if err != nil {
				break
			}
		}
		if got, want := strings.Join(lines, ""), in+"\n"; got != want {
			t.Fatalf("reads of %d: %d bytes out, want %d", step, len(got), len(want))
		}
	}
}

// chunked reads s at most n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// BenchmarkStdioRead reads one message of 1, 10 and 50 MB through the
// stdio reader the way mcp-go does (bufio, ReadString): time per byte
// stays flat as the message grows (it grew with the size before: 88 MB
// took 50 s).
func BenchmarkStdioRead(b *testing.B) {
	for _, mb := range []int{1, 10, 50} {
		msg := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("y", mb<<20) + `"}}` + "\n"
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				d := newDrainIO(context.Background(), 0)
				d.writer(io.Discard)
				r := bufio.NewReader(d.reader(&chunked{s: msg, n: 4096}))
				if l, err := r.ReadString('\n'); err != nil || len(l) != len(msg) {
					b.Fatalf("read %d bytes, %v", len(l), err)
				}
			}
		})
	}
}
