// Package server is the MCP surface of contextd: the tools of the MCP
// Context Server API reference over a contextd.Engine. It owns the tool
// declarations (names, descriptions, input schemas, annotations), argument
// validation and lax coercion before the engine sees a value, the mapping
// of results and errors to MCP tool results, the server instructions, the
// DISABLED_TOOLS toggle, and the stdio and streamable HTTP transports
// (http.go). HTTP authentication is package server/auth; reading all of
// this from the environment is package config.
//
// Each tool is one file (tool_*.go) that declares its parameters once; the
// declaration yields both the advertised JSON Schema and the decoder, and
// its handler calls one contextd.Engine method. ContextTools lists the 21
// tools of the MCP Context Server API reference and KnowledgeTools the
// eleven knowledge tools of the knowledge API reference (tool_knowledge*.go:
// one text block per call, "Error: <message>" for a refusal, their own
// type messages through decodeExact), each in reference order. Options.Tools
// nil serves ContextTools only; cmd/contextd serves all 32, and another
// package serves its own tools next to them the same way.
//
//	eng, err := contextd.Open(ctx, contextd.Config{DBPath: "ctx.db"})
//	if err != nil { ... }
//	defer eng.Close()
//	srv, err := server.New(eng, server.Options{
//		DisabledTools: []string{"delete_context"},
//		Tools:         append(server.ContextTools(), server.KnowledgeTools()...),
//	})
//	if err != nil { ... }
//	err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//	// or, over streamable HTTP with JWT authentication:
//	a, err := auth.New(auth.Config{Provider: "jwt", JWT: jwtConfig}, server.DefaultPrincipal)
//	err = srv.ListenAndServeHTTP(ctx, server.HTTPOptions{Port: 8000, Auth: a})
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/request"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Name is the server name reported in the MCP handshake.
const Name = "mcp-context-server"

// DefaultPrincipal is the principal of calls that carry none.
const DefaultPrincipal = request.DefaultPrincipal

// ValidPrincipal reports whether id may be the default principal: 1 to 128
// characters of A-Z a-z 0-9 . _ @ : + -. New refuses any other; package
// config checks the configured one with the same rule first.
func ValidPrincipal(id string) bool { return request.ValidPrincipal(id) }

// Options configure a Server. The zero value serves every tool of
// ContextTools as principal "local" with the built-in instructions.
type Options struct {
	// DefaultPrincipal is the principal of a call whose context carries
	// none (ACCESS_CONTROL_DEFAULT_PRINCIPAL, default "local").
	DefaultPrincipal string
	// DisabledTools are tool names not to register (DISABLED_TOOLS);
	// matched trimmed and case-insensitively.
	DisabledTools []string
	// Instructions sent at initialize: nil uses DefaultInstructions of
	// the registered tools, non-nil is used verbatim, and "" sends none (MCP_SERVER_INSTRUCTIONS).
	Instructions *string
	// Version reported in the handshake (default: the module version, or "dev").
	Version string
	// Logger receives diagnostics (nil discards them). Nothing is ever
	// written to the protocol stream.
	Logger *slog.Logger
	// MaxMessageBytes caps one message read on stdio, as
	// HTTPOptions.MaxRequestBytes caps an HTTP body
	// (MCP_MAX_REQUEST_BYTES; 0 = DefaultMaxRequestBytes): a longer one
	// is dropped and answered with a JSON-RPC error.
	MaxMessageBytes int64
	// Tools are the tools to serve, in tools/list order: nil serves
	// ContextTools(); a non-nil list is served as given (append
	// KnowledgeTools() or another package's tools to ContextTools() to
	// serve both). DisabledTools and each Tool.Available still apply.
	Tools []Tool
	// Limits bound each call's cost and share the machine between heavy
	// and cheap calls (limits.go; the zero value is the defaults).
	Limits Limits
}

// Server serves the contextd tools over MCP.
type Server struct {
	eng        *contextd.Engine
	log        *slog.Logger
	principal  string
	maxMessage int64 // Options.MaxMessageBytes
	limits     Limits
	gate       *gate
	mcp        *mcpserver.MCPServer
	names      []string
	unknown    []string // see UnknownDisabledTools
}

// New builds a server over eng with the tools not disabled by opts.
func New(eng *contextd.Engine, opts Options) (*Server, error) {
	if eng == nil {
		return nil, errors.New("server: nil engine")
	}
	s := &Server{eng: eng, log: opts.Logger, principal: opts.DefaultPrincipal, maxMessage: opts.MaxMessageBytes, limits: opts.Limits.WithDefaults()}
	s.gate = newGate(s.limits)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.principal == "" {
		s.principal = DefaultPrincipal
	}
	if !ValidPrincipal(s.principal) {
		return nil, fmt.Errorf("server: invalid default principal %q: must match %s", s.principal, request.PrincipalPattern)
	}
	version := opts.Version
	if version == "" {
		version = buildVersion()
	}
	list := opts.Tools
	if list == nil {
		list = ContextTools()
	}
	registered, err := s.selectTools(list, opts.DisabledTools)
	if err != nil {
		return nil, err
	}
	// The instructions describe the tools actually registered, so they are
	// built after DISABLED_TOOLS and availability have been applied.
	instructions := ""
	if opts.Instructions != nil {
		instructions = *opts.Instructions
	} else {
		instructions = DefaultInstructions(registered)
	}
	sopts := []mcpserver.ServerOption{
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithRecovery(),
		mcpserver.WithHooks(protocolHooks()), // protoerr.go
	}
	if instructions != "" {
		sopts = append(sopts, mcpserver.WithInstructions(instructions))
	}
	s.mcp = mcpserver.NewMCPServer(Name, version, sopts...)
	var tools []mcpserver.ServerTool
	for _, t := range registered {
		tools = append(tools, mcpserver.ServerTool{
			Tool: t.Spec,
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return s.handle(ctx, &t, req)
			},
		})
		s.names = append(s.names, t.Spec.Name)
	}
	if len(tools) > 0 {
		s.mcp.AddTools(tools...)
	}
	return s, nil
}

// selectTools returns the tools of list that are neither disabled nor
// unavailable on the engine, in list order, and records the disabled
// names that match no tool. A list naming a tool twice, or holding a tool
// without a name or a call, is refused.
func (s *Server) selectTools(list []Tool, disabledNames []string) ([]Tool, error) {
	known := make(map[string]bool, len(list))
	for i := range list {
		t := &list[i]
		switch {
		case t.Spec.Name == "":
			return nil, fmt.Errorf("server: tool %d has no name", i)
		case t.Call == nil:
			return nil, fmt.Errorf("server: tool %s has no call", t.Spec.Name)
		case known[strings.ToLower(t.Spec.Name)]:
			return nil, fmt.Errorf("server: tool %s listed twice", t.Spec.Name)
		}
		known[strings.ToLower(t.Spec.Name)] = true
	}
	disabled := map[string]bool{}
	for _, n := range disabledNames {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" && !disabled[n] {
			disabled[n] = true
			if !known[n] && !ownTool(n) {
				s.unknown = append(s.unknown, n)
				s.log.Warn("DISABLED_TOOLS names an unknown tool", "tool", n)
			}
		}
	}
	var out []Tool
	for _, t := range list {
		if disabled[strings.ToLower(t.Spec.Name)] {
			s.log.Info("tool not registered (DISABLED_TOOLS)", "tool", t.Spec.Name)
			continue
		}
		if t.Available != nil && !t.Available(s.eng) {
			s.log.Info("tool not registered (no search mode serves it)", "tool", t.Spec.Name)
			continue
		}
		if t.Failure == "" {
			t.Failure = "Failed to run " + t.Spec.Name
		}
		out = append(out, t)
	}
	return out, nil
}

// MCP returns the underlying mcp-go server, for other transports and for
// in-process clients (client.NewInProcessClient(s.MCP())).
func (s *Server) MCP() *mcpserver.MCPServer { return s.mcp }

// ToolNames returns the names of the registered tools in reference order.
func (s *Server) ToolNames() []string { return append([]string(nil), s.names...) }

// UnknownDisabledTools returns the names in Options.DisabledTools that
// match no tool of the list and none of this package's own (lower-cased,
// in the order given), so a binary can report a misspelt DISABLED_TOOLS
// entry whatever its log level.
func (s *Server) UnknownDisabledTools() []string { return append([]string(nil), s.unknown...) }

// ServeStdio serves one MCP session of newline-delimited JSON-RPC on in and
// out until in ends or ctx is cancelled. Every call runs as the default
// principal. Only protocol bytes are written to out. mcp-go keeps one stdio
// session per process, so run at most one ServeStdio at a time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	st := mcpserver.NewStdioServer(s.mcp)
	st.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	principal := contextd.Principal{ID: s.principal}
	d := newDrainIO(ctx, s.maxMessage)
	calls := newStdioCalls(s.mcp, s.log, d) // stdio_bigcall.go
	st.SetContextFunc(func(ctx context.Context) context.Context {
		ctx = contextd.WithPrincipal(ctx, principal)
		calls.session(ctx)
		return ctx
	})
	calls.out = d.writer(out)
	err := st.Listen(ctx, d.reader(in), calls.out)
	calls.stop()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	return "dev"
}
