package postgres

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Options configure a PostgreSQL store. Zero values mean the documented
// defaults of the POSTGRESQL_* environment variables.
type Options struct {
	// URL is the connection string (POSTGRESQL_CONNECTION_STRING, or the
	// URL the engine builds from the POSTGRESQL_* parts): postgres:// or
	// postgresql://, or a libpq key=value string.
	URL string
	// Schema holds contextd's tables (POSTGRESQL_SCHEMA, default public);
	// it is created when missing.
	Schema string
	// PoolMin and PoolMax bound the pool (POSTGRESQL_POOL_MIN, default 2;
	// POSTGRESQL_POOL_MAX, default 20).
	PoolMin, PoolMax int
	// ConnectTimeout bounds opening one connection
	// (POSTGRESQL_CONNECT_TIMEOUT_S, default 60 s).
	ConnectTimeout time.Duration
	// CommandTimeout is the server's statement_timeout for every
	// statement (POSTGRESQL_COMMAND_TIMEOUT_S, default 60 s).
	CommandTimeout time.Duration
	// MigrationTimeout bounds schema migration at Open
	// (POSTGRESQL_MIGRATION_TIMEOUT_S, default 300 s).
	MigrationTimeout time.Duration
	// MaxInactiveLifetime closes connections idle this long
	// (POSTGRESQL_MAX_INACTIVE_LIFETIME_S, default 300 s; 0 keeps them).
	MaxInactiveLifetime time.Duration
	// MaxQueries recycles a connection after this many statements
	// (POSTGRESQL_MAX_QUERIES, default 10000; 0 never).
	MaxQueries int
	// Keepalives are the TCP keepalive settings of every connection
	// (POSTGRESQL_TCP_KEEPALIVES_IDLE_S 15, _INTERVAL_S 5, _COUNT 3).
	KeepalivesIdle, KeepalivesInterval time.Duration
	KeepalivesCount                    int
	// PoolTimeout bounds the wait for a free connection of the pool
	// (POSTGRESQL_POOL_TIMEOUT_S, default 120 s); past it an operation
	// fails with errors.ErrUnavailable.
	PoolTimeout time.Duration
	// SessionPoolerMaxClients caps the pool when the host is a
	// session-mode pooler with a per-user client limit (Supabase's
	// *.pooler.supabase.com:5432; POSTGRESQL_SESSION_POOLER_MAX_CLIENTS,
	// default 15).
	SessionPoolerMaxClients int
	// MaxCachedStatementLifetime drops a connection's cached prepared
	// statements once they are this old, when the connection is next
	// used (POSTGRESQL_MAX_CACHED_STATEMENT_LIFETIME_S, default 300 s;
	// negative: never).
	MaxCachedStatementLifetime time.Duration
	// MaxCacheableStatementSize is the longest statement (in bytes) that
	// is prepared and cached; longer ones run unprepared
	// (POSTGRESQL_MAX_CACHEABLE_STATEMENT_SIZE, default 15360; negative:
	// no limit).
	MaxCacheableStatementSize int
	// StatementCacheSize is the number of prepared statements cached per
	// connection (POSTGRESQL_STATEMENT_CACHE_SIZE, default 100); 0
	// prepares nothing (needed behind transaction-mode poolers and on
	// PGlite, whose one backend session is shared by every connection).
	// StatementCacheSize nil means the default; see statementCache.
	StatementCacheSize *int
	// RLS enables row-level security policies (ENABLE_POSTGRESQL_RLS).
	RLS bool
}

// Identity names the part of the database the options select, for the
// folder of the in-process index snapshots (search.SnapshotPrefix): the
// schema, since two schemas of one database are two stores.
func (o Options) Identity() string { return o.Schema }

// Defaults of the POSTGRESQL_* settings (the reference's).
const (
	defaultSchema           = "public"
	defaultPoolMin          = 2
	defaultPoolMax          = 20
	defaultConnectTimeout   = 60 * time.Second
	defaultCommandTimeout   = 60 * time.Second
	defaultMigrationTimeout = 300 * time.Second
	defaultInactive         = 300 * time.Second
	defaultMaxQueries       = 10000
	defaultKeepIdle         = 15 * time.Second
	defaultKeepInterval     = 5 * time.Second
	defaultKeepCount        = 3
	defaultStatementCache   = 100
	defaultPoolTimeout      = 120 * time.Second
	defaultPoolerClients    = 15
	defaultStmtLifetime     = 300 * time.Second
	defaultStmtSize         = 15360
)

// schemaName is the identifier POSTGRESQL_SCHEMA accepts (config checks it
// too; the store re-checks because it interpolates the name into DDL).
var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]{0,62}$`)

// settings are validated Options with defaults applied.
type settings struct {
	Options
	stmtCache int
}

// resolve validates o and fills in the defaults. Errors name the option
// and never echo the URL (it may hold a password).
func resolve(o Options) (settings, error) {
	s := settings{Options: o}
	if strings.TrimSpace(o.URL) == "" {
		return s, errf("option URL: no connection string")
	}
	if strings.Contains(o.URL, "://") {
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return s, errf("option URL: must be a postgres:// or postgresql:// URL")
		}
	}
	if s.Schema == "" {
		s.Schema = defaultSchema
	}
	if !schemaName.MatchString(s.Schema) {
		return s, errf("option Schema %q: must be an identifier of 1 to 63 characters: a letter or _ then letters, digits, _ or $", s.Schema)
	}
	def(&s.PoolMin, defaultPoolMin)
	def(&s.PoolMax, max(defaultPoolMax, s.PoolMin))
	switch {
	case s.PoolMin < 0 || s.PoolMin > 1000:
		return s, errf("option PoolMin %d: must be from 0 to 1000", s.PoolMin)
	case s.PoolMax < 1 || s.PoolMax > 1000:
		return s, errf("option PoolMax %d: must be from 1 to 1000", s.PoolMax)
	case s.PoolMax < s.PoolMin:
		return s, errf("option PoolMax %d: must be at least PoolMin (%d)", s.PoolMax, s.PoolMin)
	}
	def(&s.ConnectTimeout, defaultConnectTimeout)
	def(&s.CommandTimeout, defaultCommandTimeout)
	def(&s.MigrationTimeout, defaultMigrationTimeout)
	def(&s.MaxInactiveLifetime, defaultInactive)
	def(&s.PoolTimeout, defaultPoolTimeout)
	def(&s.MaxCachedStatementLifetime, defaultStmtLifetime)
	def(&s.MaxCacheableStatementSize, defaultStmtSize)
	def(&s.SessionPoolerMaxClients, defaultPoolerClients)
	if s.SessionPoolerMaxClients < 1 || s.SessionPoolerMaxClients > 1000 {
		return s, errf("option SessionPoolerMaxClients %d: must be from 1 to 1000", s.SessionPoolerMaxClients)
	}
	def(&s.KeepalivesIdle, defaultKeepIdle)
	def(&s.KeepalivesInterval, defaultKeepInterval)
	def(&s.KeepalivesCount, defaultKeepCount)
	def(&s.MaxQueries, defaultMaxQueries)
	for name, d := range map[string]time.Duration{"ConnectTimeout": s.ConnectTimeout, "CommandTimeout": s.CommandTimeout,
		"MigrationTimeout": s.MigrationTimeout, "PoolTimeout": s.PoolTimeout, "KeepalivesIdle": s.KeepalivesIdle, "KeepalivesInterval": s.KeepalivesInterval} {
		if d < 0 {
			return s, errf("option %s %v: must not be negative", name, d)
		}
	}
	if s.MaxQueries < 0 || s.KeepalivesCount < 0 || s.MaxInactiveLifetime < 0 {
		return s, errf("options MaxQueries, KeepalivesCount and MaxInactiveLifetime must not be negative")
	}
	s.stmtCache = defaultStatementCache
	if o.StatementCacheSize != nil {
		if *o.StatementCacheSize < 0 {
			return s, errf("option StatementCacheSize %d: must not be negative", *o.StatementCacheSize)
		}
		s.stmtCache = *o.StatementCacheSize
	}
	return s, nil
}

// def sets *p to v when it is zero: an option left unset.
func def[T int | time.Duration](p *T, v T) {
	if *p == 0 {
		*p = v
	}
}

// quoteIdent quotes a (validated) identifier for DDL.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// String describes the settings without the connection string.
func (s settings) String() string {
	return fmt.Sprintf("schema=%s pool=%d..%d", s.Schema, s.PoolMin, s.PoolMax)
}
