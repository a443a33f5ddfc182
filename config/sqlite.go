package config

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/request"
)

// readSQLite reads the SQLite pragmas and pool settings (SQLITE_*,
// POOL_*). Unset variables leave their field zero, which the store reads
// as its documented default. Every SQLite variable is read here and
// nowhere else; server/setup hands the result to the store.
func readSQLite(r *envReader) SQLite {
	var (
		journalModes  = []string{"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"}
		syncModes     = []string{"OFF", "NORMAL", "FULL", "EXTRA", "0", "1", "2", "3"}
		tempStores    = []string{"DEFAULT", "FILE", "MEMORY", "0", "1", "2"}
		walCheckpoint = []string{"PASSIVE", "FULL", "RESTART", "TRUNCATE"}
	)
	var o SQLite
	o.JournalMode = r.choice("SQLITE_JOURNAL_MODE", "", strings.ToUpper, journalModes...)
	o.Synchronous = r.choice("SQLITE_SYNCHRONOUS", "", strings.ToUpper, syncModes...)
	o.TempStore = r.choice("SQLITE_TEMP_STORE", "", strings.ToUpper, tempStores...)
	r.choice("SQLITE_WAL_CHECKPOINT", "", strings.ToUpper, walCheckpoint...) // validated; applied by the store's default
	o.MmapSize = r.int64Range("SQLITE_MMAP_SIZE", 0, 0, math.MaxInt64)
	o.CacheSize = r.int64Range("SQLITE_CACHE_SIZE", 0, math.MinInt64, math.MaxInt64)
	o.WALAutocheckpoint = int(r.int64Range("SQLITE_WAL_AUTOCHECKPOINT", 0, math.MinInt32, math.MaxInt32))
	if v, ok := r.lookup("SQLITE_PAGE_SIZE"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 512 || n > 65536 || n&(n-1) != 0 {
			r.fail("SQLITE_PAGE_SIZE", v, "must be a power of two from 512 to 65536")
		} else {
			o.PageSize = n
		}
	}
	if v, ok := r.lookup("SQLITE_FOREIGN_KEYS"); ok {
		b, valid := request.ParseBoolWord(v)
		if !valid {
			r.fail("SQLITE_FOREIGN_KEYS", v, "must be a boolean: true, false, 1, 0, yes, no, on or off")
		} else {
			o.ForeignKeys = &b
		}
	}
	o.MaxReaders = int(r.int64Range("POOL_MAX_READERS", 0, 1, math.MaxInt32))
	o.IdleTimeout = r.seconds("POOL_IDLE_TIMEOUT_S", 0, 86400)                  // zero: the store default, 300 s
	o.HealthCheckInterval = r.seconds("POOL_HEALTH_CHECK_INTERVAL_S", 0, 86400) // zero: 30 s
	if v, ok := r.lookup("POOL_CONNECTION_TIMEOUT_S"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || f > 86400 {
			r.fail("POOL_CONNECTION_TIMEOUT_S", v, "must be a number of seconds greater than 0")
		} else {
			o.BusyTimeout = time.Duration(f * float64(time.Second))
		}
	}
	if ms := r.int64Range("SQLITE_BUSY_TIMEOUT_MS", -1, 0, math.MaxInt32); ms >= 0 {
		o.BusyTimeout = time.Duration(ms) * time.Millisecond
	}
	return o
}
