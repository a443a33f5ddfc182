package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/lab/bench"
)

const benchUsage = `usage: contextd bench [--size N] [--markdown|--json] [-data DIR] [--queries N] [--backend B] [--json-file F] [--keep DIR]
       contextd bench --load [--clients N] [--duration D] [--size N] [--backend B] [--json] [--json-file F]

Builds a fresh database in a temporary folder from a real corpus (Cranfield
from DIR when the size fits in its 1,400 documents, else the doc-comment
paragraphs of the Go source tree at $GOROOT/src, about 107k; above them,
up to 10M entries, entries of 2-5 of the tree's sentences composed
deterministically, reported as go-doc-comments+composed), and measures
through the in-process MCP client, for SEARCH_BACKEND=in-process and
native side by side: store throughput, search_context with each filter,
fts_search_context, semantic_search_context, hybrid_search_context and
grep_context (median and p99), start-up with and without index
snapshots, and memory (RSS, Go heap by component). The rest of the
configuration comes from the environment, as for the server. Progress
goes to stderr.

  --size N      entries (default 1000; 10000 and 100000 are the README's,
                1000000 the acceptance targets'; at most 10000000)
  --markdown    print Markdown tables (the default; what docs/benchmarks.md
                records)
  --json        print JSON instead of Markdown tables
  -data DIR     a folder holding cranfield/ (default testdata of the clone
                the command runs in)
  --queries N   calls per search measurement (default 100; grep makes half)
  --backend B   in-process, native or both (default both)
  --json-file F also write the JSON report to F (one run, both forms)
  --keep DIR    build the databases in DIR/<backend> and keep them (for
                profiling); DIR/<backend> must be empty or absent

With --load it serves a fresh database over streamable HTTP on a loopback
port with JWT authentication instead, stores --size entries as one
principal, and runs N concurrent MCP clients, each its own principal, for
D: stores, updates, deletes, fetches, every search tool, grep and
statistics. Afterwards every acknowledged write is read back. It reports
requests/s and latency percentiles per tool, and exits 1 on any error,
lost write or result naming another principal's entry.

  --load        run the HTTP load
  --clients N   concurrent clients (default 16)
  --duration D  how long they call, a Go duration (default 60s)
  --backend B   as above; default in-process for --load
`

// runBench runs contextd bench.
func runBench(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := newFlagSet("bench")
	size := fs.Int("size", 1000, "entries")
	asJSON := fs.Bool("json", false, "print JSON")
	_ = fs.Bool("markdown", false, "print Markdown (the default)")
	data := fs.String("data", repoData("testdata"), "eval folder")
	queries := fs.Int("queries", 100, "calls per search measurement")
	backend := fs.String("backend", "both", "in-process, native or both")
	keep := fs.String("keep", "", "build the databases under this folder and keep them")
	jsonFile := fs.String("json-file", "", "also write the JSON report to this file")
	load := fs.Bool("load", false, "run the HTTP load")
	clients := fs.Int("clients", 16, "concurrent clients of the load")
	duration := fs.Duration("duration", time.Minute, "how long the load runs")
	if code, done := parseFlags(fs, args, benchUsage, stdout, stderr); done {
		return code
	}
	switch {
	case *asJSON && flagSet(fs, "markdown"):
		fmt.Fprintf(stderr, "contextd bench: --markdown and --json exclude each other\n%s", benchUsage)
		return exitUsage
	case *size < 1:
		fmt.Fprintf(stderr, "contextd bench: --size must be at least 1, got %d\n", *size)
		return exitUsage
	case *queries < 1:
		fmt.Fprintf(stderr, "contextd bench: --queries must be at least 1, got %d\n", *queries)
		return exitUsage
	case *clients < 1 || *clients > 1024:
		fmt.Fprintf(stderr, "contextd bench: --clients must be 1 to 1024, got %d\n", *clients)
		return exitUsage
	case *duration <= 0:
		fmt.Fprintf(stderr, "contextd bench: --duration must be positive, got %s\n", *duration)
		return exitUsage
	}
	opt := bench.Options{Size: *size, DataDir: *data, Queries: *queries, LookupEnv: lookupEnv, Progress: stderr, KeepDir: *keep}
	switch b := strings.ToLower(*backend); b {
	case "both":
	case "in-process", "native":
		opt.Backends = []string{b}
	default:
		fmt.Fprintf(stderr, "contextd bench: --backend must be in-process, native or both, got %q\n", *backend)
		return exitUsage
	}
	if *load {
		if *keep != "" {
			fmt.Fprintf(stderr, "contextd bench: --keep does not apply to --load\n")
			return exitUsage
		}
		lo := bench.LoadOptions{Clients: *clients, Duration: *duration, Size: *size, DataDir: *data,
			Backends: opt.Backends, LookupEnv: lookupEnv, Progress: stderr}
		if strings.EqualFold(*backend, "both") && flagSet(fs, "backend") {
			lo.Backends = []string{"in-process", "native"}
		}
		rep, err := bench.RunLoad(ctx, lo)
		if err != nil {
			fmt.Fprintf(stderr, "contextd bench --load: %v\n", err)
			return exitFail
		}
		code := printReport(rep, *asJSON, *jsonFile, stdout, stderr)
		if msg := rep.Failed(); msg != "" && code == exitOK {
			fmt.Fprintf(stderr, "contextd bench --load: %s\n", msg)
			return exitFail
		}
		return code
	}
	rep, err := bench.Run(ctx, opt)
	if err != nil {
		fmt.Fprintf(stderr, "contextd bench: %v\n", err)
		return exitFail
	}
	return printReport(rep, *asJSON, *jsonFile, stdout, stderr)
}

// report is what bench.Run and bench.RunLoad return.
type report interface {
	JSON(w io.Writer) error
	Markdown(w io.Writer)
}

// printReport writes rep to stdout (JSON or Markdown) and, when jsonFile
// is set, as JSON to that file.
func printReport(rep report, asJSON bool, jsonFile string, stdout, stderr io.Writer) int {
	if jsonFile != "" {
		if err := writeJSONFile(jsonFile, rep); err != nil {
			fmt.Fprintf(stderr, "contextd bench: %v\n", err)
			return exitFail
		}
	}
	if asJSON {
		if err := rep.JSON(stdout); err != nil {
			fmt.Fprintf(stderr, "contextd bench: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	rep.Markdown(stdout)
	return exitOK
}

// writeJSONFile writes rep as JSON to path.
func writeJSONFile(path string, rep report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("json file: %w", err)
	}
	if err := rep.JSON(f); err != nil {
		f.Close()
		return fmt.Errorf("json file: %w", err)
	}
	return f.Close()
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
