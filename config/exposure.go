package config

import (
	"net"
	"strings"
)

// TrustedNetworkVar is the opt-in that lets the HTTP transport serve
// without authentication on an address other than loopback.
const TrustedNetworkVar = "CONTEXTD_TRUSTED_NETWORK"

// checkExposure refuses an HTTP transport that would serve every memory,
// unauthenticated, to whoever can reach a non-loopback address: the
// upstream defaults (FASTMCP_HOST=0.0.0.0, MCP_AUTH_PROVIDER=none) do
// exactly that. Like Redis's protected mode, the refusal names both fixes
// (bind to loopback, or authenticate) and an explicit opt-in keeps
// deployments on a trusted network (a container network behind an
// authenticating proxy, say) working. Stdio never listens and is not
// checked. It runs after FASTMCP_HOST and MCP_AUTH_PROVIDER are read.
func checkExposure(r *envReader, c *Config) {
	trusted := r.boolean(TrustedNetworkVar, false)
	if c.Transport != "http" || c.AuthProvider != "none" || trusted || LoopbackHost(c.HTTP.Host) {
		return
	}
	r.fail("FASTMCP_HOST", c.HTTP.Host,
		"with MCP_AUTH_PROVIDER=none anyone who can reach this address could read and write every memory; "+
			"bind to loopback (FASTMCP_HOST=127.0.0.1), or set authentication "+
			"(MCP_AUTH_PROVIDER=simple_token with MCP_AUTH_TOKEN, or MCP_AUTH_PROVIDER=jwt); "+
			"if the network is trusted, set "+TrustedNetworkVar+"=true")
}

// LoopbackHost reports whether an HTTP listen host (FASTMCP_HOST) can only
// be reached from this machine: a loopback IP (127.0.0.0/8, ::1) or the
// name localhost. The unspecified addresses (0.0.0.0, ::) listen on every
// interface; any other name counts as reachable, since what it resolves
// to can change after start-up.
func LoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(host), "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	if i := strings.IndexByte(h, '%'); i >= 0 { // an IPv6 zone: fe80::1%eth0
		h = h[:i]
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
