package config

import (
	"net"
	"net/url"
	"strconv"

	"github.com/contextd/contextd/persist/postgres"
)

// postgresStorage turns the validated POSTGRESQL_* settings into the
// connection string and options of persist/postgres. A
// POSTGRESQL_CONNECTION_STRING overrides the parts (host, port, user,
// password, database, SSL mode); the pool, timeout, keepalive and
// statement-cache settings apply either way.
func postgresStorage(g PostgreSQL) (string, postgres.Options) {
	dsn := g.ConnectionString
	if dsn == "" {
		u := url.URL{
			Scheme:   "postgres",
			User:     url.UserPassword(g.User, g.Password),
			Host:     net.JoinHostPort(g.Host, strconv.Itoa(g.Port)),
			Path:     "/" + g.Database,
			RawQuery: url.Values{"sslmode": {g.SSLMode}}.Encode(),
		}
		dsn = u.String()
	}
	cache := g.StatementCacheSize
	// 0 in the environment means "no expiry" / "no size limit"; the
	// store's zero values mean the defaults, so pass those as negative.
	life, size := g.MaxCachedStatementLifetime, g.MaxCacheableStatementSize
	if life == 0 {
		life = -1
	}
	if size == 0 {
		size = -1
	}
	return dsn, postgres.Options{
		Schema:              g.Schema,
		PoolMin:             g.PoolMin,
		PoolMax:             g.PoolMax,
		ConnectTimeout:      g.ConnectTimeout,
		CommandTimeout:      g.CommandTimeout,
		MigrationTimeout:    g.MigrationTimeout,
		MaxInactiveLifetime: g.MaxInactiveLifetime,
		MaxQueries:          g.MaxQueries,
		KeepalivesIdle:      g.KeepalivesIdle,
		KeepalivesInterval:  g.KeepalivesInterval,
		KeepalivesCount:     g.KeepalivesCount,
		StatementCacheSize:  &cache,
		RLS:                 g.RLS,

		PoolTimeout:                g.PoolTimeout,
		SessionPoolerMaxClients:    g.SessionPoolerMaxClients,
		MaxCachedStatementLifetime: life,
		MaxCacheableStatementSize:  size,
	}
}
