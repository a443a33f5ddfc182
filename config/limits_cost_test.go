package config

import (
	"testing"
	"time"
)

// TestConfigCallLimits: the per-call cost limits' defaults, values, the
// zero values that switch the deadline and the pool off, and a refused
// value naming its variable.
func TestConfigCallLimits(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{MaxQueryChars: 10000, SearchTimeout: 30 * time.Second, HeavyQueryChars: 1000, HeavyQueueTimeout: 10 * time.Second}
	if c.Server.Limits != want {
		t.Fatalf("defaults: %+v, want %+v", c.Server.Limits, want)
	}
	c, err = FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "SEARCH_MAX_QUERY_CHARS": "500", "SEARCH_TIMEOUT_MS": "0",
		"HEAVY_QUERY_CHARS": "200", "HEAVY_CALLS": "0", "HEAVY_QUEUE_TIMEOUT_MS": "250"}))
	if err != nil {
		t.Fatal(err)
	}
	want = Limits{MaxQueryChars: 500, SearchTimeout: -1, HeavyQueryChars: 200, HeavyCalls: -1, HeavyQueueTimeout: 250 * time.Millisecond}
	if c.Server.Limits != want {
		t.Fatalf("set: %+v, want %+v", c.Server.Limits, want)
	}
	if c, _ = FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "HEAVY_CALLS": "3"})); c.Server.Limits.HeavyCalls != 3 {
		t.Fatalf("HEAVY_CALLS=3: %d", c.Server.Limits.HeavyCalls)
	}
	_, err = FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "SEARCH_MAX_QUERY_CHARS": "20000"}))
	if err == nil || err.Error() != `invalid configuration: SEARCH_MAX_QUERY_CHARS="20000": must be an integer from 1 to 10000` {
		t.Fatalf("SEARCH_MAX_QUERY_CHARS=20000: %v", err)
	}
}
