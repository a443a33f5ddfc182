package sqlite

import "time"

// Options configure a SQLite store. Zero values mean the documented
// defaults of the SQLITE_* environment variables.
type Options struct {
	// Path is the database file; ":memory:" opens a private in-memory database.
	Path string

	JournalMode       string        // SQLITE_JOURNAL_MODE, default WAL
	Synchronous       string        // SQLITE_SYNCHRONOUS, default NORMAL
	TempStore         string        // SQLITE_TEMP_STORE, default MEMORY
	MmapSize          int64         // SQLITE_MMAP_SIZE, default 268435456
	CacheSize         int64         // SQLITE_CACHE_SIZE, default -64000
	PageSize          int           // SQLITE_PAGE_SIZE, default 4096
	WALAutocheckpoint int           // SQLITE_WAL_AUTOCHECKPOINT, default 1000
	BusyTimeout       time.Duration // SQLITE_BUSY_TIMEOUT_MS, default 10s
	ForeignKeys       *bool         // SQLITE_FOREIGN_KEYS, default true
	MaxReaders        int           // POOL_MAX_READERS, default 8
	// IdleTimeout closes a reader connection idle this long
	// (POOL_IDLE_TIMEOUT_S, default 300s); HealthCheckInterval is how
	// often idle connections are checked (POOL_HEALTH_CHECK_INTERVAL_S,
	// default 30s). See health.go.
	IdleTimeout         time.Duration
	HealthCheckInterval time.Duration
}
