package setup

import (
	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/sqlite"
)

// sqliteOptions are the SQLite store's options of the validated settings.
func sqliteOptions(s config.SQLite) sqlite.Options {
	return sqlite.Options{
		JournalMode:         s.JournalMode,
		Synchronous:         s.Synchronous,
		TempStore:           s.TempStore,
		MmapSize:            s.MmapSize,
		CacheSize:           s.CacheSize,
		PageSize:            s.PageSize,
		WALAutocheckpoint:   s.WALAutocheckpoint,
		BusyTimeout:         s.BusyTimeout,
		ForeignKeys:         s.ForeignKeys,
		MaxReaders:          s.MaxReaders,
		IdleTimeout:         s.IdleTimeout,
		HealthCheckInterval: s.HealthCheckInterval,
	}
}

// postgresOptions are the PostgreSQL store's options of the validated
// POSTGRESQL_* settings (the connection string is config's URL).
func postgresOptions(g config.PostgreSQL) postgres.Options {
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
	return postgres.Options{
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
