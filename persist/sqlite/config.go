package sqlite

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Defaults of the SQLITE_* settings.
const (
	defaultJournalMode       = "WAL"
	defaultSynchronous       = "NORMAL"
	defaultTempStore         = "MEMORY"
	defaultMmapSize          = 268435456
	defaultCacheSize         = -64000
	defaultPageSize          = 4096
	defaultWALAutocheckpoint = 1000
	defaultBusyTimeout       = 10 * time.Second
	defaultMaxReaders        = 8
	defaultIdleTimeout       = 300 * time.Second
	defaultHealthInterval    = 30 * time.Second
)

// settings are validated Options with defaults applied.
type settings struct {
	memory            bool
	file              string // absolute path of the main database file ("" in memory)
	journalMode       string
	synchronous       string
	tempStore         string
	mmapSize          int64
	cacheSize         int64
	pageSize          int
	walAutocheckpoint int
	busyTimeoutMS     int64
	foreignKeys       bool
	maxReaders        int
	idleTimeout       time.Duration
	healthInterval    time.Duration
}

// resolve validates o and fills in the defaults. Errors name the option.
func resolve(o Options) (settings, error) {
	s := settings{
		journalMode:       defaultJournalMode,
		synchronous:       defaultSynchronous,
		tempStore:         defaultTempStore,
		mmapSize:          defaultMmapSize,
		cacheSize:         defaultCacheSize,
		pageSize:          defaultPageSize,
		walAutocheckpoint: defaultWALAutocheckpoint,
		busyTimeoutMS:     defaultBusyTimeout.Milliseconds(),
		foreignKeys:       true,
		maxReaders:        defaultMaxReaders,
		idleTimeout:       defaultIdleTimeout,
		healthInterval:    defaultHealthInterval,
	}
	switch {
	case o.Path == "":
		return s, fmt.Errorf("sqlite: option Path: empty database path")
	case o.Path == ":memory:":
		s.memory = true
	case strings.ContainsRune(o.Path, 0):
		return s, fmt.Errorf("sqlite: option Path: contains a NUL byte")
	default:
		abs, err := filepath.Abs(o.Path)
		if err != nil {
			return s, fmt.Errorf("sqlite: option Path: %w", err)
		}
		s.file = abs
	}
	var err error
	if o.JournalMode != "" {
		if s.journalMode, err = oneOf("JournalMode", o.JournalMode,
			"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"); err != nil {
			return s, err
		}
	}
	if o.Synchronous != "" {
		if s.synchronous, err = oneOf("Synchronous", o.Synchronous,
			"OFF", "NORMAL", "FULL", "EXTRA", "0", "1", "2", "3"); err != nil {
			return s, err
		}
	}
	if o.TempStore != "" {
		if s.tempStore, err = oneOf("TempStore", o.TempStore,
			"DEFAULT", "FILE", "MEMORY", "0", "1", "2"); err != nil {
			return s, err
		}
	}
	switch {
	case o.MmapSize < 0:
		return s, fmt.Errorf("sqlite: option MmapSize: %d is negative", o.MmapSize)
	case o.MmapSize > 0:
		s.mmapSize = o.MmapSize
	}
	if o.CacheSize != 0 {
		s.cacheSize = o.CacheSize
	}
	switch {
	case o.PageSize == 0:
	case o.PageSize < 512 || o.PageSize > 65536 || o.PageSize&(o.PageSize-1) != 0:
		return s, fmt.Errorf("sqlite: option PageSize: %d is not a power of two between 512 and 65536", o.PageSize)
	default:
		s.pageSize = o.PageSize
	}
	switch {
	case o.WALAutocheckpoint < 0:
		return s, fmt.Errorf("sqlite: option WALAutocheckpoint: %d is negative", o.WALAutocheckpoint)
	case o.WALAutocheckpoint > 0:
		s.walAutocheckpoint = o.WALAutocheckpoint
	}
	switch {
	case o.BusyTimeout < 0:
		return s, fmt.Errorf("sqlite: option BusyTimeout: %v is negative", o.BusyTimeout)
	case o.BusyTimeout > 0:
		s.busyTimeoutMS = max(o.BusyTimeout.Milliseconds(), 1)
	}
	if o.ForeignKeys != nil {
		s.foreignKeys = *o.ForeignKeys
	}
	switch {
	case o.MaxReaders < 0:
		return s, fmt.Errorf("sqlite: option MaxReaders: %d is negative", o.MaxReaders)
	case o.MaxReaders > 0:
		s.maxReaders = o.MaxReaders
	}
	if err := duration("IdleTimeout", o.IdleTimeout, &s.idleTimeout); err != nil {
		return s, err
	}
	if err := duration("HealthCheckInterval", o.HealthCheckInterval, &s.healthInterval); err != nil {
		return s, err
	}
	return s, nil
}

// duration sets *dst to v when v is positive; zero keeps the default and a
// negative v is refused, naming the option.
func duration(option string, v time.Duration, dst *time.Duration) error {
	if v < 0 {
		return fmt.Errorf("sqlite: option %s: %v is negative", option, v)
	}
	if v > 0 {
		*dst = v
	}
	return nil
}

// oneOf returns the canonical (upper-case) spelling of v when it is one of
// allowed, compared case-insensitively.
func oneOf(option, v string, allowed ...string) (string, error) {
	u := strings.ToUpper(strings.TrimSpace(v))
	for _, a := range allowed {
		if u == a {
			return a, nil
		}
	}
	return "", fmt.Errorf("sqlite: option %s: unknown value %q (want one of %s)", option, v, strings.Join(allowed, ", "))
}

// dsns returns the data source names of the writer and of the readers.
// Pragmas that only the writer needs (page_size before the first table,
// journal_mode) are left out of the readers, which are query-only.
func (s settings) dsns() (writer, reader string, err error) {
	var base string
	if s.memory {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", "", fmt.Errorf("sqlite: name in-memory database: %w", err)
		}
		base = "file:memdb" + hex.EncodeToString(b[:]) + "?mode=memory&cache=shared"
	} else {
		base = "file:" + escapeURIPath(s.file) + "?"
	}
	common := []string{
		"_busy_timeout=" + strconv.FormatInt(s.busyTimeoutMS, 10),
		"_pragma=" + url.QueryEscape("cache_size("+strconv.FormatInt(s.cacheSize, 10)+")"),
		"_pragma=" + url.QueryEscape("mmap_size("+strconv.FormatInt(s.mmapSize, 10)+")"),
		"_pragma=" + url.QueryEscape("temp_store("+s.tempStore+")"),
		"_pragma=" + url.QueryEscape("wal_autocheckpoint("+strconv.Itoa(s.walAutocheckpoint)+")"),
		"_foreign_keys=" + boolDSN(s.foreignKeys),
		"_synchronous=" + s.synchronous,
	}
	sep := "&"
	if strings.HasSuffix(base, "?") {
		sep = ""
	}
	// page_size is in the _pragma list, which the driver applies before the
	// _journal_mode shorthand, so it still takes effect on a new database.
	w := append([]string{
		"_pragma=" + url.QueryEscape("page_size("+strconv.Itoa(s.pageSize)+")"),
		"_journal_mode=" + s.journalMode,
		"_txlock=immediate",
	}, common...)
	r := append([]string{"_query_only=1"}, common...)
	if s.memory {
		// Shared-cache table locks would make a Store read issued while a
		// write transaction is open wait for that transaction, forever when
		// the same goroutine runs both. WAL has no such wait; in memory the
		// readers read uncommitted instead.
		r = append(r, "_pragma="+url.QueryEscape("read_uncommitted(1)"))
	}
	return base + sep + strings.Join(w, "&"), base + sep + strings.Join(r, "&"), nil
}

func boolDSN(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// escapeURIPath escapes the characters that end or alter the path part of
// a SQLite URI filename.
func escapeURIPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
