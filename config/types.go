package config

import (
	"log/slog"
	"net"
	"strconv"
	"time"
)

// Transport is how the server talks to its clients (MCP_TRANSPORT).
type Transport string

// The transports; streamable-http is read as TransportHTTP.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
)

// AuthProvider is the authentication of the HTTP transport
// (MCP_AUTH_PROVIDER).
type AuthProvider string

// The authentication providers.
const (
	AuthNone        AuthProvider = "none"
	AuthSimpleToken AuthProvider = "simple_token"
	AuthJWT         AuthProvider = "jwt"
)

// LogLevel is the level of the server's log (LOG_LEVEL).
type LogLevel string

// The log levels, as the reference names them.
const (
	LogDebug    LogLevel = "DEBUG"
	LogInfo     LogLevel = "INFO"
	LogWarning  LogLevel = "WARNING"
	LogError    LogLevel = "ERROR"
	LogCritical LogLevel = "CRITICAL"
)

// Slog maps l to a slog level (CRITICAL is above ERROR).
func (l LogLevel) Slog() slog.Level {
	switch l {
	case LogDebug:
		return slog.LevelDebug
	case LogInfo:
		return slog.LevelInfo
	case LogWarning:
		return slog.LevelWarn
	case LogCritical:
		return slog.LevelError + 4
	}
	return slog.LevelError
}

// The storage backends (STORAGE_BACKEND), the names persist/sqlite and
// persist/postgres register.
const (
	BackendSQLite     = "sqlite"
	BackendPostgreSQL = "postgresql"
)

// Server holds the settings of the MCP server (server.Options).
type Server struct {
	// DefaultPrincipal is the principal of a call whose context carries
	// none (ACCESS_CONTROL_DEFAULT_PRINCIPAL, default "local").
	DefaultPrincipal string
	// DisabledTools are tool names not to register (DISABLED_TOOLS, plus
	// the tools of features switched off).
	DisabledTools []string
	// Instructions replace the built-in instructions when set
	// (MCP_SERVER_INSTRUCTIONS; "" sends none).
	Instructions *string
	// MaxMessageBytes caps one stdio message (MCP_MAX_REQUEST_BYTES).
	MaxMessageBytes int64
	// Limits bound one call's cost (limits.go).
	Limits Limits
}

// HTTP holds the settings of the streamable HTTP transport
// (server.HTTPOptions but the authenticator).
type HTTP struct {
	Host            string // FASTMCP_HOST, default 0.0.0.0
	Port            int    // FASTMCP_PORT, default 8000
	Stateful        bool   // not FASTMCP_STATELESS_HTTP
	JSONResponse    bool   // FASTMCP_JSON_RESPONSE
	ShutdownTimeout time.Duration
	MaxRequestBytes int64
	ReadTimeout     time.Duration
	IdleTimeout     time.Duration
	WriteTimeout    time.Duration
}

// Addr is the listen address, host:port.
func (h HTTP) Addr() string { return net.JoinHostPort(h.Host, strconv.Itoa(h.Port)) }

// Auth holds the settings of the authentication providers (MCP_AUTH_*).
type Auth struct {
	ClientID string // MCP_AUTH_CLIENT_ID, default mcp-client
	Token    string // MCP_AUTH_TOKEN (simple_token)
	JWT      JWT    // MCP_AUTH_JWT_* (jwt)
}

// JWT holds the settings of the JWT provider.
type JWT struct {
	ClientIDFallback bool
	PublicKey        string
	JWKSURI          string
	Issuer           string
	Audience         string
	Algorithm        string
	GroupsClaim      string
	RolesClaim       string
}

// SQLite holds the pragmas and pool settings of the SQLite store
// (SQLITE_*, POOL_*). Zero values mean the store's documented defaults.
type SQLite struct {
	JournalMode         string
	Synchronous         string
	TempStore           string
	MmapSize            int64
	CacheSize           int64
	PageSize            int
	WALAutocheckpoint   int
	BusyTimeout         time.Duration
	ForeignKeys         *bool
	MaxReaders          int
	IdleTimeout         time.Duration
	HealthCheckInterval time.Duration
}
