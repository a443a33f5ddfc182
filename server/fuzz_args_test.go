package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/server"
)

// leaks are texts that must never reach a caller: driver and package
// error prefixes and Go type names; and the generic text of an unexpected
// failure (a panic, a driver error), which caller input must never cause.
// The fuzzer skips inputs holding one, since messages may quote the input.
var leaks = []string{"sqlite:", "sqlite3", "fts5:", "pq:", "pgx", "sql logic error", "constraint failed",
	"json: cannot unmarshal", "json: unsupported", "go value of type", "runtime error", "goroutine ",
	"unexpected error occurred"}

// FuzzToolArguments sends JSON arguments of random shape and depth to
// every registered tool over the streamable HTTP transport (as alice,
// provider none), on both store kinds, and checks that the server answers, that a refused call
// (isError) changes nothing (entry rows, grants and the change-log head),
// and that no answer carries a driver or package error text. An input
// that is a JSON object is sent as is; any other input drives a generator
// that writes arguments (including invalid UTF-8, lone surrogate escapes
// and nesting past SQLite's JSON limit) from its bytes.
//
// The quick tier runs a few seeds; CONTEXTD_LONG=1 seeds the whole
// malformed-call corpus. Explore with
//
//	go test ./server -run '^$' -fuzz FuzzToolArguments -fuzztime 2m
func FuzzToolArguments(f *testing.F) {
	type target struct {
		env   *env
		c     *client.Client
		entry string
	}
	var targets []target
	for _, kind := range storeKinds() {
		if kind.noVectors {
			continue // no pgvector there: an engine with embeddings refuses to start
		}
		env := newEnv(f, kind, withEmbedder(&builtin.Embedder{}), withCraftedIDs())
		srv, err := server.New(env.eng, server.Options{DefaultPrincipal: "alice"})
		if err != nil {
			f.Fatal(err)
		}
		ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{}))
		f.Cleanup(ts.Close)
		hc, err := dialMCP(f, ts.URL, "")
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = hc.c.Close() })
		targets = append(targets, target{env, hc.c.MCP(), fuzzSetup(f, hc.c.MCP())})
	}
	tools, params := fuzzTools(f, targets[0].c)
	e := targets[0].entry
	// Crafted ids are the same sequence on every store kind, so the corpus
	// names existing entries on both.
	cases := malformedCases(e)
	step := 8
	if testtier.On(f) {
		step = 1
	}
	for i := 0; i < len(cases); i += step {
		f.Add(uint8(slices.Index(tools, cases[i].tool)), []byte(mustJSON(cases[i].args)))
	}
	for i := range tools {
		f.Add(uint8(i), []byte{byte(i), 3, 200, 0, 6, 0xff, 0xfe, 0xc3, 1, 4, 9, 7, 250})
	}
	f.Add(uint8(slices.Index(tools, "store_context")), []byte(`{"thread_id":"f","source":"user","text":"bad \ud800 surrogate"}`))
	f.Add(uint8(slices.Index(tools, "update_context")), []byte(`{"context_id":"`+e+`","metadata_patch":`+strings.Repeat(`{"a":`, 1100)+`1`+strings.Repeat(`}`, 1100)+`}`))

	f.Fuzz(func(t *testing.T, toolIdx uint8, data []byte) {
		tool := tools[int(toolIdx)%len(tools)]
		raw := data
		if trimmed := bytes.TrimSpace(data); len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
			g := &argGen{b: data, params: params[tool]}
			raw = g.arguments()
		}
		lower := bytes.ToLower(raw)
		for _, l := range leaks {
			if bytes.Contains(lower, []byte(l)) {
				return
			}
		}
		for _, tg := range targets {
			before := fuzzFingerprint(t, tg.env)
			res, err := fuzzCall(t, tg.c, tool, raw)
			answer := ""
			if err != nil {
				answer = err.Error()
			} else {
				b, _ := json.Marshal(res)
				answer = string(b)
			}
			low := strings.ToLower(answer)
			for _, l := range leaks {
				if strings.Contains(low, l) {
					t.Fatalf("%s on %s with %.300s: the answer carries %q: %.600s", tool, tg.env.kind.name, raw, l, answer)
				}
			}
			if err != nil {
				// A protocol-level refusal: the session must still serve.
				if _, err2 := fuzzCall(t, tg.c, "get_statistics", []byte(`{}`)); err2 != nil {
					t.Fatalf("%s on %s with %.300s: %v; the next call failed too: %v", tool, tg.env.kind.name, raw, err, err2)
				}
			}
			if err != nil || res.IsError {
				if after := fuzzFingerprint(t, tg.env); after != before {
					t.Fatalf("%s on %s with %.300s was refused (%.300s) but changed the store", tool, tg.env.kind.name, raw, answer)
				}
			}
		}
	})
}

// fuzzSetup stores a few entries and a grant as alice and returns the id
// of the first one.
func fuzzSetup(tb testing.TB, c *client.Client) string {
	var first string
	for i, text := range []string{"lantern in the harbour", "second entry about lanterns", "# Title\n\nbody text\n\n## Part\n\nmore"} {
		res, err := fuzzCall(tb, c, "store_context", []byte(fmt.Sprintf(`{"thread_id":"fz","source":"user","text":%q,"tags":["a"],"metadata":{"status":"s%d"}}`, text, i)))
		if err != nil || res.IsError {
			tb.Fatalf("setup store: %v %+v", err, res)
		}
		var out struct {
			ContextID string `json:"context_id"`
		}
		_ = json.Unmarshal([]byte(result{res: res}.text()), &out)
		if first == "" {
			first = out.ContextID
		}
	}
	if res, err := fuzzCall(tb, c, "share_context", []byte(`{"context_id":"`+first+`","principal_type":"user","principal_id":"bob","permission":"read"}`)); err != nil || res.IsError {
		tb.Fatalf("setup share: %v %+v", err, res)
	}
	return first
}

// fuzzTools lists the registered tools (sorted) and their parameters.
func fuzzTools(tb testing.TB, c *client.Client) ([]string, map[string][]string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lt, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	params := map[string][]string{}
	var names []string
	for _, tool := range lt.Tools {
		b, _ := json.Marshal(tool)
		var schema struct {
			InputSchema struct {
				Properties map[string]any `json:"properties"`
			} `json:"inputSchema"`
		}
		_ = json.Unmarshal(b, &schema)
		var ps []string
		for p := range schema.InputSchema.Properties {
			ps = append(ps, p)
		}
		slices.Sort(ps)
		names = append(names, tool.Name)
		params[tool.Name] = ps
	}
	slices.Sort(names)
	return names, params
}

// fuzzCall calls tool with raw as the exact argument bytes.
func fuzzCall(tb testing.TB, c *client.Client, tool string, raw []byte) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(raw)
	res, err := c.CallTool(ctx, req)
	if ctx.Err() != nil {
		tb.Fatalf("%s: the server did not answer within 60 s", tool)
	}
	return res, err
}

// fuzzFingerprint is the change-log head, the entry count and a checksum
// of every entry row with its grants.
func fuzzFingerprint(tb testing.TB, env *env) string {
	ctx := context.Background()
	seq, err := env.st.LastSeq(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.New()
	n, after := 0, ""
	for {
		docs, err := env.st.ScanIndexDocs(ctx, after, 500)
		if err != nil {
			tb.Fatal(err)
		}
		if len(docs) == 0 {
			break
		}
		for _, d := range docs {
			b, _ := json.Marshal(d)
			h.Write(b)
			n++
		}
		after = docs[len(docs)-1].ID
	}
	return fmt.Sprintf("seq %d, %d entries, %x", seq, n, h.Sum(nil))
}

// argGen writes tool arguments from fuzz bytes: each byte picks the next
// shape, so the fuzzer's mutations move through shapes and depths.
type argGen struct {
	b      []byte
	i      int
	params []string
	deep   bool // one deep chain per input, so the size stays bounded
	out    bytes.Buffer
}

func (g *argGen) next() byte {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return c
}

// genWords are string values the tools give meaning to.
var genWords = []string{"", " ", "   ", "\t\n", "x", "lantern", "user", "agent", "public", "private", "read", "write",
	"group", "rrf", "match", "prefix", "phrase", "boolean", "content", "count", "files_with_matches", "text", "multimodal",
	"2025-11-20", "2025-11-20T09:00:00Z", "2025-13-45", "29-11-2025", "2025-W48-6", "status", "eq", "ne", "gt", "contains",
	"in", "exists", "is_null", "starts_with", "k.a.b", "a..b", "fz", "bob", "alice", "*", "(", ")", "\"", "\\", "a AND",
	"NOT", "w.rd", "[", "root", "title/part", "null", "true", "[1]", `{"a":1}`, "0", "-1", "1e400", "%s", "' OR 1=1 --",
	"image/png", "iVBORw0KGgo=", "@@@@", "data:image/png;base64,AAAA", "00000000000000000000000000000000", "0190abcd"}

var genKeys = []string{"key", "operator", "value", "case_sensitive", "thread_id", "source", "text", "metadata",
	"metadata_patch", "tags", "images", "data", "mime_type", "context_id", "visibility", "deduplicate", "a", "status"}

var genNumbers = []string{"0", "-1", "1", "5", "7", "100", "101", "1000", "1001", "1000000", "1000001", "2.5", "-0",
	"1e308", "1e400", "-1e400", "12345678901234567890123", "0.000001", "9007199254740993"}

// arguments writes one JSON object of arguments, mostly with the tool's
// own parameter names.
func (g *argGen) arguments() []byte {
	g.out.WriteByte('{')
	n := 1 + int(g.next()%6)
	for m := range n {
		if m > 0 {
			g.out.WriteByte(',')
		}
		c := g.next()
		key := genKeys[int(c)%len(genKeys)]
		if len(g.params) > 0 && c%8 != 0 {
			key = g.params[int(c/8)%len(g.params)]
		}
		g.str(key)
		g.out.WriteByte(':')
		g.value(0)
	}
	g.out.WriteByte('}')
	return g.out.Bytes()
}

func (g *argGen) value(depth int) {
	c := g.next()
	if depth > 6 && c%10 < 3 { // shallow shapes past a few levels
		c = 4
	}
	switch c % 10 {
	case 0, 1:
		g.out.WriteByte('{')
		for m := range int(g.next() % 5) {
			if m > 0 {
				g.out.WriteByte(',')
			}
			k := g.next()
			if k%4 == 0 {
				g.str(genWords[int(k/4)%len(genWords)])
			} else {
				g.str(genKeys[int(k)%len(genKeys)])
			}
			g.out.WriteByte(':')
			g.value(depth + 1)
		}
		g.out.WriteByte('}')
	case 2:
		g.out.WriteByte('[')
		for m := range int(g.next() % 5) {
			if m > 0 {
				g.out.WriteByte(',')
			}
			g.value(depth + 1)
		}
		g.out.WriteByte(']')
	case 3:
		if g.deep {
			g.str("x")
			return
		}
		g.deep = true
		levels := 1 + int(g.next())*6 // up to 1531, past SQLite's 1000
		closers := make([]byte, 0, levels)
		for l := range levels {
			if l%3 == 2 {
				g.out.WriteByte('[')
				closers = append(closers, ']')
			} else {
				g.out.WriteString(`{"a":`)
				closers = append(closers, '}')
			}
		}
		g.out.WriteString("1")
		slices.Reverse(closers)
		g.out.Write(closers)
	case 4, 5:
		g.str(genWords[int(g.next())%len(genWords)])
	case 6:
		// Raw bytes from the input, kept as they are: invalid UTF-8 too.
		n := int(g.next() % 12)
		g.out.WriteByte('"')
		for range n {
			g.rawByte(g.next())
		}
		g.out.WriteByte('"')
	case 7:
		g.out.WriteString(genNumbers[int(g.next())%len(genNumbers)])
	case 8:
		g.out.WriteString([]string{"true", "false", "null"}[g.next()%3])
	case 9:
		// A lone or paired surrogate escape, or an escaped NUL.
		g.out.WriteString([]string{`"\ud800"`, `"a\udc00b"`, `"\ud83d\ude00"`, `"\u0000"`, `"\ufffd"`}[g.next()%5])
	}
}

// str writes s as a JSON string.
func (g *argGen) str(s string) {
	g.out.WriteString(strconv.Quote(s)) // Go quoting of these words is valid JSON
}

func (g *argGen) rawByte(c byte) {
	switch {
	case c == '"' || c == '\\':
		g.out.WriteByte('\\')
		g.out.WriteByte(c)
	case c < 0x20:
		fmt.Fprintf(&g.out, `\u%04x`, c)
	default:
		g.out.WriteByte(c)
	}
}
