package server

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/persist/sqlite"
)

// Config is the configuration of the contextd binary, read from the
// environment variable names of the upstream server (section D).
type Config struct {
	Engine    contextd.Config
	Server    Options
	Transport string // MCP_TRANSPORT: "stdio" or "http" (streamable-http is read as http)
	// HTTP configures the streamable HTTP transport and its authentication
	// (FASTMCP_*, MCP_AUTH_*; see readHTTP).
	HTTP HTTPOptions
	// AuthProvider is MCP_AUTH_PROVIDER as read; stdio ignores it.
	AuthProvider string
	LogLevel     string // LOG_LEVEL: DEBUG, INFO, WARNING, ERROR or CRITICAL
}

// ConfigError reports an invalid environment variable. The binary exits
// with status 78 (EX_CONFIG) on it.
type ConfigError struct {
	Var    string // the environment variable
	Value  string // its value
	Reason string // what is wrong, with the accepted values
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid configuration: %s=%q: %s", e.Var, e.Value, e.Reason)
}

// SlogLevel maps LOG_LEVEL to a slog level (CRITICAL is above ERROR).
func (c Config) SlogLevel() slog.Level {
	switch c.LogLevel {
	case "DEBUG":
		return slog.LevelDebug
	case "INFO":
		return slog.LevelInfo
	case "WARNING":
		return slog.LevelWarn
	case "CRITICAL":
		return slog.LevelError + 4
	}
	return slog.LevelError
}

// ConfigFromLookup reads the configuration through lookup (os.LookupEnv).
// Every invalid variable is reported; the error is a *ConfigError, or
// several joined with errors.Join (errors.As finds the first).
func ConfigFromLookup(lookup func(string) (string, bool)) (Config, error) {
	r := &envReader{lookup: lookup}
	var c Config

	c.LogLevel = r.choice("LOG_LEVEL", "ERROR", strings.ToUpper, "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
	switch b := r.choice("STORAGE_BACKEND", "sqlite", strings.ToLower, "sqlite", "postgresql"); b {
	case "postgresql":
		r.fail("STORAGE_BACKEND", b, "the postgresql backend is not available yet; use sqlite")
	}
	c.Transport = r.choice("MCP_TRANSPORT", "stdio", strings.ToLower, "stdio", "http", "streamable-http", "sse")
	switch c.Transport {
	case "streamable-http":
		c.Transport = "http"
	case "sse":
		r.fail("MCP_TRANSPORT", "sse", "the legacy sse transport is not implemented; use http (streamable HTTP)")
		c.Transport = "stdio"
	}

	// Storage.
	if v, ok := lookup("DB_PATH"); ok {
		switch p := strings.TrimSpace(v); {
		case p == "":
			r.fail("DB_PATH", v, "must not be blank; unset it to use the default ~/.mcp/context_storage.db or give a file path")
		default:
			c.Engine.DBPath = expandHome(p)
		}
	} else if p, err := contextd.DefaultDBPath(); err != nil {
		r.fail("DB_PATH", "", "is unset and the default path cannot be determined ("+err.Error()+"); set DB_PATH")
	} else {
		c.Engine.DBPath = p
	}
	c.Engine.MaxImageSizeMB = r.intRange("MAX_IMAGE_SIZE_MB", 10, 1, math.MaxInt32)
	c.Engine.MaxTotalSizeMB = r.intRange("MAX_TOTAL_SIZE_MB", 100, 1, math.MaxInt32)
	readSQLite(r, &c.Engine)

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
	c.Server.DefaultPrincipal = DefaultPrincipal
	if v, ok := lookup("ACCESS_CONTROL_DEFAULT_PRINCIPAL"); ok {
		if p := strings.TrimSpace(v); principalPattern.MatchString(p) {
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

	readFTS(r, &c)

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
	readSummary(r, &c)
	readEmbedding(r, &c)

	switch len(r.errs) {
	case 0:
		return c, nil
	case 1:
		return c, r.errs[0]
	}
	return c, errors.Join(r.errs...)
}

var (
	journalModes  = []string{"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"}
	syncModes     = []string{"OFF", "NORMAL", "FULL", "EXTRA", "0", "1", "2", "3"}
	tempStores    = []string{"DEFAULT", "FILE", "MEMORY", "0", "1", "2"}
	walCheckpoint = []string{"PASSIVE", "FULL", "RESTART", "TRUNCATE"}
)

// readSQLite reads the SQLite pragmas and pool settings. Unset variables
// leave their field zero, which the store reads as its documented default.
func readSQLite(r *envReader, e *contextd.Config) {
	o := &sqlite.Options{}
	defer func() { e.Storage.Options = *o }()
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
		b, valid := parseBoolWord(v)
		if !valid {
			r.fail("SQLITE_FOREIGN_KEYS", v, "must be a boolean: true, false, 1, 0, yes, no, on or off")
		} else {
			o.ForeignKeys = &b
		}
	}
	o.MaxReaders = int(r.int64Range("POOL_MAX_READERS", 0, 1, math.MaxInt32))
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
}

var fieldNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var fieldTypes = []string{"string", "integer", "boolean", "float", "array", "object"}

// parseIndexedFields parses METADATA_INDEXED_FIELDS: a comma list of
// name[:type]. An empty list indexes nothing (a non-nil empty slice).
func parseIndexedFields(v string) ([]contextd.IndexedField, error) {
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
		case !contains(fieldTypes, typ):
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

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// envReader reads typed variables and collects every problem.
type envReader struct {
	lookup func(string) (string, bool)
	errs   []error
}

func (r *envReader) fail(name, value, reason string) {
	r.errs = append(r.errs, &ConfigError{Var: name, Value: value, Reason: reason})
}

// choice reads one of the accepted values after normalizing with norm.
func (r *envReader) choice(name, def string, norm func(string) string, accepted ...string) string {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	n := norm(strings.TrimSpace(v))
	if !contains(accepted, n) {
		r.fail(name, v, "must be one of "+strings.Join(accepted, ", "))
		return def
	}
	return n
}

// text reads a free string; empty means unset.
func (r *envReader) text(name string) string {
	v, _ := r.lookup(name)
	return strings.TrimSpace(v)
}

func (r *envReader) boolean(name string, def bool) bool {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	b, valid := parseBoolWord(v)
	if !valid {
		r.fail(name, v, "must be a boolean: true, false, 1, 0, yes, no, on or off")
		return def
	}
	return b
}

func (r *envReader) intRange(name string, def, lo, hi int) int {
	return int(r.int64Range(name, int64(def), int64(lo), int64(hi)))
}

func (r *envReader) int64Range(name string, def, lo, hi int64) int64 {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		r.fail(name, v, rangeText(lo, hi))
		return def
	}
	return n
}

func rangeText(lo, hi int64) string {
	switch {
	case lo == math.MinInt64 || (lo == math.MinInt32 && hi == math.MaxInt32):
		return "must be an integer"
	case hi >= math.MaxInt32:
		return fmt.Sprintf("must be an integer of at least %d", lo)
	}
	return fmt.Sprintf("must be an integer from %d to %d", lo, hi)
}
