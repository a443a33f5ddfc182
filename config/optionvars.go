package config

import "strings"

// The stores name their options in errors ("sqlite: option MmapSize: -1
// is negative", "postgresql: option RLS needs ..."), as a library user
// sets them; the variables behind them are this package's business, and
// StoreOptionVariables adds them for a command's message.
var storeOptionVariables = strings.NewReplacer(
	"sqlite: option JournalMode:", "sqlite: option JournalMode (SQLITE_JOURNAL_MODE):",
	"sqlite: option Synchronous:", "sqlite: option Synchronous (SQLITE_SYNCHRONOUS):",
	"sqlite: option TempStore:", "sqlite: option TempStore (SQLITE_TEMP_STORE):",
	"sqlite: option MmapSize:", "sqlite: option MmapSize (SQLITE_MMAP_SIZE):",
	"sqlite: option PageSize:", "sqlite: option PageSize (SQLITE_PAGE_SIZE):",
	"sqlite: option WALAutocheckpoint:", "sqlite: option WALAutocheckpoint (SQLITE_WAL_AUTOCHECKPOINT):",
	"sqlite: option BusyTimeout:", "sqlite: option BusyTimeout (SQLITE_BUSY_TIMEOUT_MS):",
	"sqlite: option MaxReaders:", "sqlite: option MaxReaders (POOL_MAX_READERS):",
	"sqlite: option IdleTimeout:", "sqlite: option IdleTimeout (POOL_IDLE_TIMEOUT_S):",
	"sqlite: option HealthCheckInterval:", "sqlite: option HealthCheckInterval (POOL_HEALTH_CHECK_INTERVAL_S):",
	"sqlite: no database path (option Path)", "sqlite: no database path (DB_PATH)",
	"postgresql: option URL:", "postgresql: option URL (POSTGRESQL_CONNECTION_STRING or the POSTGRESQL_* parts):",
	"postgresql: option RLS needs", "postgresql: ENABLE_POSTGRESQL_RLS=true needs",
	"postgresql: option Schema ", "postgresql: option Schema (POSTGRESQL_SCHEMA) ",
	"postgresql: option PoolMin ", "postgresql: option PoolMin (POSTGRESQL_POOL_MIN) ",
	"postgresql: option PoolMax ", "postgresql: option PoolMax (POSTGRESQL_POOL_MAX) ",
	"postgresql: option SessionPoolerMaxClients ", "postgresql: option SessionPoolerMaxClients (POSTGRESQL_SESSION_POOLER_MAX_CLIENTS) ",
)

// StoreOptionVariables rewrites the store options a store's error names
// to name the environment variables that set them too.
func StoreOptionVariables(msg string) string { return storeOptionVariables.Replace(msg) }
