package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/setup"
	"github.com/contextd/contextd/server/webui"
)

const uiUsage = `usage: contextd ui [-port N]

Serves the web page for one local user on 127.0.0.1 (a free port unless
-port is given), against the database the stdio server uses (DB_PATH and
the other variables of docs/configuration.md), and prints a login link.
The link works once: opening it sets a session cookie in that browser;
run contextd ui again for a new one. Every page runs as the default
principal, as the stdio server's calls do. Ctrl-C stops it.
`

// runUI is `contextd ui`: the web page on loopback behind a one-time link.
func runUI(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := newFlagSet("ui")
	port := fs.Int("port", 0, "the port (0: a free one)")
	if code, done := parseFlags(fs, args, uiUsage, stdout, stderr); done {
		return code
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "contextd ui: -port %d is not a port\n%s", *port, uiUsage)
		return exitUsage
	}
	cfg, err := setup.FromEnv(lookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
		return exitConfig
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	eng, code := openEngine(ctx, cfg.Engine, log, stderr)
	if eng == nil {
		return code
	}
	defer eng.Close()
	principal := cfg.Server.DefaultPrincipal
	if principal == "" {
		principal = server.DefaultPrincipal
	}
	ui, err := webui.New(eng, webui.Options{OneTimeToken: webui.NewToken(), LocalPrincipal: principal, Logger: log})
	if err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	// Loopback only: the page is for the person at this machine.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintf(stderr, "contextd ui: %v\n", err)
		return exitFail
	}
	mux := http.NewServeMux()
	mux.Handle(webui.Prefix+"/", ui)
	mux.Handle(webui.Prefix, ui)
	mux.Handle("/{$}", http.RedirectHandler(webui.Prefix+"/", http.StatusSeeOther))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stderr, "contextd %s: web page for %s; database %s (%s)\n", releaseVersion(), principal, dbTarget(cfg.Engine), eng.Backend())
	fmt.Fprintf(stdout, "Open this link in your browser (it works once):\n  http://%s%s\n", ln.Addr(), ui.LoginLink())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "contextd ui: %v\n", err)
		return exitFail
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = hs.Close()
	}
	return exitOK
}
