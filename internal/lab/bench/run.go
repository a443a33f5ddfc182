package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/setup"
)

// Options configures a run. The zero value of every field means its
// default; Size is required.
type Options struct {
	Size    int    // entries to store
	DataDir string // holds cranfield/ (testdata of a clone); "" = Go doc comments only
	// Backends are the SEARCH_BACKEND values to measure, in order; nil =
	// in-process then native.
	Backends []string
	// Queries is the number of calls per search measurement (default
	// 100); grep_context makes half as many.
	Queries int
	// LookupEnv is the configuration's environment (default os.LookupEnv);
	// DB_PATH and SEARCH_BACKEND are set by the run.
	LookupEnv func(string) (string, bool)
	TempDir   string // where the databases are built (default os.TempDir)
	// KeepDir, when set, is where the databases are built (one folder per
	// backend, created) and left for inspection or profiling.
	KeepDir  string
	Progress io.Writer // progress lines (default discarded)
}

// batchSize is the number of entries per store_context_batch call.
const batchSize = 100

// Run builds a database per backend and measures it (see the package
// comment).
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Size < 1 {
		return nil, fmt.Errorf("size must be at least 1, got %d", opt.Size)
	}
	if opt.Queries < 0 {
		return nil, fmt.Errorf("queries must be at least 1, got %d", opt.Queries)
	}
	if opt.Queries == 0 {
		opt.Queries = 100
	}
	if opt.Backends == nil {
		opt.Backends = []string{contextd.BackendInProcess, contextd.BackendNative}
	}
	for _, b := range opt.Backends {
		if b != contextd.BackendInProcess && b != contextd.BackendNative {
			return nil, fmt.Errorf("unknown search backend %q (in-process or native)", b)
		}
	}
	if opt.LookupEnv == nil {
		opt.LookupEnv = os.LookupEnv
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	began := time.Now()
	corpus, err := LoadCorpus(opt.DataDir, opt.Size)
	if err != nil {
		return nil, err
	}
	rep := newReport(opt, corpus)
	w := &workload{opt: opt, corpus: corpus, size: corpus.Len(), queries: makeQueries(corpus, opt.Queries)}
	for _, b := range opt.Backends {
		if err := w.runBackend(ctx, b, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", b, err)
		}
	}
	got, exact := w.tops[contextd.BackendInProcess], w.tops[contextd.BackendNative]
	if got != nil && exact != nil {
		rep.recall("semantic_search_context", "six words, recall@10 against the native backend's exact scan", contextd.BackendInProcess, recallAt10(got, exact), len(exact))
		rep.recall("semantic_search_context", "six words, recall@10 against the native backend's exact scan", contextd.BackendNative, 1, len(exact))
	}
	rep.ElapsedS = time.Since(began).Seconds()
	return rep, nil
}

// workload is one run's corpus and queries.
type workload struct {
	opt     Options
	corpus  *Corpus // dropped once stored (read again for the next backend)
	size    int
	queries queries
	mid     time.Time // a time between the stores of the two halves
	reranks bool      // the configuration reranks (ENABLE_RERANKING)
	// tops holds each backend's semantic top 10 per natural query, for
	// the recall row (recall.go).
	tops map[string][][]topHit
}

// handle is an open engine with its MCP server and in-process client.
type handle struct {
	eng *contextd.Engine
	c   *client.Client
}

func (h *handle) close() {
	if h.c != nil {
		h.c.Close()
	}
	if h.eng != nil {
		h.eng.Close()
	}
}

// open opens the engine of cfg and connects an in-process MCP client.
func open(ctx context.Context, cfg setup.Config) (*handle, error) {
	eng, err := contextd.Open(ctx, cfg.Engine)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	h := &handle{eng: eng}
	srv, err := server.New(eng, cfg.Server)
	if err != nil {
		h.close()
		return nil, fmt.Errorf("server: %w", err)
	}
	if h.c, err = client.NewInProcessClient(srv.MCP()); err == nil {
		err = h.c.Start(ctx)
	}
	if err == nil {
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "contextd-bench", Version: contextd.Version}
		_, err = h.c.Initialize(ctx, init)
	}
	if err != nil {
		h.close()
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	return h, nil
}

// call makes one tool call and returns its result text; a tool error is
// an error.
func (h *handle) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := h.c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: tool error: %s", tool, text.String())
	}
	return text.String(), nil
}

// config reads the configuration as the server does, for a database in
// dir and the backend.
func (w *workload) config(dir, backend string) (setup.Config, error) {
	return serverConfig(w.opt.LookupEnv, dir, backend, nil)
}

// serverConfig reads the configuration from lookup as the server does,
// for a database in dir and the backend, with the variables of over
// taking precedence.
func serverConfig(lookup func(string) (string, bool), dir, backend string, over map[string]string) (setup.Config, error) {
	db := filepath.Join(dir, "bench.db")
	cfg, err := setup.FromEnv(func(k string) (string, bool) {
		switch k {
		case "DB_PATH":
			return db, true
		case "SEARCH_BACKEND":
			return backend, true
		}
		if v, ok := over[k]; ok {
			return v, true
		}
		return lookup(k)
	})
	if err != nil {
		return cfg, fmt.Errorf("configuration: %w", err)
	}
	// The snapshots stay in the bench's folder with every store (a
	// server database's default is under ~/.mcp), where the start-up
	// measurement without them removes them.
	cfg.Engine.IndexPath = db
	cfg.Engine.FTS.Progress = io.Discard
	cfg.Server.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Server.Version = contextd.Version
	return cfg, nil
}

func (w *workload) progress(format string, args ...any) {
	fmt.Fprintf(w.opt.Progress, "bench: "+format+"\n", args...)
}

// runBackend builds a fresh database for backend and measures it.
func (w *workload) runBackend(ctx context.Context, backend string, rep *Report) error {
	var dir string
	var err error
	if w.opt.KeepDir != "" {
		dir = filepath.Join(w.opt.KeepDir, backend)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("keep dir: %w", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			return fmt.Errorf("keep dir %s is not empty", dir)
		}
	} else {
		if dir, err = os.MkdirTemp(w.opt.TempDir, "contextd-bench-"); err != nil {
			return fmt.Errorf("temp dir: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	cfg, err := w.config(dir, backend)
	if err != nil {
		return err
	}
	w.reranks = cfg.Engine.Rerank.Reranker != nil
	h, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { h.close() }()
	idle := func() (Memory, error) { return measureMemory(ctx, h.eng) }
	if !w.corpus.Loaded() { // the previous backend dropped it
		c, err := LoadCorpus(w.opt.DataDir, w.opt.Size)
		if err != nil {
			return err
		}
		w.corpus = c
	}
	if err := w.store(ctx, h, backend, rep); err != nil {
		return err
	}
	// The server in this process does not hold the corpus; the bench does
	// not either while it measures memory (the Go tree's paragraphs were
	// about 20 MiB of the heap at 100k entries; above them, the sentence
	// pool the composed entries are made from).
	w.corpus.Drop()
	if err := rep.memory(backend, "after loading", idle); err != nil {
		return err
	}
	for _, q := range w.searches(h) {
		w.progress("%s: %s", backend, q.name)
		c, err := measure(ctx, h, q.tool, q.n, q.args)
		if err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
		rep.latency(q.group, q.name, backend, c)
	}
	if h.eng.SemanticAvailable() {
		w.progress("%s: semantic top 10 for the recall row", backend)
		tops, err := w.semanticTops(ctx, h)
		if err != nil {
			return err
		}
		if w.tops == nil {
			w.tops = map[string][][]topHit{}
		}
		w.tops[backend] = tops
	}
	if err := rep.memory(backend, "after the searches", idle); err != nil {
		return err
	}
	h.close()
	if h, err = w.otherReranking(ctx, dir, backend, rep); err != nil {
		return err
	}
	h.close()
	h = &handle{}
	// Start-up: with the in-process indexes' snapshots present, then
	// without them (rebuilt from SQL).
	db := cfg.Engine.DBPath
	for _, snap := range []bool{true, false} {
		if !snap {
			for _, d := range []string{db + ".index", db + ".vectors"} {
				if err := os.RemoveAll(d); err != nil {
					return fmt.Errorf("remove snapshot: %w", err)
				}
			}
		}
		w.progress("%s: start-up (snapshots %v)", backend, snap)
		t0 := time.Now()
		if h, err = open(ctx, cfg); err != nil {
			return err
		}
		opened := time.Since(t0)
		if err := w.ready(ctx, h); err != nil {
			return err
		}
		ready := time.Since(t0)
		name := "start-up with index snapshots"
		if !snap {
			name = "start-up without index snapshots (rebuilt from SQL)"
		}
		rep.startup(name, backend, opened, ready)
		if snap {
			// Steady state of a restarted server: a few calls of each search.
			for _, q := range w.searches(h) {
				if _, err := measure(ctx, h, q.tool, min(q.n, 10), q.args); err != nil {
					return fmt.Errorf("%s: %w", q.name, err)
				}
			}
			if err := rep.memory(backend, "restarted from snapshots, after searches", idle); err != nil {
				return err
			}
		}
		h.close()
		h = &handle{}
	}
	return nil
}

// otherReranking reopens the database in dir with ENABLE_RERANKING the
// other way round from the configuration and measures the hybrid row
// again, so both settings are reported from one database and one run.
// The returned handle is the reopened engine (empty without embeddings).
func (w *workload) otherReranking(ctx context.Context, dir, backend string, rep *Report) (*handle, error) {
	over := map[string]string{"ENABLE_RERANKING": strconv.FormatBool(!w.reranks)}
	cfg, err := serverConfig(w.opt.LookupEnv, dir, backend, over)
	if err != nil {
		return &handle{}, err
	}
	h, err := open(ctx, cfg)
	if err != nil {
		return &handle{}, err
	}
	if !h.eng.SemanticAvailable() {
		return h, nil
	}
	q := w.hybridSearch(cfg.Engine.Rerank.Reranker != nil)
	w.progress("%s: %s", backend, q.name)
	c, err := measure(ctx, h, q.tool, q.n, q.args)
	if err != nil {
		return h, fmt.Errorf("%s: %w", q.name, err)
	}
	rep.latency(q.group, q.name, backend, c)
	return h, nil
}

// store loads the corpus through store_context_batch and reports the
// throughput acknowledged and searchable (both in-process indexes caught
// up).
func (w *workload) store(ctx context.Context, h *handle, backend string, rep *Report) error {
	n := w.corpus.Len()
	w.progress("%s: storing %d entries", backend, n)
	t0 := time.Now()
	for i := 0; i < n; i += batchSize {
		if i <= n/2 && n/2 < i+batchSize {
			w.mid = time.Now().UTC()
		}
		entries := make([]any, 0, batchSize)
		for j := i; j < min(i+batchSize, n); j++ {
			entries = append(entries, Entry(j, w.corpus.Text(j)))
		}
		out, err := h.call(ctx, "store_context_batch", map[string]any{"entries": entries})
		if err != nil {
			return err
		}
		var res struct {
			Succeeded int `json:"succeeded"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			return fmt.Errorf("store_context_batch: bad response: %w", err)
		}
		if res.Succeeded != len(entries) {
			return fmt.Errorf("store_context_batch: %d of %d entries stored: %s", res.Succeeded, len(entries), out)
		}
	}
	acked := time.Since(t0)
	if err := w.ready(ctx, h); err != nil {
		return err
	}
	searchable := time.Since(t0)
	// The searches are measured on the settled index: the merges the load
	// set off, the compaction after them (index/compact.go), and the
	// warm-ups of what they made, done. How long that took is reported.
	if err := h.eng.WaitIndexSettled(ctx); err != nil {
		return err
	}
	settled := time.Since(t0)
	rep.rate("store", "store_context_batch, 100 per call, acknowledged", backend, float64(n)/acked.Seconds())
	rep.rate("store", "store_context_batch, until searchable by every index", backend, float64(n)/searchable.Seconds())
	rep.rate("store", "store_context_batch, until the full-text index's merges and compaction are done", backend, float64(n)/settled.Seconds())
	w.progress("%s: stored in %.1f s, searchable after %.1f s, merged and compacted after %.1f s", backend, acked.Seconds(), searchable.Seconds(), settled.Seconds())
	return nil
}

// ready makes one full-text and one semantic search, which catch the
// in-process indexes up with SQL (loading or rebuilding them first).
func (w *workload) ready(ctx context.Context, h *handle) error {
	if _, err := h.call(ctx, "fts_search_context", map[string]any{"query": "the", "limit": 1}); err != nil {
		return err
	}
	if h.eng.SemanticAvailable() {
		if _, err := h.call(ctx, "semantic_search_context", map[string]any{"query": "the", "limit": 1}); err != nil {
			return err
		}
	}
	return nil
}

// measure makes n calls of tool with args(i) and returns their latencies,
// sorted.
func measure(ctx context.Context, h *handle, tool string, n int, args func(i int) map[string]any) (calls, error) {
	c := calls{lat: make([]time.Duration, 0, n)}
	r0, ok0 := diskRead()
	for i := range n {
		a := args(i)
		t0 := time.Now()
		if _, err := h.call(ctx, tool, a); err != nil {
			return calls{}, err
		}
		c.lat = append(c.lat, time.Since(t0))
	}
	if r1, ok1 := diskRead(); ok0 && ok1 {
		c.read = r1 - r0
	}
	sort.Slice(c.lat, func(i, j int) bool { return c.lat[i] < c.lat[j] })
	return c, nil
}

// calls are a search row's measurement: its latencies, sorted, and what
// the process read from storage meanwhile (diskRead; 0 where unknown).
// On a machine whose page cache does not hold the database (a larger
// store, or a host that takes back pages idle for a minute), a row's
// first calls read the entries they return from the disk, which their
// latencies include: the read says so (docs/benchmarks.md).
type calls struct {
	lat  []time.Duration
	read int64
}

// cpuName is the processor's model name (lscpu's), with the core count.
func cpuName() string {
	name := runtime.GOARCH
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				name = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s (%d cores)", name, runtime.NumCPU())
}
