package config

import (
	"errors"
	"strings"
	"testing"
)

// TestExposureRefused: the HTTP transport without authentication on an
// address other than loopback is a configuration error on FASTMCP_HOST
// (exit 78) whose message names both fixes and the opt-in; loopback,
// authentication, the opt-in or stdio let it through.
func TestExposureRefused(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"DB_PATH": "/tmp/x.db", "MCP_TRANSPORT": "http"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	refused := []map[string]string{
		base(),                               // the upstream defaults: 0.0.0.0, none
		base("FASTMCP_HOST", "0.0.0.0"),      // IPv4, every interface
		base("FASTMCP_HOST", "::"),           // IPv6, every interface
		base("FASTMCP_HOST", "192.168.1.20"), // a LAN address
		base("FASTMCP_HOST", "10.0.0.7"),     // another private range
		base("FASTMCP_HOST", "fe80::1%eth0"), // link-local with a zone
		base("FASTMCP_HOST", "myhost.lan"),   // a name: what it resolves to can change
		base("MCP_TRANSPORT", "streamable-http", "FASTMCP_HOST", "0.0.0.0"),
		base("FASTMCP_HOST", "0.0.0.0", "MCP_AUTH_PROVIDER", "NONE"),
		base("FASTMCP_HOST", "0.0.0.0", TrustedNetworkVar, "false"),
	}
	for _, env := range refused {
		_, err := FromEnv(lookupMap(env))
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != "FASTMCP_HOST" {
			t.Errorf("%v: want a FASTMCP_HOST configuration error, got %v", env, err)
			continue
		}
		for _, want := range []string{"MCP_AUTH_PROVIDER=none", "FASTMCP_HOST=127.0.0.1", "MCP_AUTH_PROVIDER=simple_token", TrustedNetworkVar + "=true"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: message %q does not mention %s", env, err, want)
			}
		}
	}

	served := []map[string]string{
		base("FASTMCP_HOST", "127.0.0.1"),
		base("FASTMCP_HOST", "127.0.0.53"), // all of 127.0.0.0/8 is loopback
		base("FASTMCP_HOST", "::1"),
		base("FASTMCP_HOST", "[::1]"),
		base("FASTMCP_HOST", "localhost"),
		base("FASTMCP_HOST", " LocalHost "),
		base("MCP_AUTH_PROVIDER", "simple_token", "MCP_AUTH_TOKEN", "t"),
		base("FASTMCP_HOST", "::", "MCP_AUTH_PROVIDER", "simple_token", "MCP_AUTH_TOKEN", "t"),
		base("FASTMCP_HOST", "192.168.1.20", "MCP_AUTH_PROVIDER", "jwt", "MCP_AUTH_JWT_PUBLIC_KEY", "secret", "MCP_AUTH_JWT_ALGORITHM", "HS256"),
		base(TrustedNetworkVar, "true"),
		base("FASTMCP_HOST", "192.168.1.20", TrustedNetworkVar, "1"),
		{"DB_PATH": "/tmp/x.db"}, // stdio listens on nothing
		{"DB_PATH": "/tmp/x.db", "MCP_TRANSPORT": "stdio", "FASTMCP_HOST": "0.0.0.0"},
	}
	for _, env := range served {
		if _, err := FromEnv(lookupMap(env)); err != nil {
			t.Errorf("%v: %v", env, err)
		}
	}

	// The opt-in is validated like every boolean, whatever the transport.
	_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", TrustedNetworkVar: "maybe"}))
	var ce *Error
	if !errors.As(err, &ce) || ce.Var != TrustedNetworkVar {
		t.Errorf("%s=maybe: want its configuration error, got %v", TrustedNetworkVar, err)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "localhost": true, "LOCALHOST": true,
		"0.0.0.0": false, "::": false, "": false, "192.168.0.1": false, "::ffff:192.168.0.1": false,
		"example.com": false, "localhost.example.com": false, "fe80::1%lo": false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
