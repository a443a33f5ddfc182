package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/ingest"
	"github.com/contextd/contextd/internal/ingest/mcpcall"
	"github.com/contextd/contextd/internal/syncplan"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/setup"
)

// exitPartial: the sync finished but some files could not be brought in
// line (each is listed with its reason; what was stored for it is kept).
const exitPartial = 3

const ingestUsage = `usage: contextd ingest PATH --thread kb:NAME [flags]

Syncs the documents under PATH into the corpus thread: Markdown, plain
text, source code, HTML, PDF, DOCX, PPTX, CSV and JSON files become one
entry each (source id = path relative to PATH), kept in line by
plan_context_sync: new files are stored, changed ones updated, removed
ones deleted. .gitignore and .contextignore files are honoured. A file
that cannot be read in this run is not stored, and the entry an earlier
run stored for it, if any, is left as it is (never deleted).

Without --server it opens the local database (DB_PATH and the rest of the
environment, as the server does); with --server it calls a running
server over MCP (streamable HTTP) with the same plan and the same result.

flags:
  --thread T          corpus thread (required), e.g. kb:handbook
  --include GLOB      only files whose path matches (repeatable; ** allowed)
  --exclude GLOB      leave out files whose path matches (repeatable)
  --tag TAG           tag every entry (repeatable)
  --visibility V      private or public (default: the server's default)
  --server URL        sync through the MCP server at URL (http://host:port)
  --token T           bearer token for --server
  --dry-run           print the plan, write nothing
  --allow-empty       let a folder without documents delete the whole
                      corpus (refused otherwise: an unmounted folder
                      looks empty)
  --no-cache          extract every file, even those unchanged since the
                      last run (size and modification time)
  --watch             after the sync, re-sync on every change (debounced)
  --debounce D        quiet time before a --watch re-sync (default 500ms)
  --max-file-mb N     skip (keep) files larger than N MiB (default 32)
  --timeout D         give up extracting one file after D (default 30s)

Exit codes: 0 in line, 3 done but some files failed (listed), 2 usage,
78 configuration (an invalid variable, a database that cannot be reached,
a token --server refuses), 1 the sync stopped (rerun: it resumes from the
plan).
`

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// ingestArgs are the parsed arguments of contextd ingest.
type ingestArgs struct {
	path, thread, server, token, visibility string
	include, exclude, tags                  multiFlag
	dryRun, watch, noCache, allowEmpty      bool
	debounce, timeout                       time.Duration
	maxFileMB                               int
}

// parseIngest parses flags placed before or after PATH.
func parseIngest(args []string) (*ingestArgs, error) {
	a := &ingestArgs{}
	fs := flag.NewFlagSet("contextd ingest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.thread, "thread", "", "")
	fs.StringVar(&a.server, "server", "", "")
	fs.StringVar(&a.token, "token", "", "")
	fs.StringVar(&a.visibility, "visibility", "", "")
	fs.Var(&a.include, "include", "")
	fs.Var(&a.exclude, "exclude", "")
	fs.Var(&a.tags, "tag", "")
	fs.BoolVar(&a.dryRun, "dry-run", false, "")
	fs.BoolVar(&a.watch, "watch", false, "")
	fs.BoolVar(&a.noCache, "no-cache", false, "")
	fs.BoolVar(&a.allowEmpty, "allow-empty", false, "")
	fs.DurationVar(&a.debounce, "debounce", ingest.DefaultDebounce, "")
	fs.DurationVar(&a.timeout, "timeout", extract.DefaultTimeout, "")
	fs.IntVar(&a.maxFileMB, "max-file-mb", extract.DefaultMaxBytes>>20, "")
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		operands = append(operands, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(operands) != 1:
		return nil, errors.New("exactly one PATH is required")
	case strings.TrimSpace(a.thread) == "":
		return nil, errors.New("--thread is required (e.g. --thread kb:handbook)")
	case pyfmt.Strip(a.thread) != a.thread:
		return nil, errors.New("--thread must not start or end with whitespace (the server would store the entries in the stripped thread)")
	case utf8.RuneCountInString(a.thread) > 256:
		return nil, errors.New("--thread is longer than 256 characters")
	case a.visibility != "" && a.visibility != "private" && a.visibility != "public":
		return nil, fmt.Errorf("--visibility must be private or public, got %q", a.visibility)
	case a.token != "" && a.server == "":
		return nil, errors.New("--token needs --server")
	case a.maxFileMB < 1 || a.timeout <= 0 || a.debounce <= 0:
		return nil, errors.New("--max-file-mb, --timeout and --debounce must be positive")
	}
	if err := errors.Join(ingest.CheckGlobs(a.include), ingest.CheckGlobs(a.exclude)); err != nil {
		return nil, err
	}
	a.path = operands[0]
	return a, nil
}

// runIngest is contextd ingest.
func runIngest(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, ingestUsage)
			return exitOK
		}
	}
	a, err := parseIngest(args)
	if err != nil {
		fmt.Fprintf(stderr, "contextd ingest: %v\n%s", err, ingestUsage)
		return exitUsage
	}
	caller, closeFn, code := connect(ctx, a, lookupEnv, stderr)
	if caller == nil {
		return code
	}
	defer closeFn()
	s := &ingest.Syncer{Caller: caller, Thread: a.thread, DryRun: a.dryRun, AllowEmpty: a.allowEmpty,
		Settings: ingest.Settings{Tags: a.tags, Visibility: a.visibility},
		Extract:  extract.Options{MaxBytes: int64(a.maxFileMB) << 20, Timeout: a.timeout}}
	if !a.noCache {
		s.Cache = openCache(a, lookupEnv)
	}
	if a.dryRun {
		s.Plan = func(r ingest.Range, p *syncplan.Plan, docs []*ingest.Doc) { printPlan(stdout, r, p) }
	}
	once := func(ctx context.Context) (ingest.Summary, error) {
		files, skipped, err := ingest.Walk(ctx, a.path, ingest.WalkOptions{Include: a.include, Exclude: a.exclude})
		if err != nil {
			return ingest.Summary{}, err
		}
		s.Progress = ingest.NewProgress(stderr)
		sum, err := s.Sync(ctx, files)
		if errors.Is(err, cerrors.ErrInvalid) && len(files) == 0 {
			return sum, fmt.Errorf("%s holds no documents: a sync would delete every entry of %s (pass --allow-empty to do that)", a.path, a.thread)
		}
		for _, p := range skipped.Invalid {
			sum.Failures = append(sum.Failures, ingest.Failure{SourceID: p, Reason: "path is not a valid source id (UTF-8, at most 256 characters)"})
		}
		printSummary(stdout, sum, skipped, a.dryRun)
		return sum, err
	}
	sum, err := once(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "contextd ingest: %v\n", err)
		if !a.watch {
			return exitFail
		}
	}
	if a.watch && !a.dryRun {
		fmt.Fprintf(stderr, "contextd ingest: watching %s (Ctrl-C to stop)\n", a.path)
		werr := ingest.Watch(ctx, a.path, a.debounce, func(ctx context.Context) error {
			_, err := once(ctx)
			return err
		}, func(err error) { fmt.Fprintf(stderr, "contextd ingest: %v\n", err) })
		if werr != nil {
			fmt.Fprintf(stderr, "contextd ingest: %v\n", werr)
			return exitFail
		}
		return exitOK
	}
	if len(sum.Failures) > 0 {
		return exitPartial
	}
	return exitOK
}

// connect returns the caller of the sync tools: an in-process MCP client
// on the local database, or a streamable HTTP client of --server.
func connect(ctx context.Context, a *ingestArgs, lookupEnv func(string) (string, bool), stderr io.Writer) (ingest.Caller, func(), int) {
	var c *client.Client
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if a.server != "" {
		u, err := url.Parse(a.server)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fmt.Fprintf(stderr, "contextd ingest: --server must be an http(s) URL, got %q\n", a.server)
			return nil, nil, exitUsage
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = server.MCPPath
		}
		var opts []transport.StreamableHTTPCOption
		if a.token != "" {
			opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + a.token}))
		}
		if c, err = client.NewStreamableHttpClient(u.String(), opts...); err != nil {
			fmt.Fprintf(stderr, "contextd ingest: %v\n", err)
			return nil, nil, exitFail
		}
	} else {
		cfg, err := setup.FromEnv(lookupEnv)
		if err != nil {
			fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
			return nil, nil, exitConfig
		}
		// DISABLED_TOOLS and ENABLE_CONTEXT_SYNC shape what a served
		// client sees; the owner's own command needs its tools.
		cfg.Server.DisabledTools = nil
		cfg.Server.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		eng, err := contextd.Open(ctx, cfg.Engine)
		if err != nil {
			msg, code := openFailure(cfg.Engine, err)
			fmt.Fprintf(stderr, "contextd: %s\n", msg)
			return nil, nil, code
		}
		closers = append(closers, func() { _ = eng.Close() })
		srv, err := server.New(eng, cfg.Server)
		if err != nil {
			closeAll()
			fmt.Fprintf(stderr, "contextd: %v\n", err)
			return nil, nil, exitConfig
		}
		if c, err = client.NewInProcessClient(srv.MCP()); err != nil {
			closeAll()
			fmt.Fprintf(stderr, "contextd ingest: %v\n", err)
			return nil, nil, exitFail
		}
	}
	closers = append(closers, func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		closeAll()
		return nil, nil, connectFailure(a, "connect", err, stderr)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "contextd-ingest", Version: contextd.Version},
	}}); err != nil {
		closeAll()
		return nil, nil, connectFailure(a, "initialize", err, stderr)
	}
	return mcpcall.Caller{Client: c}, closeAll, exitOK
}

// connectFailure reports a failed connection to the MCP server and returns
// the exit code: 78 when --server refuses the token (a configuration
// error: rerunning cannot help), 1 otherwise.
func connectFailure(a *ingestArgs, step string, err error, stderr io.Writer) int {
	if a.server != "" && (errors.Is(err, transport.ErrUnauthorized) || errors.Is(err, transport.ErrAuthorizationRequired)) {
		what := "a token (--token)"
		if a.token != "" {
			what = "the token given with --token"
		}
		fmt.Fprintf(stderr, "contextd ingest: %s refused %s (HTTP 401 Unauthorized); check --token against the server's MCP_AUTH_TOKEN or its JWT settings\n", a.server, what)
		return exitConfig
	}
	fmt.Fprintf(stderr, "contextd ingest: %s: %v\n", step, err)
	return exitFail
}

// printPlan prints one range's plan for --dry-run.
func printPlan(w io.Writer, r ingest.Range, p *syncplan.Plan) {
	for _, i := range p.Creates {
		fmt.Fprintf(w, "create  %s\n", r.Files[i].SourceID)
	}
	for _, u := range p.Updates {
		fmt.Fprintf(w, "update  %s (%s)\n", r.Files[u.Index].SourceID, u.Change)
	}
	for _, d := range p.Deletes {
		why := "not in the folder"
		if d.Reason == syncplan.ReasonDuplicate {
			why = "duplicate"
		}
		fmt.Fprintf(w, "delete  %s %s (%s)\n", d.SourceID, d.ContextID, why)
	}
	if more := p.DeletesTotal - len(p.Deletes); more > 0 {
		fmt.Fprintf(w, "delete  ... and %d more in this range\n", more)
	}
}

// printSummary prints the end-of-sync summary and every failure.
func printSummary(w io.Writer, s ingest.Summary, sk ingest.Skipped, dryRun bool) {
	if dryRun {
		fmt.Fprintf(w, "dry run: %d files planned, nothing written (%d unchanged, %d kept)\n", s.Files, s.Unchanged, s.Kept)
	} else {
		fmt.Fprintln(w, s)
	}
	if sk.Ignored+sk.Unsupported > 0 {
		fmt.Fprintf(w, "skipped: %d ignored, %d of unsupported formats%s\n", sk.Ignored, sk.Unsupported, formatBreakdown(sk.UnsupportedByExt))
	}
	if s.Empty > 0 {
		fmt.Fprintf(w, "empty: %d files without text, not stored (an entry stored for one of them before is left as it is)\n", s.Empty)
	}
	if s.Foreign > 0 {
		fmt.Fprintf(w, "note: %d managed entries of other principals share this thread; they are never changed\n", s.Foreign)
	}
	for _, f := range s.Failures {
		fmt.Fprintf(w, "failed  %s: %s\n", f.SourceID, f.Reason)
	}
}

// formatBreakdown lists the most common extensions of the unsupported
// files, e.g. " (.png 1200, .svg 800, no extension 3, 4 other kinds)".
func formatBreakdown(byExt map[string]int) string {
	if len(byExt) == 0 {
		return ""
	}
	exts := make([]string, 0, len(byExt))
	for e := range byExt {
		exts = append(exts, e)
	}
	sort.Slice(exts, func(i, j int) bool {
		if byExt[exts[i]] != byExt[exts[j]] {
			return byExt[exts[i]] > byExt[exts[j]]
		}
		return exts[i] < exts[j]
	})
	const shown = 8
	var parts []string
	for i, e := range exts {
		if i == shown {
			parts = append(parts, fmt.Sprintf("%d other kinds", len(exts)-shown))
			break
		}
		name := e
		if name == "" {
			name = "no extension"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, byExt[e]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// openCache opens the extraction cache of this folder, thread and target
// (database or server) under $XDG_CACHE_HOME/contextd/ingest (default
// ~/.cache); nil when neither variable is set.
func openCache(a *ingestArgs, lookupEnv func(string) (string, bool)) *ingest.Cache {
	dir, ok := lookupEnv("XDG_CACHE_HOME")
	if !ok || dir == "" {
		home, ok := lookupEnv("HOME")
		if !ok || home == "" {
			return nil
		}
		dir = filepath.Join(home, ".cache")
	}
	target := a.server
	if target == "" {
		target, _ = lookupEnv("DB_PATH")
		if target == "" {
			target, _ = contextd.DefaultDBPath()
		}
		target, _ = filepath.Abs(target)
	}
	root, _ := filepath.Abs(a.path)
	sum := sha256.Sum256([]byte(target + "\x00" + a.thread + "\x00" + root))
	return ingest.OpenCache(filepath.Join(dir, "contextd", "ingest", hex.EncodeToString(sum[:12])+".json"))
}
