// Package config owns the environment of contextd: it reads the variables
// of the upstream MCP Context Server (DB_PATH, ACCESS_CONTROL_*,
// MCP_TRANSPORT, FASTMCP_*, MCP_AUTH_*, EMBEDDING_*, SUMMARY_*, ...) into
// typed values: the engine's contextd.Config, with the configured
// embedder, reranker and summarizer built, and the settings of the store,
// the server, its transport and its authentication. It validates every
// variable, naming it in the error; the names of the variables appear in
// this package's messages only.
//
// It links neither the MCP server nor a database driver (the layering
// test checks), so a program that only reads the configuration pays for
// neither. Package server/setup turns a Config into what the settings
// describe (the store's options, server.Options, the HTTP authenticator);
// cmd/contextd and programs that embed contextd share both, so a
// deployment file means the same to all of them.
//
//	cfg, err := setup.FromEnv(os.LookupEnv)
//	if err != nil { ... } // each invalid variable is a *config.Error: exit 78
//	eng, err := contextd.Open(ctx, cfg.Engine)
//	if err != nil { ... }
//	defer eng.Close()
//	srv, err := server.New(eng, cfg.Server)
//	if err != nil { ... }
//	if cfg.Transport == config.TransportHTTP {
//		err = srv.ListenAndServeHTTP(ctx, cfg.HTTP)
//	} else {
//		err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//	}
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/request"
)

// Config is the configuration of a contextd server, read from the
// environment variable names of the upstream server (section D).
type Config struct {
	// Engine opens the engine (contextd.Open), with the configured
	// embedder, reranker and summarizer built. Its Storage names the
	// backend, the path or URL; the backend's options are SQLite and
	// Planned.PostgreSQL, which server/setup sets as Storage.Options.
	Engine contextd.Config
	// Server holds the settings of the MCP server (server.Options).
	Server    Server
	Transport Transport
	// HTTP configures the streamable HTTP transport (FASTMCP_*,
	// MCP_HTTP_*; see readHTTP), Auth its authentication (MCP_AUTH_*).
	HTTP HTTP
	Auth Auth
	// AuthProvider is the authentication of the HTTP transport; stdio
	// ignores it.
	AuthProvider AuthProvider
	// SQLite holds the pragmas and pool settings of the SQLite store.
	SQLite   SQLite
	LogLevel LogLevel
	// ContextSync is ENABLE_CONTEXT_SYNC (default true): false leaves the
	// sync tools plan_context_sync and list_ingest_state unregistered.
	ContextSync bool
	// Planned holds the validated settings of the reference's features
	// this build does not carry yet (see Planned).
	Planned Planned
	// MemoryLimit is the Go runtime's soft memory limit in bytes
	// (MEMORY_LIMIT_MB, default 1024; 0 = none). The binary applies it with
	// debug.SetMemoryLimit unless GOMEMLIMIT is set, which wins.
	MemoryLimit int64
}

// DefaultMemoryLimitMB is the default of MEMORY_LIMIT_MB.
const DefaultMemoryLimitMB = 1024

// Error reports an invalid environment variable. The binary exits with
// status 78 (EX_CONFIG) on it.
type Error struct {
	Var    string // the environment variable
	Value  string // its value
	Reason string // what is wrong, with the accepted values
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid configuration: %s=%q: %s", e.Var, e.Value, e.Reason)
}

// SlogLevel maps the log level to a slog level (CRITICAL is above ERROR).
func (c Config) SlogLevel() slog.Level { return c.LogLevel.Slog() }

// FromEnv reads the configuration through lookup, normally os.LookupEnv.
// lookup tells an unset variable from an empty one, which differ for some
// (MCP_SERVER_INSTRUCTIONS="" sends no instructions, unset sends the
// built-in ones). Every invalid variable is reported; the error is an
// *Error, or several joined with errors.Join (errors.As finds the first).
func FromEnv(lookup func(string) (string, bool)) (Config, error) {
	r := &envReader{lookup: lookup}
	var c Config

	c.LogLevel = LogLevel(r.choice("LOG_LEVEL", "ERROR", strings.ToUpper, "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"))
	c.MemoryLimit = r.int64Range("MEMORY_LIMIT_MB", DefaultMemoryLimitMB, 0, 1<<30) << 20
	c.Engine.Storage.Backend = r.choice("STORAGE_BACKEND", "sqlite", strings.ToLower, "sqlite", "postgresql")
	switch t := r.choice("MCP_TRANSPORT", "stdio", strings.ToLower, "stdio", "http", "streamable-http", "sse"); t {
	case "http", "streamable-http":
		c.Transport = TransportHTTP
	case "sse":
		r.fail("MCP_TRANSPORT", "sse", "the legacy sse transport is not implemented; use http (streamable HTTP)")
		c.Transport = TransportStdio
	default:
		c.Transport = TransportStdio
	}

	// Storage.
	if v, ok := lookup("DB_PATH"); ok {
		switch p := strings.TrimSpace(v); {
		case p == "":
			r.fail("DB_PATH", v, "must not be blank; unset it to use the default ~/.mcp/context_storage.db or give a file path")
		default:
			c.Engine.DBPath = expandHome(p)
			if reason := dbPathProblem(c.Engine.DBPath); reason != "" {
				r.fail("DB_PATH", v, reason)
			}
		}
	} else if p, err := contextd.DefaultDBPath(); err != nil {
		r.fail("DB_PATH", "", "is unset and the default path cannot be determined ("+err.Error()+"); set DB_PATH")
	} else {
		c.Engine.DBPath = p
		if reason := dbPathProblem(p); reason != "" {
			r.fail("DB_PATH", "", "is unset and the default "+reason)
		}
	}
	c.Engine.MaxImageSizeMB = r.intRange("MAX_IMAGE_SIZE_MB", 10, 1, math.MaxInt32)
	c.Engine.MaxTotalSizeMB = r.intRange("MAX_TOTAL_SIZE_MB", 100, 1, math.MaxInt32)
	c.Engine.MaxTextChars = r.intRange("MAX_TEXT_CHARS", request.DefaultMaxTextChars, 1, 1<<30)
	c.SQLite = readSQLite(r)

	// Tools and instructions.
	if v, ok := lookup("DISABLED_TOOLS"); ok {
		for _, n := range strings.Split(v, ",") {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
				c.Server.DisabledTools = append(c.Server.DisabledTools, n)
			}
		}
	}
	if v, ok := lookup("MCP_SERVER_INSTRUCTIONS"); ok {
		c.Server.Instructions = &v
	}

	// Access control.
	c.Server.DefaultPrincipal = request.DefaultPrincipal
	if v, ok := lookup("ACCESS_CONTROL_DEFAULT_PRINCIPAL"); ok {
		if p := strings.TrimSpace(v); request.ValidPrincipal(p) {
			c.Server.DefaultPrincipal = p
		} else {
			r.fail("ACCESS_CONTROL_DEFAULT_PRINCIPAL", v, "must be 1 to 128 characters of A-Z a-z 0-9 . _ @ : + -")
		}
	}
	c.Engine.DefaultVisibility = r.choice("ACCESS_CONTROL_DEFAULT_VISIBILITY", "private", strings.ToLower, "private", "public")
	c.Engine.DefaultGroupGrants = r.choice("ACCESS_CONTROL_DEFAULT_GROUP_GRANTS", "none", strings.ToLower, "none", "author_groups")
	c.Engine.AnonymousPrincipal = r.text("ACCESS_CONTROL_ANONYMOUS_PRINCIPAL")
	c.Engine.PublishRole = r.text("ACCESS_CONTROL_PUBLISH_ROLE")

	readHTTP(r, &c)
	// Several principals share an HTTP deployment with JWT: there only the
	// operator role sees get_statistics' deployment-wide figures unless
	// ACCESS_CONTROL_OPERATOR_ROLE says otherwise (set empty: everyone,
	// as R-060 specifies). Elsewhere every caller is one principal.
	if v, ok := lookup("ACCESS_CONTROL_OPERATOR_ROLE"); ok {
		c.Engine.OperatorRole = strings.TrimSpace(v)
	} else if c.Transport == TransportHTTP && c.AuthProvider == AuthJWT {
		c.Engine.OperatorRole = "operator"
	}

	readFTS(r, &c)
	readLimits(r, &c)

	// Retrieval.
	c.Engine.IncludeSummaryInGet = r.boolean("GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY", false)
	c.Engine.SearchTruncationLength = r.intRange("SEARCH_TRUNCATION_LENGTH", 300, 50, 1000)
	if v, ok := lookup("METADATA_INDEXED_FIELDS"); ok {
		fields, err := parseIndexedFields(v)
		if err != nil {
			r.fail("METADATA_INDEXED_FIELDS", v, err.Error())
		}
		c.Engine.IndexedFields = fields
	}

	readNavigation(r, &c)
	c.ContextSync = r.boolean("ENABLE_CONTEXT_SYNC", true)
	if !c.ContextSync {
		c.Server.DisabledTools = append(c.Server.DisabledTools, "plan_context_sync", "list_ingest_state")
	}
	readSummary(r, &c)
	readEmbedding(r, &c)
	readPlanned(r, &c)
	readKnowledge(r, &c)
	if c.Engine.Storage.Backend == BackendPostgreSQL {
		c.Engine.Storage.URL = c.Planned.PostgreSQL.URL()
	}

	switch len(r.errs) {
	case 0:
		return c, nil
	case 1:
		return c, r.errs[0]
	}
	return c, errors.Join(r.errs...)
}

var fieldNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseIndexedFields parses METADATA_INDEXED_FIELDS: a comma list of
// name[:type]. An empty list indexes nothing (a non-nil empty slice).
func parseIndexedFields(v string) ([]contextd.IndexedField, error) {
	fieldTypes := []string{"string", "integer", "boolean", "float", "array", "object"}
	out := []contextd.IndexedField{}
	seen := map[string]string{}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, typ := item, "string"
		if i := strings.IndexByte(item, ':'); i >= 0 {
			name, typ = strings.TrimSpace(item[:i]), strings.ToLower(strings.TrimSpace(item[i+1:]))
		}
		switch {
		case !fieldNamePattern.MatchString(name):
			return nil, fmt.Errorf("field name %q must match ^[A-Za-z_][A-Za-z0-9_]*$", name)
		case len(name) > 50:
			return nil, fmt.Errorf("field name %q is longer than 50 characters", name)
		case !slices.Contains(fieldTypes, typ):
			return nil, fmt.Errorf("field %q has type %q; the type must be one of %s", name, typ, strings.Join(fieldTypes, ", "))
		}
		if prev, dup := seen[strings.ToLower(name)]; dup {
			if prev == name {
				return nil, fmt.Errorf("field %q is listed more than once", name)
			}
			return nil, fmt.Errorf("field %q collides with %q (field names must be unique ignoring case)", name, prev)
		}
		seen[strings.ToLower(name)] = name
		out = append(out, contextd.IndexedField{Name: name, Type: typ})
	}
	return out, nil
}

// dbPathProblem says what keeps path from being a database file, naming
// the path: a directory, or a parent that is a file. A path that does not
// exist yet is fine (Open creates it and its directories); other failures
// are left to Open, which names the path too.
func dbPathProblem(path string) string {
	if path == ":memory:" {
		return ""
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path + " is a directory; give a file path"
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return dir + " (in " + path + ") is a file, not a directory; give a file path in a directory"
			}
			return ""
		}
		if next := filepath.Dir(dir); next == dir {
			return ""
		}
	}
}

// expandHome expands a leading ~ the way a shell would, since DB_PATH in
// a deployment file is often written ~/...
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
