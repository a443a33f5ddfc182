package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	_ "github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/server"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// kUpdate reports -update (golden_test.go declares the flag): it rewrites
// the knowledge session scripts' results too.
func kUpdate() bool { f := flag.Lookup("update"); return f != nil && f.Value.String() == "true" }

// kEnv is one engine with the knowledge service and one MCP client per
// principal.
type kEnv struct {
	t       testing.TB
	eng     *contextd.Engine
	svc     *knowledge.Service
	dbPath  string
	emb     model.Embedder
	opts    contextd.Config
	clients map[string]*client.Client

	// pgURL and pgSchema, when set, put the engine on PostgreSQL (a fresh
	// schema of the test script's server) instead of SQLite at dbPath.
	pgURL, pgSchema string
}

// kPostgres names the PostgreSQL runs of kStores.
const kPostgres = "postgresql"

// kStores runs f on SQLite and, when the test script has started a
// PostgreSQL server (pgtest.Env), on PostgreSQL too: the same test
// functions and scripts hold on both stores.
func kStores(t *testing.T, f func(t *testing.T, store string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "sqlite") })
	if os.Getenv(pgtest.Env) != "" {
		t.Run(kPostgres, func(t *testing.T) { f(t, kPostgres) })
	}
}

// newKEnvOn is newKEnv on the named store (kStores).
func newKEnvOn(t testing.TB, emb model.Embedder, store string, opts contextd.Config) *kEnv {
	t.Helper()
	if emb == nil {
		emb = localTestEmbedder(t)
	}
	if emb == nil {
		emb = hashembed.New(64)
	}
	e := &kEnv{t: t, dbPath: filepath.Join(t.TempDir(), "k.db"), emb: emb, opts: opts}
	if store == kPostgres {
		e.pgURL, e.pgSchema = pgtest.Schema(t)
	}
	e.open()
	return e
}

func newKEnv(t testing.TB, emb model.Embedder) *kEnv {
	t.Helper()
	return newKEnvOn(t, emb, "sqlite", contextd.Config{})
}

// open (re)opens the engine and service on the env's database.
func (e *kEnv) open() {
	e.t.Helper()
	ctx := context.Background()
	cfg := e.opts
	cfg.DBPath, cfg.Embedding.Embedder = e.dbPath, e.emb
	if e.pgURL != "" {
		st, err := postgres.Open(ctx, postgres.Options{URL: e.pgURL, Schema: e.pgSchema, PoolMin: 1, PoolMax: 8})
		if err != nil {
			e.t.Fatalf("open postgresql store: %v", err)
		}
		cfg.Store = st
		e.t.Cleanup(func() { _ = st.Close() })
	}
	eng, err := contextd.Open(ctx, cfg)
	if err != nil {
		e.t.Fatalf("open engine: %v", err)
	}
	svc := eng.KnowledgeService()
	e.eng, e.svc, e.clients = eng, svc, map[string]*client.Client{}
	e.t.Cleanup(e.close)
}

func (e *kEnv) close() {
	for _, c := range e.clients {
		_ = c.Close()
	}
	e.clients = nil
	if e.svc != nil {
		_ = e.svc.Close()
		e.svc = nil
	}
	if e.eng != nil {
		_ = e.eng.Close()
		e.eng = nil
	}
}

func (e *kEnv) client(principal string) *client.Client {
	e.t.Helper()
	if c := e.clients[principal]; c != nil {
		return c
	}
	srv, err := server.New(e.eng, server.Options{DefaultPrincipal: principal,
		Tools: append(server.ContextTools(), server.KnowledgeTools()...)})
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		e.t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		e.t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		e.t.Fatal(err)
	}
	e.clients[principal] = c
	return c
}

// call runs one tool call and returns its text, "error: " first when
// the result is an isError result.
func (e *kEnv) call(principal, tool string, args map[string]any) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.client(principal).CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		e.t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "error: " + b.String()
	}
	return b.String()
}

func (e *kEnv) wait() { e.waitFor(120 * time.Second) }

func (e *kEnv) waitFor(d time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := e.eng.WaitKnowledgeIdle(ctx); err != nil {
		e.t.Fatalf("ingestion did not finish: %v", err)
	}
}

var (
	kUUIDRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	kTimeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z`)
	kMsRE   = regexp.MustCompile(` in \d+ms `)
)

// kNormalize hides what changes between runs: ids, clock times, latency.
func kNormalize(s string) string {
	s = kUUIDRE.ReplaceAllString(s, "<uuid>")
	s = kTimeRE.ReplaceAllString(s, "<time>")
	return kMsRE.ReplaceAllString(s, " in <n>ms ")
}

// kSection is one "-- name --" part of a script.
type kSection struct {
	name string
	data []byte
}

func kParseScript(data []byte) []kSection {
	var out []kSection
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		l := strings.TrimRight(string(line), "\n")
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(l) >= 6 {
			out = append(out, kSection{name: strings.TrimSpace(l[3 : len(l)-3])})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].data = append(out[len(out)-1].data, line...)
		}
	}
	return out
}

func kFormatScript(secs []kSection) []byte {
	var b bytes.Buffer
	for _, s := range secs {
		b.WriteString("-- " + s.name + " --\n")
		b.Write(s.data)
	}
	return b.Bytes()
}

// vars replaces "$name" in a call's arguments with values captured
// earlier: "capture NAME" after a call stores the first uuid of its
// result.
func kExpand(s string, vars map[string]string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "$"+k, v)
	}
	return s
}

// TestKnowledgeSessionScripts runs testdata/sessions/*.txtar: sections
// "call PRINCIPAL TOOL [capture NAME]" (JSON arguments) each followed by
// "result" (the normalised text), "pause" (ingestion holds, so
// documents stay Pending) and "wait" (ingestion resumes and finishes).
// `go test ./server -run TestKnowledgeSessionScripts -update` rewrites
// the results.
func TestKnowledgeSessionScripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/knowledge/sessions/*.txtar")
	if len(files) == 0 {
		t.Fatal("no session scripts")
	}
	kStores(t, func(t *testing.T, store string) { runKnowledgeScripts(t, files, store) })
}

func runKnowledgeScripts(t *testing.T, files []string, store string) {
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			secs := kParseScript(data)
			// The scripts pin the hashing embedder's model name and scores.
			e := newKEnvOn(t, hashembed.New(64), store, contextd.Config{})
			vars := map[string]string{}
			changed := false
			for i := 0; i < len(secs); i++ {
				f := strings.Fields(secs[i].name)
				switch {
				case len(f) == 1 && f[0] == "wait":
					e.svc.Resume()
					e.wait()
					continue
				case len(f) == 1 && f[0] == "pause":
					e.svc.Pause()
					continue
				case len(f) >= 3 && f[0] == "call":
				default:
					t.Fatalf("%s: bad section %q", path, secs[i].name)
				}
				if i+1 >= len(secs) || secs[i+1].name != "result" {
					t.Fatalf("%s: %q has no result section", path, secs[i].name)
				}
				var args map[string]any
				raw := kExpand(string(secs[i].data), vars)
				if strings.TrimSpace(raw) != "" {
					if err := json.Unmarshal([]byte(raw), &args); err != nil {
						t.Fatalf("%s: %s: %v", path, secs[i].name, err)
					}
				}
				got := e.call(f[1], f[2], args)
				if len(f) == 5 && f[3] == "capture" {
					vars[f[4]] = kUUIDRE.FindString(got)
				}
				norm := kNormalize(got) + "\n"
				want := &secs[i+1]
				if norm != string(want.data) {
					if kUpdate() && store == "sqlite" {
						want.data, changed = []byte(norm), true
					} else {
						t.Errorf("%s: %s:\ngot:\n%s\nwant:\n%s", path, secs[i].name, norm, want.data)
					}
				}
				i++
			}
			if changed {
				if err := os.WriteFile(path, kFormatScript(secs), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func kJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func kMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
