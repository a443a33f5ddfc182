package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
)

// stdioSession serves the lines in (the last one ended too) on s and
// returns the answers by id (the null id's under "null").
func stdioSession(t *testing.T, s *Server, in io.Reader) map[string]string {
	t.Helper()
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.ServeStdio(ctx, in, &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.b.String()), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("answer %.300q: %v", line, err)
		}
		got[string(m.ID)] = line
	}
	return got
}

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// TestStdioLargeCall: a store_context of over stdioDirectMin bytes, served
// by stdioCalls, stores its text exactly (escapes, non-ASCII, a key spelt
// in the arguments twice as JSON allows); one that stdioCalls leaves to
// mcp-go (a lone surrogate escape) is refused in the reference's words;
// the requests around them are answered.
func TestStdioLargeCall(t *testing.T) {
	s := newTestServer(t, Options{DefaultPrincipal: "p"})
	text := strings.Repeat("line \"quoted\" é 😀 \\ tab\t\n", stdioDirectMin/20)
	enc, _ := json.Marshal(text)
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":` +
		string(enc) + `,"tags":["A"]}}}`
	if len(big) < stdioDirectMin {
		t.Fatalf("the call is %d bytes, under %d", len(big), stdioDirectMin)
	}
	lone := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":"` +
		strings.Repeat("y", stdioDirectMin) + `\ud800"}}}`
	got := stdioSession(t, s, strings.NewReader(stdioInit+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"+big+"\n"+lone+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	for _, id := range []string{"2", "3"} {
		if !strings.Contains(got[id], `"result":{}`) {
			t.Fatalf("ping %s: %.300q", id, got[id])
		}
	}
	if w := "text: A string value contains an unpaired UTF-16 surrogate"; !strings.Contains(got["6"], w) {
		t.Fatalf("lone surrogate: want %q in %.500q", w, got["6"])
	}
	var res struct {
		Result struct {
			StructuredContent struct {
				ContextID string `json:"context_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got["5"]), &res); err != nil || res.Result.StructuredContent.ContextID == "" {
		t.Fatalf("store: %v %.500q", err, got["5"])
	}
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "p"})
	views, err := s.eng.Get(ctx, contextd.GetRequest{ContextIDs: []string{res.Result.StructuredContent.ContextID}})
	if err != nil || len(views) != 1 {
		t.Fatalf("get: %v, %d entries", err, len(views))
	}
	if want := strings.TrimSpace(text); views[0].TextContent != want {
		t.Fatalf("stored %d bytes, sent %d: not the same text", len(views[0].TextContent), len(want))
	}
}

// TestStdioOversized100MB: a 100 MB message over the cap is read to its
// end without being held, refused with the error naming the limit, and
// the session serves the next request.
func TestStdioOversized100MB(t *testing.T) {
	const size = 100 << 20
	s := newTestServer(t, Options{DefaultPrincipal: "p", MaxMessageBytes: 1 << 20})
	head := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"store_context","arguments":{"thread_id":"t","source":"user","text":"`
	tail := `"}}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	in := io.MultiReader(strings.NewReader(stdioInit+head), &repeated{c: 'x', n: size - len(head) - 4}, strings.NewReader(tail))
	got := stdioSession(t, s, in)
	want := fmt.Sprintf(`{"error":{"code":-32600,"message":"Message too large: %d bytes, more than the limit of %d bytes (MCP_MAX_REQUEST_BYTES); it was not read"},"id":null,"jsonrpc":"2.0"}`, size, 1<<20)
	if got["null"] != want {
		t.Fatalf("refusal: got %.300q, want %q", got["null"], want)
	}
	if !strings.Contains(got["3"], `"result":{}`) {
		t.Fatalf("the ping after it: %.300q", got["3"])
	}
	if _, ok := got["5"]; ok {
		t.Fatalf("the oversized call was served: %.300q", got["5"])
	}
}

// repeated reads n bytes c.
type repeated struct {
	c byte
	n int
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.c
	}
	r.n -= k
	return k, nil
}

// TestClosingQuote: the quote ending a string is the first one after an
// even number of backslashes, as a byte-by-byte walk finds it.
func TestClosingQuote(t *testing.T) {
	walk := func(b string) int {
		for i := 1; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i
			}
		}
		return -1
	}
	for _, s := range []string{`""`, `"a"`, `"a\"b"`, `"\\"`, `"\\\"x"`, `"\\\\"x"`, `"\u005c"`, `"abc`, `"\"`, `"\\\"`, `"x\\\\\"\\"y`} {
		if got, want := closingQuote([]byte(s), 0), walk(s); got != want {
			t.Errorf("closingQuote(%s) = %d, want %d", s, got, want)
		}
	}
}
