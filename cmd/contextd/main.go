// Command contextd serves the contextd engine as an MCP server.
//
// With no arguments it serves MCP on stdio, with the database at DB_PATH
// (default ~/.mcp/context_storage.db) and the built-in defaults; every
// setting comes from the environment variables of the original server:
//
//	contextd            # serve MCP on stdio
//	MCP_TRANSPORT=http contextd   # serve streamable HTTP on FASTMCP_HOST:FASTMCP_PORT/mcp
//	contextd version    # print the version, module, revision and Go version
//	contextd health     # check a running HTTP server's /health
//
// Exit codes: 0 normal, 78 configuration error, 1 anything else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/memrelease"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/setup"
)

// Exit codes of the original server (sysexits).
const (
	exitOK     = 0
	exitFail   = 1
	exitUsage  = 2
	exitConfig = 78
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "version":
			if code, done := parseCommand("version", args[1:], versionUsage, stdout, stderr); done {
				return code
			}
			printVersion(stdout)
			return exitOK
		case "eval":
			return runEval(ctx, args[1:], stdout, stderr)
		case "ingest":
			return runIngest(ctx, args[1:], lookupEnv, stdout, stderr)
		case "bench":
			return runBench(ctx, args[1:], lookupEnv, stdout, stderr)
		case "migrate":
			return runMigrate(ctx, args[1:], lookupEnv, stdout, stderr)
		case "docs":
			return runDocs(ctx, args[1:], stdout, stderr)
		case "health":
			return runHealth(ctx, args[1:], lookupEnv, stdout, stderr)
		case "ui":
			return runUI(ctx, args[1:], lookupEnv, stdout, stderr)
		case "reembed": // the name before `migrate`, kept as an alias
			if code, done := parseCommand("reembed", args[1:], reembedUsage, stdout, stderr); done {
				return code
			}
			return runReembed(ctx, lookupEnv, stderr)
		case "help":
			if code, done := parseCommand("help", args[1:], usage, stdout, stderr); done {
				return code
			}
			fmt.Fprint(stdout, usage)
			return exitOK
		default:
			fmt.Fprintf(stderr, "contextd: unknown command %q\n%s", args[0], usage)
			return exitUsage
		}
	}
	if len(args) > 0 {
		switch args[0] {
		case "--version", "-v", "-version":
			if len(args) == 1 {
				printVersion(stdout)
				return exitOK
			}
		}
	}
	// The serve default takes no arguments: -h/--help print the usage.
	if code, done := parseCommand("", args, usage, stdout, stderr); done {
		return code
	}
	return serve(ctx, lookupEnv, stdin, stdout, stderr)
}

// parseCommand parses the arguments of a subcommand (name, "" for the
// serve default), which take neither flags nor operands; see parseFlags.
func parseCommand(name string, args []string, usage string, stdout, stderr io.Writer) (code int, done bool) {
	return parseFlags(newFlagSet(name), args, usage, stdout, stderr)
}

// newFlagSet is the flag set of a subcommand (name, "" for the serve
// default): it prints nothing itself, parseFlags prints the usage.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("contextd "+name), flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the usage is the one message
	fs.Usage = func() {}
	return fs
}

// parseFlags parses a subcommand's flags, which take no operands. -h,
// -help and --help print its usage on stdout (exit 0); an unknown flag, a
// bad value or an operand prints the problem and the usage on stderr
// (exit 2). done reports that the command must stop with code.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, done bool) {
	prefix := fs.Name() + ": "
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return exitOK, true
	case err != nil:
		fmt.Fprintf(stderr, "%s%v\n%s", prefix, err, usage)
		return exitUsage, true
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%sunexpected argument %q\n%s", prefix, fs.Arg(0), usage)
		return exitUsage, true
	}
	return exitOK, false
}

// serve runs the MCP server of the environment's configuration.
func serve(ctx context.Context, lookupEnv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := setup.FromEnv(lookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
		return exitConfig
	}
	cfg.Server.Version = releaseVersion()
	// A soft memory limit makes the collector work harder as the heap nears
	// it and the scavenger return freed memory to the system above it, so a
	// burst of large requests does not leave the process at its peak.
	// GOMEMLIMIT, read by the runtime itself, wins.
	if _, set := lookupEnv("GOMEMLIMIT"); !set && cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	// stdout carries only protocol bytes; diagnostics go to stderr.
	cfg.Server.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	eng, code := openEngine(ctx, cfg.Engine, cfg.Server.Logger, stderr)
	if eng == nil {
		return code
	}
	defer eng.Close()
	if cfg.Server.Tools == nil {
		cfg.Server.Tools = append(server.ContextTools(), server.KnowledgeTools()...)
	}
	srv, err := server.New(eng, cfg.Server)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitConfig
	}
	// A misspelt DISABLED_TOOLS entry leaves the tool it meant registered:
	// say so whatever LOG_LEVEL is (the server logs it at WARNING).
	if cfg.SlogLevel() > slog.LevelWarn {
		for _, n := range srv.UnknownDisabledTools() {
			fmt.Fprintf(stderr, "contextd: warning: DISABLED_TOOLS names unknown tool %q; it matches no tool and is ignored\n", n)
		}
	}
	// Return a burst's memory once the process goes quiet again.
	relCtx, stopRelease := context.WithCancel(ctx)
	defer stopRelease()
	// Trim: SQLite's page caches and file maps, the full-text segments' pages.
	rel := memrelease.Releaser{Logger: cfg.Server.Logger, Trim: eng.ReleaseMemory}
	go rel.Run(relCtx)
	if cfg.Transport == "http" {
		fmt.Fprintf(stderr, "contextd %s: serving MCP on http://%s%s (auth %s); database %s (%s); %d tools\n",
			releaseVersion(), cfg.HTTP.Addr(), server.MCPPath, cfg.AuthProvider, dbTarget(cfg.Engine), eng.Backend(), len(srv.ToolNames()))
		// SIGTERM cancels ctx; in-flight calls finish before this returns.
		if err := srv.ListenAndServeHTTP(ctx, cfg.HTTP); err != nil {
			fmt.Fprintf(stderr, "contextd: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	if cfg.AuthProvider != "none" {
		fmt.Fprintf(stderr, "contextd: MCP_AUTH_PROVIDER=%s is ignored on stdio; every call runs as %s\n", cfg.AuthProvider, cfg.Server.DefaultPrincipal)
	}
	fmt.Fprintf(stderr, "contextd %s: serving MCP on stdio; database %s (%s); %d tools\n",
		releaseVersion(), dbTarget(cfg.Engine), eng.Backend(), len(srv.ToolNames()))
	if err := srv.ServeStdio(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	return exitOK
}

const usage = `usage: contextd [command]

With no command, contextd serves MCP on stdio (or streamable HTTP with
MCP_TRANSPORT=http). Configuration comes from the environment (DB_PATH,
ACCESS_CONTROL_*, DISABLED_TOOLS, ...; see docs/configuration.md); a bad
value exits 78.

commands:
  version   print the version
  help      print this help
  eval cranfield [-data DIR]
            measure ranking on Cranfield (full-text, semantic and hybrid
            search, both search backends)
  eval paraphrase [-data DIR]
            measure how often a paraphrased query finds what it means
            (top-1/5/10 on testdata/paraphrase)
  ingest PATH --thread kb:NAME [flags]
            sync a folder of documents (Markdown, text, code, HTML,
            PDF, DOCX, PPTX, CSV, JSON) into a corpus thread
  bench [--size N] [--json]
            measure store, search, start-up and memory on a fresh
            database of N entries, both search backends side by side
  migrate compress|decompress|reembed
            convert the stored vectors to the configured compression
            (TurboQuant codes) or back to float32, or regenerate them
            with the configured embedding model; stop the server first
            (contextd reembed is migrate reembed)
  docs [-out DIR] [-check]
            generate docs/tools.md and docs/configuration.md from the code
  health [-url URL]
            ask a running HTTP server for /health (container health checks)
  ui [-port N]
            serve the web page on 127.0.0.1 for the local user and print
            a one-time login link (the HTTP transport serves it at /ui)

Every command answers -h or --help with its usage.
`

const versionUsage = `usage: contextd version

Prints the version of contextd, then the module version, the source
revision and the Go toolchain it was built from (runtime/debug build
information; go install and release builds record them, go run does not).
`

const reembedUsage = `usage: contextd migrate reembed (or contextd reembed)

Regenerates every stored vector of the database at DB_PATH with the
embedding model the environment configures (EMBEDDING_PROVIDER,
EMBEDDING_MODEL, EMBEDDING_DIM), after a change of model or dimension.
Stop the server first. Configuration errors exit 78.
`

// runReembed regenerates every stored vector with the configured model.
func runReembed(ctx context.Context, lookupEnv func(string) (string, bool), stderr io.Writer) int {
	cfg, err := setup.FromEnv(lookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
		return exitConfig
	}
	if cfg.Engine.Embedding.Embedder == nil {
		fmt.Fprintln(stderr, "contextd: reembed: embedding generation is disabled (ENABLE_EMBEDDING_GENERATION=false)")
		return exitConfig
	}
	cfg.Engine.Embedding.Reembed = true
	cfg.Engine.FTS.Disable = true // the full-text index has nothing to do here
	eng, err := contextd.Open(ctx, cfg.Engine)
	if err != nil {
		msg, code := openFailure(cfg.Engine, err)
		fmt.Fprintf(stderr, "contextd: %s\n", msg)
		return code
	}
	defer eng.Close()
	if _, err := eng.Reembed(ctx, stderr); err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	return exitOK
}

// openEngine opens the engine of configuration e for serve and ui, its
// log going to log; on failure it says why on stderr and returns the exit
// code. Index rebuild progress, and why a snapshot was not used, go to
// stderr whatever LOG_LEVEL says (ERROR by default): a start-up that
// rebuilds 100k entries takes seconds an operator should see explained.
func openEngine(ctx context.Context, e contextd.Config, log *slog.Logger, stderr io.Writer) (*contextd.Engine, int) {
	e.Logger = log
	if e.FTS.Progress == nil {
		e.FTS.Progress = stderr
	}
	eng, err := contextd.Open(ctx, e)
	if err != nil {
		msg, code := openFailure(e, err)
		fmt.Fprintf(stderr, "contextd: %s\n", msg)
		return nil, code
	}
	return eng, 0
}
