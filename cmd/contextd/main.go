// Command contextd serves the contextd engine as an MCP server.
//
// With no arguments it serves MCP on stdio, with the database at DB_PATH
// (default ~/.mcp/context_storage.db) and the built-in defaults; every
// setting comes from the environment variables of the original server:
//
//	contextd            # serve MCP on stdio
//	MCP_TRANSPORT=http contextd   # serve streamable HTTP on FASTMCP_HOST:FASTMCP_PORT/mcp
//	contextd version    # print the version
//
// Exit codes: 0 normal, 78 configuration error, 1 anything else.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/internal/memrelease"
	"github.com/contextd/contextd/server"
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
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "-v":
			fmt.Fprintf(stdout, "contextd %s\n", contextd.Version)
			return exitOK
		case "eval":
			return runEval(ctx, args[1:], stdout, stderr)
		case "reembed":
			return runReembed(ctx, lookupEnv, stderr)
		case "help", "--help", "-h":
			fmt.Fprint(stdout, usage)
			return exitOK
		default:
			fmt.Fprintf(stderr, "contextd: unknown command %q\n%s", args[0], usage)
			return exitUsage
		}
	}
	cfg, err := config.FromEnv(lookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
		return exitConfig
	}
	cfg.Server.Version = contextd.Version
	// A soft memory limit makes the collector work harder as the heap nears
	// it and the scavenger return freed memory to the system above it, so a
	// burst of large requests does not leave the process at its peak.
	// GOMEMLIMIT, read by the runtime itself, wins.
	if _, set := lookupEnv("GOMEMLIMIT"); !set && cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	// stdout carries only protocol bytes; diagnostics go to stderr.
	cfg.Server.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	eng, err := contextd.Open(ctx, cfg.Engine)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		var ce *config.Error
		if errors.As(err, &ce) || errors.Is(err, contextd.ErrEmbeddingModelChanged) {
			return exitConfig
		}
		return exitFail
	}
	defer eng.Close()
	srv, err := server.New(eng, cfg.Server)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitConfig
	}
	// Return a burst's memory once the process goes quiet again.
	relCtx, stopRelease := context.WithCancel(ctx)
	defer stopRelease()
	go memrelease.Releaser{Logger: cfg.Server.Logger}.Run(relCtx)
	if cfg.Transport == "http" {
		fmt.Fprintf(stderr, "contextd %s: serving MCP on http://%s%s (auth %s); database %s (%s); %d tools\n",
			contextd.Version, cfg.HTTP.Addr(), server.MCPPath, cfg.AuthProvider, cfg.Engine.DBPath, eng.Backend(), len(srv.ToolNames()))
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
		contextd.Version, cfg.Engine.DBPath, eng.Backend(), len(srv.ToolNames()))
	if err := srv.ServeStdio(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	return exitOK
}

const usage = `usage: contextd [command]

With no command, contextd serves MCP on stdio. Configuration comes from the
environment (DB_PATH, ACCESS_CONTROL_*, DISABLED_TOOLS, ...; see README.md).

commands:
  version   print the version
  help      print this help
  eval cranfield [-data DIR]
            measure ranking on Cranfield (full-text, semantic and hybrid
            search, both search backends)
  reembed   regenerate every stored vector with the configured embedding
            model (after a change of EMBEDDING_MODEL or EMBEDDING_DIM);
            stop the server first
`

// runReembed regenerates every stored vector with the configured model.
func runReembed(ctx context.Context, lookupEnv func(string) (string, bool), stderr io.Writer) int {
	cfg, err := config.FromEnv(lookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
		return exitConfig
	}
	if cfg.Engine.Embedding.Embedder == nil {
		fmt.Fprintln(stderr, "contextd: reembed: embedding generation is disabled (ENABLE_EMBEDDING_GENERATION=false)")
		return exitConfig
	}
	cfg.Engine.Embedding.Reembed = true
	cfg.Engine.FTS.Enable = "false" // the full-text index has nothing to do here
	eng, err := contextd.Open(ctx, cfg.Engine)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	defer eng.Close()
	if _, err := eng.Reembed(ctx, stderr); err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	return exitOK
}
