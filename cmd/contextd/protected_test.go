package main

import (
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProtectedModeRefuses: the HTTP transport without authentication on
// every interface (IPv4 and IPv6) or on a LAN address exits 78 before it
// listens, and stderr names both fixes and the opt-in.
func TestProtectedModeRefuses(t *testing.T) {
	t.Parallel()
	hosts := []string{"0.0.0.0", "::", "192.0.2.10"} // 192.0.2.10: TEST-NET-1, any non-loopback address
	if lan := lanAddress(); lan != "" {
		hosts = append(hosts, lan)
	}
	for _, host := range hosts {
		cmd := exec.Command(binary)
		cmd.Env = []string{"HOME=" + t.TempDir(), "DB_PATH=" + filepath.Join(t.TempDir(), "ctx.db"),
			"MCP_TRANSPORT=http", "FASTMCP_HOST=" + host, "FASTMCP_PORT=" + freePort(t)}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitConfig {
			t.Errorf("FASTMCP_HOST=%s without auth: want exit %d, got %v (%s)", host, exitConfig, err, out)
			continue
		}
		for _, want := range []string{"FASTMCP_HOST=127.0.0.1", "MCP_AUTH_PROVIDER=simple_token", "CONTEXTD_TRUSTED_NETWORK=true"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("FASTMCP_HOST=%s: message does not name %s: %s", host, want, out)
			}
		}
	}
}

// TestProtectedModeServes: loopback without authentication, every
// interface with simple_token or jwt, and every interface with the
// opt-in all serve (startHTTP waits for /health over loopback).
func TestProtectedModeServes(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{
		nil, // startHTTP's own FASTMCP_HOST=127.0.0.1, auth none
		{"FASTMCP_HOST=localhost"},
		{"FASTMCP_HOST=0.0.0.0", "MCP_AUTH_PROVIDER=simple_token", "MCP_AUTH_TOKEN=tok"},
		{"FASTMCP_HOST=0.0.0.0", "MCP_AUTH_PROVIDER=jwt", "MCP_AUTH_JWT_PUBLIC_KEY=secret", "MCP_AUTH_JWT_ALGORITHM=HS256"},
		{"FASTMCP_HOST=0.0.0.0", "CONTEXTD_TRUSTED_NETWORK=true"},
	} {
		p := startHTTP(t, env...)
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-p.done
	}
}

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// lanAddress is a non-loopback IPv4 address of this machine, or "".
func lanAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}
