package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
)

func lookupMap(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestConfigDefaults(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	c, err := FromEnv(lookupMap(nil))
	if err != nil {
		t.Fatalf("FromEnv: %v", err)
	}
	def, _ := contextd.DefaultDBPath()
	checks := []struct {
		name      string
		got, want any
	}{
		{"DBPath", c.Engine.DBPath, def},
		{"Transport", c.Transport, TransportStdio},
		{"LogLevel", c.LogLevel, LogError},
		{"DefaultPrincipal", c.Server.DefaultPrincipal, "local"},
		{"Instructions", c.Server.Instructions == nil, true},
		{"DisabledTools", len(c.Server.DisabledTools), 0},
		{"DefaultVisibility", c.Engine.DefaultVisibility, "private"},
		{"DefaultGroupGrants", c.Engine.DefaultGroupGrants, "none"},
		{"AnonymousPrincipal", c.Engine.AnonymousPrincipal, ""},
		{"PublishRole", c.Engine.PublishRole, ""},
		{"MaxImageSizeMB", c.Engine.MaxImageSizeMB, 10},
		{"MaxTotalSizeMB", c.Engine.MaxTotalSizeMB, 100},
		{"SearchTruncationLength", c.Engine.SearchTruncationLength, 300},
		{"IncludeSummaryInGet", c.Engine.IncludeSummaryInGet, false},
		{"IndexedFields", c.Engine.IndexedFields == nil, true},
		{"SQLite", reflect.DeepEqual(c.SQLite, SQLite{}) && c.Engine.Storage.Options == nil, true},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Fatalf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if def != "/home/tester/.mcp/context_storage.db" {
		t.Fatalf("default DB path: got %q", def)
	}
}

func TestConfigValues(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	c, err := FromEnv(lookupMap(map[string]string{
		"DB_PATH":                             "~/data/ctx.db",
		"STORAGE_BACKEND":                     "SQLite",
		"MCP_TRANSPORT":                       "stdio",
		"LOG_LEVEL":                           "debug",
		"MAX_IMAGE_SIZE_MB":                   "5",
		"MAX_TOTAL_SIZE_MB":                   "50",
		"DISABLED_TOOLS":                      " Delete_Context , update_context,, ",
		"MCP_SERVER_INSTRUCTIONS":             "",
		"ACCESS_CONTROL_DEFAULT_PRINCIPAL":    "alice@example.com",
		"ACCESS_CONTROL_DEFAULT_VISIBILITY":   "public",
		"ACCESS_CONTROL_ANONYMOUS_PRINCIPAL":  "anon",
		"ACCESS_CONTROL_PUBLISH_ROLE":         "publisher",
		"ACCESS_CONTROL_DEFAULT_GROUP_GRANTS": "author_groups",
		"GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY":  "on",
		"SEARCH_TRUNCATION_LENGTH":            "50",
		"METADATA_INDEXED_FIELDS":             "status, priority:Integer ,done:boolean,",
		"SQLITE_JOURNAL_MODE":                 "delete",
		"SQLITE_SYNCHRONOUS":                  "full",
		"SQLITE_TEMP_STORE":                   "2",
		"SQLITE_MMAP_SIZE":                    "1048576",
		"SQLITE_CACHE_SIZE":                   "-2000",
		"SQLITE_PAGE_SIZE":                    "8192",
		"SQLITE_WAL_AUTOCHECKPOINT":           "500",
		"SQLITE_FOREIGN_KEYS":                 "false",
		"SQLITE_WAL_CHECKPOINT":               "truncate",
		"POOL_MAX_READERS":                    "4",
		"POOL_CONNECTION_TIMEOUT_S":           "2.5",
		"POOL_IDLE_TIMEOUT_S":                 "45",
		"POOL_HEALTH_CHECK_INTERVAL_S":        "0.5",
	}))
	if err != nil {
		t.Fatalf("FromEnv: %v", err)
	}
	e, o := c.Engine, c.SQLite
	checks := []struct {
		name      string
		got, want any
	}{
		{"DBPath", e.DBPath, "/home/tester/data/ctx.db"},
		{"LogLevel", c.LogLevel, LogDebug},
		{"DisabledTools", strings.Join(c.Server.DisabledTools, ","), "delete_context,update_context"},
		{"Instructions set empty", c.Server.Instructions != nil && *c.Server.Instructions == "", true},
		{"DefaultPrincipal", c.Server.DefaultPrincipal, "alice@example.com"},
		{"DefaultVisibility", e.DefaultVisibility, "public"},
		{"AnonymousPrincipal", e.AnonymousPrincipal, "anon"},
		{"PublishRole", e.PublishRole, "publisher"},
		{"DefaultGroupGrants", e.DefaultGroupGrants, "author_groups"},
		{"IncludeSummaryInGet", e.IncludeSummaryInGet, true},
		{"SearchTruncationLength", e.SearchTruncationLength, 50},
		{"MaxImageSizeMB", e.MaxImageSizeMB, 5},
		{"MaxTotalSizeMB", e.MaxTotalSizeMB, 50},
		{"IndexedFields", reflect.DeepEqual(e.IndexedFields, []contextd.IndexedField{{Name: "status", Type: "string"}, {Name: "priority", Type: "integer"}, {Name: "done", Type: "boolean"}}), true},
		{"JournalMode", o.JournalMode, "DELETE"},
		{"Synchronous", o.Synchronous, "FULL"},
		{"TempStore", o.TempStore, "2"},
		{"MmapSize", o.MmapSize, int64(1048576)},
		{"CacheSize", o.CacheSize, int64(-2000)},
		{"PageSize", o.PageSize, 8192},
		{"WALAutocheckpoint", o.WALAutocheckpoint, 500},
		{"ForeignKeys", o.ForeignKeys != nil && !*o.ForeignKeys, true},
		{"MaxReaders", o.MaxReaders, 4},
		{"IdleTimeout", o.IdleTimeout, 45 * time.Second},
		{"HealthCheckInterval", o.HealthCheckInterval, 500 * time.Millisecond},
		{"BusyTimeout from the pool timeout", o.BusyTimeout, 2500 * time.Millisecond},
		{"SlogLevel", c.SlogLevel().String(), "DEBUG"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Fatalf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestConfigBusyTimeoutOverride(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", "POOL_CONNECTION_TIMEOUT_S": "3", "SQLITE_BUSY_TIMEOUT_MS": "1500"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.SQLite.BusyTimeout; got != 1500*time.Millisecond {
		t.Fatalf("BusyTimeout: got %v, want 1.5s", got)
	}
	c, err = FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", "METADATA_INDEXED_FIELDS": " "}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine.IndexedFields == nil || len(c.Engine.IndexedFields) != 0 {
		t.Fatalf("empty METADATA_INDEXED_FIELDS: got %#v, want a non-nil empty list", c.Engine.IndexedFields)
	}
}

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name, varName, value string
		want                 string // substring of the message
	}{
		{"blank DB_PATH", "DB_PATH", "  ", "must not be blank"},
		{"empty DB_PATH", "DB_PATH", "", "must not be blank"},
		{"unknown backend", "STORAGE_BACKEND", "mysql", "must be one of sqlite, postgresql"},
		{"sse transport", "MCP_TRANSPORT", "sse", "the legacy sse transport is not implemented; use http"},
		{"port 0", "FASTMCP_PORT", "0", "must be an integer from 1 to 65535"},
		{"port high", "FASTMCP_PORT", "65536", "must be an integer from 1 to 65535"},
		{"json response", "FASTMCP_JSON_RESPONSE", "maybe", "must be a boolean"},
		{"auth provider", "MCP_AUTH_PROVIDER", "oauth", "must be one of none, simple_token, jwt"},
		{"unknown transport", "MCP_TRANSPORT", "tcp", "must be one of stdio, http, streamable-http, sse"},
		{"log level", "LOG_LEVEL", "verbose", "must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"},
		{"image size 0", "MAX_IMAGE_SIZE_MB", "0", "must be an integer of at least 1"},
		{"image size text", "MAX_IMAGE_SIZE_MB", "ten", "must be an integer of at least 1"},
		{"total size 0", "MAX_TOTAL_SIZE_MB", "0", "must be an integer of at least 1"},
		{"principal with space", "ACCESS_CONTROL_DEFAULT_PRINCIPAL", "a b", "must be 1 to 128 characters"},
		{"empty principal", "ACCESS_CONTROL_DEFAULT_PRINCIPAL", "", "must be 1 to 128 characters"},
		{"long principal", "ACCESS_CONTROL_DEFAULT_PRINCIPAL", strings.Repeat("p", 129), "must be 1 to 128 characters"},
		{"visibility shared", "ACCESS_CONTROL_DEFAULT_VISIBILITY", "shared", "must be one of private, public"},
		{"group grants", "ACCESS_CONTROL_DEFAULT_GROUP_GRANTS", "all", "must be one of none, author_groups"},
		{"summary flag", "GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY", "sometimes", "must be a boolean"},
		{"truncation low", "SEARCH_TRUNCATION_LENGTH", "49", "must be an integer from 50 to 1000"},
		{"truncation high", "SEARCH_TRUNCATION_LENGTH", "1001", "must be an integer from 50 to 1000"},
		{"field name", "METADATA_INDEXED_FIELDS", "status,bad-name", `field name "bad-name" must match`},
		{"field name digit", "METADATA_INDEXED_FIELDS", "1st", `field name "1st" must match`},
		{"field name long", "METADATA_INDEXED_FIELDS", strings.Repeat("f", 51), "longer than 50 characters"},
		{"field type", "METADATA_INDEXED_FIELDS", "priority:number", "the type must be one of string, integer, boolean, float, array, object"},
		{"field repeated", "METADATA_INDEXED_FIELDS", "status,status:integer", `field "status" is listed more than once`},
		{"field case collision", "METADATA_INDEXED_FIELDS", "Status,status", `field "status" collides with "Status"`},
		{"journal mode", "SQLITE_JOURNAL_MODE", "wal-mode", "must be one of DELETE, TRUNCATE, PERSIST, MEMORY, WAL, OFF"},
		{"synchronous", "SQLITE_SYNCHRONOUS", "FULLL", "must be one of OFF, NORMAL, FULL, EXTRA, 0, 1, 2, 3"},
		{"temp store", "SQLITE_TEMP_STORE", "3", "must be one of DEFAULT, FILE, MEMORY, 0, 1, 2"},
		{"wal checkpoint", "SQLITE_WAL_CHECKPOINT", "NOW", "must be one of PASSIVE, FULL, RESTART, TRUNCATE"},
		{"mmap negative", "SQLITE_MMAP_SIZE", "-1", "must be an integer of at least 0"},
		{"cache size text", "SQLITE_CACHE_SIZE", "big", "must be an integer"},
		{"page size not power of two", "SQLITE_PAGE_SIZE", "5000", "must be a power of two from 512 to 65536"},
		{"page size too big", "SQLITE_PAGE_SIZE", "131072", "must be a power of two from 512 to 65536"},
		{"autocheckpoint", "SQLITE_WAL_AUTOCHECKPOINT", "1.5", "must be an integer"},
		{"busy timeout", "SQLITE_BUSY_TIMEOUT_MS", "-5", "must be an integer of at least 0"},
		{"foreign keys", "SQLITE_FOREIGN_KEYS", "maybe", "must be a boolean"},
		{"max readers", "POOL_MAX_READERS", "0", "must be an integer of at least 1"},
		{"pool timeout", "POOL_CONNECTION_TIMEOUT_S", "0", "must be a number of seconds greater than 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"DB_PATH": "/tmp/x.db", tc.varName: tc.value}
			_, err := FromEnv(lookupMap(env))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *Error", err)
			}
			if ce.Var != tc.varName {
				t.Fatalf("Var: got %s, want %s", ce.Var, tc.varName)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.varName) || !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q must name %s and contain %q", msg, tc.varName, tc.want)
			}
		})
	}
}

func TestConfigReportsEveryProblem(t *testing.T) {
	_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", "LOG_LEVEL": "loud", "POOL_MAX_READERS": "-1"}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, v := range []string{"LOG_LEVEL", "POOL_MAX_READERS"} {
		if !strings.Contains(err.Error(), v) {
			t.Fatalf("error %q does not name %s", err, v)
		}
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Var != "LOG_LEVEL" {
		t.Fatalf("errors.As: got %v", ce)
	}
}

func TestConfigSetButEmpty(t *testing.T) {
	env := map[string]string{"MCP_SERVER_INSTRUCTIONS": "", "DB_PATH": "/tmp/ctx.db"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, err := FromEnv(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Instructions == nil || *c.Server.Instructions != "" {
		t.Fatalf("MCP_SERVER_INSTRUCTIONS set to \"\": got %v, want an empty override", c.Server.Instructions)
	}
	env["DB_PATH"] = ""
	if _, err := FromEnv(lookup); err == nil || !strings.Contains(err.Error(), "DB_PATH") {
		t.Fatalf("DB_PATH set to \"\": got %v, want a DB_PATH error", err)
	}
}

// TestKnowledgeSettings reads KNOWLEDGE_* and refuses bad sources.
func TestKnowledgeSettings(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"KNOWLEDGE_SOURCES": "company-docs=" + dir, "KNOWLEDGE_WORKERS": "2",
		"KNOWLEDGE_MAX_UPLOAD_MB": "5", "KNOWLEDGE_MIN_SCORE": "0.25", "ACCESS_CONTROL_DEFAULT_VISIBILITY": "public"}
	c, err := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	k := c.Engine.Knowledge
	if len(k.Sources) != 1 || k.Sources[0].Name != "company-docs" || k.Workers != 2 || k.MaxUploadBytes != 5_000_000 || k.MinScore != 0.25 || c.Engine.DefaultVisibility != "public" {
		t.Fatalf("knowledge options %+v", k)
	}
	for _, bad := range []string{"Bad_Name=" + dir, "docs", "docs=/nonexistent/dir", "a1=" + dir + ",a1=" + dir} {
		env := map[string]string{"KNOWLEDGE_SOURCES": bad}
		if _, err := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err == nil || !strings.Contains(err.Error(), "KNOWLEDGE_SOURCES") {
			t.Errorf("KNOWLEDGE_SOURCES=%q: error %v", bad, err)
		}
	}
}
