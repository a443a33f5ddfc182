package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/persist/sqlite"
)

// stdioCall is a session of one tools/call store_context whose text makes
// the call line size bytes long (newline excluded).
func stdioCall(size int) string {
	head := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":"`
	tail := `"}}}`
	words := strings.Repeat("lorem ipsum ", (size-len(head)-len(tail))/12+1)
	return strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		head + words[:size-len(head)-len(tail)] + tail,
	}, "\n") + "\n"
}

// benchServer is a server on an in-memory database whose engine takes
// texts of at most maxChars code points.
func benchServer(b *testing.B, maxChars int) *Server {
	b.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: ":memory:"})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := contextd.Open(context.Background(), contextd.Config{Store: st, MaxTextChars: maxChars, FTS: contextd.FTSConfig{Progress: io.Discard}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = eng.Close(); _ = st.Close() })
	s, err := New(eng, Options{DefaultPrincipal: "p"})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkStdioMessage serves a stdio session whose tools/call
// store_context is 1, 10 and 50 MB long, through ServeStdio: the whole
// read and decode path (the line reader, mcp-go's parsing, the request
// hook, argument decoding). The engine takes texts of 1,000 characters,
// so every call is refused by the text check that follows decoding and
// the database does not enter into it; the answer is checked to be that
// refusal. CONTEXTD_BENCH_STDIO_MB (comma-separated) picks other sizes.
func BenchmarkStdioMessage(b *testing.B) {
	sizes := []int{1, 10, 50}
	if env := os.Getenv("CONTEXTD_BENCH_STDIO_MB"); env != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	s := benchServer(b, 1000)
	for _, mb := range sizes {
		in := stdioCall(mb << 20)
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				var out syncBuffer
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				err := s.ServeStdio(ctx, strings.NewReader(in), &out)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				if got := out.b.String(); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "text is too long") {
					b.Fatalf("not the text check's refusal: %.500s", got)
				}
			}
		})
	}
}
