package config

import (
	"testing"
	"time"
)

// TestConfigLimits: the memory and request limits (MAX_TEXT_CHARS,
// MCP_MAX_REQUEST_BYTES, MCP_HTTP_READ_TIMEOUT_S, MCP_HTTP_IDLE_TIMEOUT_S,
// MCP_HTTP_WRITE_TIMEOUT_S,
// MEMORY_LIMIT_MB): defaults, values, and the exact message of a bad value.
func TestConfigLimits(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db"}))
	if err != nil {
		t.Fatal(err)
	}
	// 100 MiB of images in base64, 10 Mi characters at 4 bytes, 1 MiB.
	wantReq := int64((100<<20*4+2)/3 + 4*(10<<20) + 1<<20)
	if c.Engine.MaxTextChars != 10<<20 || c.HTTP.MaxRequestBytes != wantReq ||
		c.HTTP.ReadTimeout != time.Minute || c.HTTP.IdleTimeout != 2*time.Minute || c.HTTP.WriteTimeout != time.Minute ||
		c.MemoryLimit != 1024<<20 {
		t.Fatalf("defaults: text %d, request %d (want %d), read %v, idle %v, write %v, memory %d",
			c.Engine.MaxTextChars, c.HTTP.MaxRequestBytes, wantReq, c.HTTP.ReadTimeout, c.HTTP.IdleTimeout, c.HTTP.WriteTimeout, c.MemoryLimit)
	}
	c, err = FromEnv(lookupMap(map[string]string{
		"DB_PATH": "/tmp/x.db", "MAX_TEXT_CHARS": "1000", "MAX_TOTAL_SIZE_MB": "1",
		"MCP_HTTP_READ_TIMEOUT_S": "2.5", "MCP_HTTP_IDLE_TIMEOUT_S": "30", "MCP_HTTP_WRITE_TIMEOUT_S": "0.5", "MEMORY_LIMIT_MB": "0",
	}))
	if err != nil {
		t.Fatal(err)
	}
	// The request cap follows the text and image caps when it is not set.
	if want := int64((1<<20*4+2)/3 + 4*1000 + 1<<20); c.HTTP.MaxRequestBytes != want {
		t.Fatalf("derived request cap %d, want %d", c.HTTP.MaxRequestBytes, want)
	}
	if c.Engine.MaxTextChars != 1000 || c.HTTP.ReadTimeout != 2500*time.Millisecond || c.HTTP.IdleTimeout != 30*time.Second ||
		c.HTTP.WriteTimeout != 500*time.Millisecond || c.MemoryLimit != 0 {
		t.Fatalf("values: %+v %v %v %d", c.Engine.MaxTextChars, c.HTTP.ReadTimeout, c.HTTP.IdleTimeout, c.MemoryLimit)
	}
	for name, tc := range map[string]struct{ value, want string }{
		"MAX_TEXT_CHARS":           {"0", `invalid configuration: MAX_TEXT_CHARS="0": must be an integer from 1 to 1073741824`},
		"MCP_MAX_REQUEST_BYTES":    {"100", `invalid configuration: MCP_MAX_REQUEST_BYTES="100": must be an integer of at least 1024`},
		"MCP_HTTP_READ_TIMEOUT_S":  {"0", `invalid configuration: MCP_HTTP_READ_TIMEOUT_S="0": must be a number of seconds greater than 0 and at most 3600`},
		"MCP_HTTP_IDLE_TIMEOUT_S":  {"forever", `invalid configuration: MCP_HTTP_IDLE_TIMEOUT_S="forever": must be a number of seconds greater than 0 and at most 3600`},
		"MCP_HTTP_WRITE_TIMEOUT_S": {"3601", `invalid configuration: MCP_HTTP_WRITE_TIMEOUT_S="3601": must be a number of seconds greater than 0 and at most 3600`},
		"MEMORY_LIMIT_MB":          {"-1", `invalid configuration: MEMORY_LIMIT_MB="-1": must be an integer from 0 to 1073741824`},
	} {
		_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", name: tc.value}))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s=%q: got %v, want %s", name, tc.value, err, tc.want)
		}
	}
}
