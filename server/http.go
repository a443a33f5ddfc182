package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server/auth"
	"github.com/contextd/contextd/server/webui"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// MCPPath is the streamable HTTP endpoint.
const MCPPath = "/mcp"

// HTTPOptions configure the streamable HTTP transport (MCP_TRANSPORT=http).
// The zero value listens on 0.0.0.0:8000, stateless, with no
// authentication (every call runs as the default principal).
type HTTPOptions struct {
	// Host and Port to listen on (FASTMCP_HOST, FASTMCP_PORT).
	Host string
	Port int
	// Stateful keeps MCP sessions (FASTMCP_STATELESS_HTTP=false); the
	// default is stateless, so any replica can serve any request.
	Stateful bool
	// JSONResponse (FASTMCP_JSON_RESPONSE) answers with application/json
	// only: the GET event stream is refused with 405. Tool calls answer
	// with JSON either way, since the tools send no notifications.
	JSONResponse bool
	// Auth verifies each request (nil: MCP_AUTH_PROVIDER=none, every call
	// runs as the default principal).
	Auth auth.Authenticator
	// ShutdownTimeout bounds how long a shutdown waits for in-flight
	// calls (SHUTDOWN_TIMEOUT_S, default 10 s).
	ShutdownTimeout time.Duration
	// MaxRequestBytes caps a request body (MCP_MAX_REQUEST_BYTES; 0 =
	// DefaultMaxRequestBytes); a larger one is answered 413.
	MaxRequestBytes int64
	// ReadTimeout bounds reading one request, headers and body
	// (MCP_HTTP_READ_TIMEOUT_S, default 60 s); a body still arriving then
	// is answered 408 and its connection closed.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long
	// (MCP_HTTP_IDLE_TIMEOUT_S, default 120 s).
	IdleTimeout time.Duration
	// WriteTimeout bounds writing each part of a response, counted from
	// when it is written, not from the request (MCP_HTTP_WRITE_TIMEOUT_S,
	// default DefaultWriteTimeout): a client that does not read its answer
	// within it is disconnected and the answer's memory released. Under
	// HTTPHandler it replaces an http.Server's own WriteTimeout, which
	// would count from the request and cut long calls.
	WriteTimeout time.Duration
	// DisableUI leaves the web page (package server/webui) unmounted; by
	// default it is served at /ui behind the same authenticator as /mcp.
	DisableUI bool
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 60 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 120 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	return o
}

// Addr is host:port of o with the defaults applied.
func (o HTTPOptions) Addr() string {
	host, port := o.Host, o.Port
	if host == "" {
		host = "0.0.0.0"
	}
	if port == 0 {
		port = 8000
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// HTTPHandler returns the HTTP surface: the MCP endpoint at /mcp behind
// authentication, the web page at /ui (unless o.DisableUI), and GET /health (unauthenticated) answering
// {"status":"ok"}. The streamable server keeps mcp-go's DNS-rebinding
// protection: a request over loopback must carry a loopback Host. Bodies
// over o.MaxRequestBytes are answered 413; a client that does not read
// its answer within o.WriteTimeout is disconnected.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	o = o.withDefaults()
	return s.httpHandler(o, newBodyGuard(o.MaxRequestBytes, o.ReadTimeout))
}

func (s *Server) httpHandler(o HTTPOptions, guard *bodyGuard) http.Handler {
	authn := o.Auth
	if authn == nil {
		// Provider none never fails to build.
		authn, _ = auth.New(auth.Config{}, s.principal)
	}
	opts := []mcpserver.StreamableHTTPOption{
		mcpserver.WithEndpointPath(MCPPath),
		mcpserver.WithStreamableHTTPLogger(s.log),
		// The principal set by auth.Require rides the request context; copy
		// it explicitly so it reaches the tool whatever context mcp-go uses.
		mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			ctx = withTakenArguments(ctx, r.Context()) // bigcall.go
			if p, ok := contextd.PrincipalFrom(r.Context()); ok {
				return contextd.WithPrincipal(ctx, p)
			}
			return ctx
		}),
	}
	if o.Stateful {
		opts = append(opts, mcpserver.WithStateful(true))
	} else {
		opts = append(opts, mcpserver.WithStateLess(true))
	}
	if o.JSONResponse {
		opts = append(opts, mcpserver.WithDisableStreaming(true))
	}
	mcpHandler := mcpserver.NewStreamableHTTPServer(s.mcp, opts...)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	// The whole body is read before it is parsed (by predecode, then
	// mcp-go): the guard's MaxBytesReader is what bounds that read.
	mux.Handle(MCPPath, auth.Require(authn, s.log, guard.wrap(predecode(mcpHandler, newAdmission()))))
	if !o.DisableUI {
		// The page asks for the same token as /mcp and keeps a session
		// cookie; its bodies (uploads) are bounded like /mcp's.
		ui, err := webui.New(s.eng, webui.Options{Auth: authn, Logger: s.log, MaxUploadBytes: o.MaxRequestBytes})
		if err != nil { // the embedded templates did not parse: a build defect
			s.log.Error("web ui disabled", "error", err)
		} else {
			mux.Handle(webui.Prefix+"/", guard.wrap(ui))
			mux.Handle(webui.Prefix, ui)
		}
	}
	return writeDeadline{timeout: o.WriteTimeout}.wrap(mux)
}

// ServeHTTPListener serves the HTTP surface on ln until ctx is cancelled,
// then shuts down gracefully: it stops accepting, cuts off the requests
// whose body is still arriving (503), lets in-flight calls finish (up to
// ShutdownTimeout) and returns nil.
func (s *Server) ServeHTTPListener(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	o = o.withDefaults()
	guard := newBodyGuard(o.MaxRequestBytes, o.ReadTimeout)
	hs := &http.Server{
		Handler:           s.httpHandler(o, guard),
		ReadHeaderTimeout: min(10*time.Second, o.ReadTimeout),
		ReadTimeout:       o.ReadTimeout,
		IdleTimeout:       o.IdleTimeout,
		// In-flight calls keep a context that survives the shutdown
		// signal; only the shutdown timeout cuts them off.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	// Bodies still arriving get half the timeout to arrive (then 503 and
	// the connection closes), so a slow sender cannot hold the shutdown;
	// calls whose body has arrived run to completion.
	guard.shutdown(o.ShutdownTimeout / 2)
	err := hs.Shutdown(sctx)
	if err != nil {
		// A call still running at the timeout: drop its connection.
		_ = hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("http server: %w", serr)
	}
	if err != nil {
		return fmt.Errorf("http shutdown: %w", err)
	}
	return nil
}

// ListenAndServeHTTP listens on o.Addr() and serves until ctx is cancelled
// (see ServeHTTPListener).
func (s *Server) ListenAndServeHTTP(ctx context.Context, o HTTPOptions) error {
	ln, err := net.Listen("tcp", o.Addr())
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr(), err)
	}
	return s.ServeHTTPListener(ctx, ln, o)
}
