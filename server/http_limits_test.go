package server_test

// Memory: the HTTP request cap (413) and the text cap of every
// writing tool (nothing stored on refusal, the largest legal text stored
// intact).

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/auth"
)

func TestHTTPRequestCap413(t *testing.T) {
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := contextd.Open(context.Background(), contextd.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 4096
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{MaxRequestBytes: limit}))
	t.Cleanup(func() { ts.Close(); _ = eng.Close(); _ = st.Close() })

	call := func(text string) string {
		args, _ := json.Marshal(M{"thread_id": "cap", "source": "user", "text": text})
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_context","arguments":` + string(args) + `}}`
	}
	post := func(body io.Reader, length int64) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+server.MCPPath, body)
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	want := "Request body too large: more than 4096 bytes (MCP_MAX_REQUEST_BYTES)"
	big := call(strings.Repeat("x", limit))
	// Declared length over the cap: refused before reading.
	if code, body := post(strings.NewReader(big), int64(len(big))); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, want) {
		t.Fatalf("declared length: %d %s", code, body)
	}
	// Chunked (no length): the MaxBytesReader stops the read at the cap.
	if code, body := post(io.MultiReader(strings.NewReader(big)), -1); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, want) {
		t.Fatalf("chunked: %d %s", code, body)
	}
	// Under the cap it is served (stateless mode needs no initialize).
	small := call("y")
	if code, body := post(strings.NewReader(small), int64(len(small))); code != http.StatusOK || !strings.Contains(body, "Context stored") {
		t.Fatalf("small request: %d %s", code, body)
	}
	s, err := eng.Statistics(contextd.WithPrincipal(context.Background(), contextd.Principal{ID: server.DefaultPrincipal}))
	if err != nil {
		t.Fatal(err)
	}
	if s.TotalEntries != 1 {
		t.Fatalf("entries after two refused requests and one store: %d, want 1", s.TotalEntries)
	}
}

// TestTextCap: store_context, store_context_batch, update_context and
// update_context_batch refuse a text over MAX_TEXT_CHARS with the same
// message and store nothing; a text of exactly the cap is stored intact.
func TestTextCap(t *testing.T) {
	const limit = 1000
	env := newHTTPEnv(t, auth.Config{}, contextd.Config{MaxTextChars: limit})
	c := mustDial(t, env.url, "")
	over := strings.Repeat("é", limit+1) // code points, not bytes
	want := "text is too long: 1001 characters, maximum is 1000 characters"
	if msg := c.fails("store_context", M{"thread_id": "cap", "source": "user", "text": over}); msg != want {
		t.Fatalf("store: %q", msg)
	}
	batch := func(tool string, args M) {
		t.Helper()
		for _, atomic := range []bool{true, false} {
			args["atomic"] = atomic
			res, msg, err := c.call(tool, args)
			// atomic: a tool error naming index 0; not atomic: a failed item.
			if err != nil || !strings.Contains(msg+mustJSON(res), want) {
				t.Fatalf("%s atomic=%v: %v %q %s", tool, atomic, err, msg, mustJSON(res))
			}
		}
	}
	batch("store_context_batch", M{"entries": []M{{"thread_id": "cap", "source": "user", "text": over}}})
	if n := c.ok("get_statistics", M{})["total_entries"]; n != float64(0) {
		t.Fatalf("refused stores left %v entries", n)
	}
	exact := strings.Repeat("é", limit-1) + "z"
	id := c.ok("store_context", M{"thread_id": "cap", "source": "user", "text": exact})["context_id"].(string)
	if msg := c.fails("update_context", M{"context_id": id, "text": over}); msg != want {
		t.Fatalf("update: %q", msg)
	}
	batch("update_context_batch", M{"updates": []M{{"context_id": id, "text": over}}})
	got := c.ok("get_context_by_ids", M{"context_ids": []string{id}})["result"].([]any)[0].(M)
	if got["text_content"] != exact {
		t.Fatalf("the largest legal text did not survive intact (or a refused update changed it): %d characters", len([]rune(got["text_content"].(string))))
	}
}
