package server_test

// The conformance suite drives the MCP tools of package server end to end,
// through an in-process MCP client, against the API reference
// (shared/spec/context-server-api.md) and the requirements digest
// (shared/spec/context-server-requirements.md). Every test runs once per
// store kind (forEachStore); a new backend joins the suite by adding one
// element to storeKinds.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/server"
)

// M is a decoded JSON object (tool arguments and tool results).
type M = map[string]any

// storeKind is one persistence backend the suite runs against, with the
// search backend (SEARCH_BACKEND) serving its full-text search.
type storeKind struct {
	name   string
	open   func(t testing.TB) persist.Store
	search string // contextd.BackendInProcess or contextd.BackendNative
	// noVectors marks a kind without semantic search (native search on a
	// PostgreSQL without pgvector): tests with an embedder skip it.
	noVectors bool
}

// storeKinds lists the backends: SQLite with the in-process (Bleve) index,
// SQLite with its own FTS5 (SEARCH_BACKEND=native), and, when the test
// script has started a PostgreSQL server (CONTEXTD_TEST_POSTGRES_URL),
// PostgreSQL with the in-process index and with its own tsvector full text
// (SEARCH_BACKEND=native), each env on a fresh schema.
func storeKinds() []storeKind {
	kinds := []storeKind{
		{name: "sqlite", open: openSQLiteStore, search: contextd.BackendInProcess},
		{name: "sqlite-native", open: openSQLiteStore, search: contextd.BackendNative},
	}
	if os.Getenv(pgtest.Env) != "" {
		kinds = append(kinds, storeKind{name: "postgresql", open: openPostgresStore, search: contextd.BackendInProcess},
			storeKind{name: "postgresql-native", open: openPostgresStore, search: contextd.BackendNative, noVectors: true})
	}
	return kinds
}

// vectorKinds are the store kinds that serve semantic search: storeKinds
// without the PostgreSQL 15 of the test script in native mode (it has no
// pgvector, so an engine with embeddings refuses to start there), and with
// PostgreSQL 18 + pgvector (PGlite) in native mode when the test script
// started it (CONTEXTD_TEST_PGLITE_URL).
func vectorKinds() []storeKind {
	var kinds []storeKind
	for _, k := range storeKinds() {
		if !k.noVectors {
			kinds = append(kinds, k)
		}
	}
	if os.Getenv(pgtest.LiteEnv) != "" {
		kinds = append(kinds, storeKind{name: "postgresql-pgvector", open: openPGliteStore, search: contextd.BackendNative})
	}
	return kinds
}

// openPGliteStore opens a store on the PGlite server: schema public, one
// connection (pgtest.LiteEngineConns), no prepared statements (its one
// backend session is shared by every connection; see pgtest.Lite).
func openPGliteStore(t testing.TB) persist.Store {
	t.Helper()
	url, schema := pgtest.Lite(t)
	none := 0
	st, err := postgres.Open(context.Background(), postgres.Options{URL: url, Schema: schema, PoolMin: 1, PoolMax: pgtest.LiteEngineConns, StatementCacheSize: &none})
	if err != nil {
		t.Fatalf("open PGlite store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestConformancePostgreSQL says in -v output whether the suite also ran
// on PostgreSQL: without a server every conformance test runs on SQLite only.
func TestConformancePostgreSQL(t *testing.T) {
	_ = pgtest.URL(t) // skips with how to run it
	t.Logf("the conformance suite runs on postgresql too (%d store kinds)", len(storeKinds()))
}

func openPostgresStore(t testing.TB) persist.Store {
	t.Helper()
	url, schema := pgtest.Schema(t)
	// A small pool: the suite opens hundreds of stores, a few at a time.
	st, err := postgres.Open(context.Background(), postgres.Options{URL: url, Schema: schema, PoolMin: 1, PoolMax: 8})
	if err != nil {
		t.Fatalf("open postgresql store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func openSQLiteStore(t testing.TB) persist.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ctx.db")
	migratedSQLiteFile(t, path)
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: path})
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// epoch is where every fake clock starts.
var epoch = time.Date(2025, 11, 20, 9, 0, 0, 0, time.UTC)

// fakeClock is Config.Now: time moves only when a test moves it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) set(tm time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = tm.UTC()
}

// idSource is Config.NewID for tests that need crafted identifiers: queued
// ids come first; otherwise ids increase and differ in their first 8 hex
// characters, so any 8-character prefix of one of them is unique.
type idSource struct {
	mu    sync.Mutex
	queue []string
	n     int
}

func (s *idSource) next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		id := s.queue[0]
		s.queue = s.queue[1:]
		return id
	}
	s.n++
	return fmt.Sprintf("%08x%024x", 0x10000000+s.n, s.n)
}

// push queues ids for the next stores, in order.
func (s *idSource) push(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, ids...)
}

// envSettings collects the options of one env.
type envSettings struct {
	configure  []func(*contextd.Config)
	opts       server.Options
	craftedIDs bool
	parallel   bool
	noEmbedder bool // the test pins the configuration without an embedder
}

type envOption func(*envSettings)

func settingsOf(opts []envOption) envSettings {
	var s envSettings
	for _, o := range opts {
		o(&s)
	}
	return s
}

// withConfig tweaks the engine configuration.
func withConfig(f func(*contextd.Config)) envOption {
	return func(s *envSettings) { s.configure = append(s.configure, f) }
}

// withAnonymousPrincipal is ACCESS_CONTROL_ANONYMOUS_PRINCIPAL.
func withAnonymousPrincipal(p string) envOption {
	return withConfig(func(c *contextd.Config) { c.AnonymousPrincipal = p })
}

// withPublishRole is ACCESS_CONTROL_PUBLISH_ROLE.
func withPublishRole(role string) envOption {
	return withConfig(func(c *contextd.Config) { c.PublishRole = role })
}

// withIndexedFields is METADATA_INDEXED_FIELDS.
func withIndexedFields(fields ...contextd.IndexedField) envOption {
	return withConfig(func(c *contextd.Config) { c.IndexedFields = fields })
}

// withIncludeSummary is GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY=true.
func withIncludeSummary() envOption {
	return withConfig(func(c *contextd.Config) { c.IncludeSummaryInGet = true })
}

// withDisabledTools is DISABLED_TOOLS, passed to the server as given.
func withDisabledTools(names ...string) envOption {
	return func(s *envSettings) { s.opts.DisabledTools = names }
}

// withInstructions is MCP_SERVER_INSTRUCTIONS set (possibly to "").
func withInstructions(text string) envOption {
	return func(s *envSettings) { s.opts.Instructions = &text }
}

// withCraftedIDs installs an idSource as Config.NewID (env.ids).
func withCraftedIDs() envOption {
	return func(s *envSettings) { s.craftedIDs = true }
}

// withParallelKinds runs the store kinds of forEachStore and
// forEachStoreEmbed at once (t.Parallel), each on its own env. It is for
// the package's longest tests: under -race in CI (four kinds with
// PostgreSQL) TestAccessProperty alone took about 300 s of the package's
// 461 s, run kind after kind on one core while the other core sat idle
// at the end of the step, which put the suite over its 30 minutes.
func withParallelKinds() envOption {
	return func(s *envSettings) { s.parallel = true }
}

// env is one engine over one store, with one MCP client per principal.
type env struct {
	t        testing.TB // the test (or fuzz target) that owns the env and its clients
	kind     storeKind
	eng      *contextd.Engine
	st       persist.Store
	clock    *fakeClock
	ids      *idSource // nil unless withCraftedIDs
	settings envSettings

	mu       sync.Mutex
	sessions map[string]*session
}

// session is one connected MCP client bound to one principal.
type session struct {
	c    *client.Client
	init *mcp.InitializeResult
}

// forEachStore runs fn against a fresh env on every store kind.
func forEachStore(t *testing.T, fn func(t *testing.T, env *env), opts ...envOption) {
	t.Helper()
	parallel := settingsOf(opts).parallel
	for _, kind := range storeKinds() {
		t.Run(kind.name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			skipWithoutVectors(t, kind, opts)
			fn(t, newEnv(t, kind, opts...))
		})
	}
}

// skipWithoutVectors skips a kind without semantic search (native search
// on a PostgreSQL without pgvector, which refuses to start with an
// embedder) when opts configure an embedder; postgresql-pgvector (PGlite)
// covers native search with vectors on PostgreSQL.
func skipWithoutVectors(t testing.TB, kind storeKind, opts []envOption) {
	t.Helper()
	if !kind.noVectors {
		return
	}
	s := settingsOf(opts)
	var c contextd.Config
	for _, f := range s.configure {
		f(&c)
	}
	if c.Embedding.Embedder != nil {
		t.Skipf("%s has no pgvector: an engine with embeddings refuses to start there", kind.name)
	}
}

func newEnv(t testing.TB, kind storeKind, opts ...envOption) *env {
	t.Helper()
	s := settingsOf(opts)
	st := kind.open(t)
	clock := &fakeClock{now: epoch}
	// The suite pins the reference's fusion (R-360, HYBRID_FUSION=rrf);
	// TestHybridConvexDefault covers the default.
	cfg := contextd.Config{Store: st, Now: clock.Now, FTS: contextd.FTSConfig{Backend: kind.search}, Hybrid: contextd.HybridConfig{Fusion: "rrf"}}
	var ids *idSource
	if s.craftedIDs {
		ids = &idSource{}
		cfg.NewID = ids.next
	}
	for _, f := range s.configure {
		f(&cfg)
	}
	// A kind without vectors (PostgreSQL without pgvector, native)
	// refuses an embedder: it runs without one, as always.
	if cfg.Embedding.Embedder == nil && !s.noEmbedder && !kind.noVectors {
		cfg.Embedding.Embedder = localTestEmbedder(t)
	}
	eng, err := contextd.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open engine on %s: %v", kind.name, err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return &env{
		t: t, kind: kind, eng: eng, st: st, clock: clock, ids: ids,
		settings: s, sessions: map[string]*session{},
	}
}

// session returns the (cached) connected client of principal.
func (e *env) session(t testing.TB, principal string) *session {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if s, ok := e.sessions[principal]; ok {
		return s
	}
	opts := e.settings.opts
	opts.DefaultPrincipal = principal
	srv, err := server.New(e.eng, opts)
	if err != nil {
		t.Fatalf("server.New(%q): %v", principal, err)
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		t.Fatalf("in-process client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "contextd-conformance", Version: "1.0.0"},
	}})
	if err != nil {
		t.Fatalf("initialize as %q: %v", principal, err)
	}
	// The env's test owns the client: it outlives the subtest that made it.
	e.t.Cleanup(func() { _ = c.Close() })
	s := &session{c: c, init: init}
	e.sessions[principal] = s
	return s
}

// as returns the MCP client of principal.
func (e *env) as(t testing.TB, principal string) *client.Client {
	t.Helper()
	return e.session(t, principal).c
}

// result is the outcome of one tool call.
type result struct {
	tool    string
	res     *mcp.CallToolResult
	callErr error // a protocol-level error (not a tool result)
}

// call invokes tool as principal.
func (e *env) call(t *testing.T, principal, tool string, args M) result {
	t.Helper()
	c := e.as(t, principal)
	if args == nil {
		args = M{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	return result{tool: tool, res: res, callErr: err}
}

// text is the first text content of the result ("" if none).
func (r result) text() string {
	if r.res == nil || len(r.res.Content) == 0 {
		return ""
	}
	switch c := r.res.Content[0].(type) {
	case mcp.TextContent:
		return c.Text
	case *mcp.TextContent:
		return c.Text
	}
	return ""
}

// failed reports whether the call failed in any way (a tool error or a
// protocol error such as an unknown tool).
func (r result) failed() bool {
	return r.callErr != nil || r.res == nil || r.res.IsError
}

func (r result) describe() string {
	if r.callErr != nil {
		return "protocol error: " + r.callErr.Error()
	}
	if r.res == nil {
		return "no result"
	}
	return fmt.Sprintf("isError=%v text=%s", r.res.IsError, r.text())
}

// structured decodes the structured content of a successful result.
func (r result) structured(t *testing.T) any {
	t.Helper()
	var raw []byte
	switch {
	case len(r.res.RawStructuredContent) > 0:
		raw = r.res.RawStructuredContent
	case r.res.StructuredContent != nil:
		b, err := json.Marshal(r.res.StructuredContent)
		if err != nil {
			t.Fatalf("%s: marshal structured content: %v", r.tool, err)
		}
		raw = b
	default:
		t.Fatalf("%s: success without structuredContent; text: %s", r.tool, r.text())
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: structured content is not JSON: %v", r.tool, err)
	}
	return v
}

// ok fails the test unless the call succeeded and returns the structured
// content, which the text content must repeat as JSON.
func (r result) ok(t *testing.T) M {
	t.Helper()
	if r.failed() {
		t.Fatalf("%s: want success, got %s", r.tool, r.describe())
	}
	v := r.structured(t)
	m, isObj := v.(M)
	if !isObj {
		t.Fatalf("%s: structured content is %T, want a JSON object", r.tool, v)
	}
	var tv any
	if err := json.Unmarshal([]byte(r.text()), &tv); err != nil {
		t.Fatalf("%s: text content is not the JSON result: %v (text %q)", r.tool, err, r.text())
	}
	if !reflect.DeepEqual(tv, v) && !(len(m) == 1 && reflect.DeepEqual(tv, m["result"])) {
		t.Fatalf("%s: text content %s differs from structured content %s", r.tool, r.text(), mustJSON(v))
	}
	return m
}

// err fails the test unless the call came back as a tool error result
// (isError) and returns its message.
func (r result) err(t *testing.T) string {
	t.Helper()
	if r.callErr != nil {
		t.Fatalf("%s: want an isError tool result, got %s", r.tool, r.describe())
	}
	if r.res == nil || !r.res.IsError {
		t.Fatalf("%s: want isError, got success: %s", r.tool, r.text())
	}
	if r.text() == "" {
		t.Fatalf("%s: isError result carries no message", r.tool)
	}
	return r.text()
}

// list returns the entries of a get_context_by_ids result ({"result":[...]}).
func (r result) list(t *testing.T) []M {
	t.Helper()
	m := r.ok(t)
	raw, present := m["result"]
	if !present {
		t.Fatalf("%s: structured content has no \"result\" key: %s", r.tool, mustJSON(m))
	}
	items, isList := raw.([]any)
	if !isList {
		t.Fatalf("%s: result is %T, want a list", r.tool, raw)
	}
	return objs(t, items)
}

// ---- tool shortcuts -------------------------------------------------------

// store calls store_context as principal and returns the context_id.
func (e *env) store(t *testing.T, principal string, args M) string {
	t.Helper()
	res := e.call(t, principal, "store_context", args).ok(t)
	id := str(t, res, "context_id")
	if !canonicalID.MatchString(id) {
		t.Fatalf("store_context: context_id %q is not canonical", id)
	}
	return id
}

// storeText stores a plain text entry.
func (e *env) storeText(t *testing.T, principal, thread, source, text string) string {
	t.Helper()
	return e.store(t, principal, M{"thread_id": thread, "source": source, "text": text})
}

// get calls get_context_by_ids as principal.
func (e *env) get(t *testing.T, principal string, ids ...string) []M {
	t.Helper()
	return e.call(t, principal, "get_context_by_ids", M{"context_ids": ids}).list(t)
}

// getOne returns the entry id as principal sees it; fails if not readable.
func (e *env) getOne(t *testing.T, principal, id string) M {
	t.Helper()
	got := e.get(t, principal, id)
	if len(got) != 1 {
		t.Fatalf("get_context_by_ids([%s]) as %s: got %d entries, want 1", id, principal, len(got))
	}
	return got[0]
}

// readable reports whether principal can fetch id.
func (e *env) readable(t *testing.T, principal, id string) bool {
	t.Helper()
	return len(e.get(t, principal, id)) == 1
}

// stats calls get_statistics as principal.
func (e *env) stats(t *testing.T, principal string) M {
	t.Helper()
	return e.call(t, principal, "get_statistics", nil).ok(t)
}

// total is get_statistics.total_entries as principal.
func (e *env) total(t *testing.T, principal string) int {
	t.Helper()
	return int(num(t, e.stats(t, principal), "total_entries"))
}

// search calls search_context as principal and fails on a tool error.
func (e *env) search(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "search_context", args).ok(t)
}

// resultIDs lists the ids of a search response, in order.
func resultIDs(t *testing.T, resp M) []string {
	t.Helper()
	var ids []string
	for _, r := range objs(t, arr(t, resp, "results")) {
		ids = append(ids, str(t, r, "id"))
	}
	return ids
}

// threadIDs lists the ids principal finds in thread (newest first).
func (e *env) threadIDs(t *testing.T, principal, thread string) []string {
	t.Helper()
	return resultIDs(t, e.search(t, principal, M{"thread_id": thread, "limit": 100}))
}

// asPrincipal is a context for direct engine calls (schema-bypassing checks).
func asPrincipal(id string) context.Context {
	return contextd.WithPrincipal(context.Background(), contextd.Principal{ID: id})
}

// repeat returns n copies of s joined.
func repeat(s string, n int) string { return strings.Repeat(s, n) }

// tagsN returns n distinct tags.
func tagsN(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tag-%03d", i)
	}
	return out
}
