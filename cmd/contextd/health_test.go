package main

import (
	"strings"
	"testing"
)

// TestHealthCommand: `contextd health` exits 0 against a serving binary
// (by -url, and by FASTMCP_PORT on 127.0.0.1), 1 once it is gone, and 78
// for a FASTMCP_PORT that is not a port.
func TestHealthCommand(t *testing.T) {
	t.Parallel()
	p := startHTTP(t)
	url := "http://" + p.addr + "/health"
	if code, out, errOut := runCLI(t, nil, "health", "-url", url); code != exitOK || out != "ok\n" {
		t.Fatalf("health -url %s: exit %d, %q %q", url, code, out, errOut)
	}
	port := p.addr[strings.LastIndexByte(p.addr, ':')+1:]
	if code, _, errOut := runCLI(t, map[string]string{"FASTMCP_PORT": port}, "health"); code != exitOK {
		t.Fatalf("health with FASTMCP_PORT=%s: exit %d, %s", port, code, errOut)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	if code, _, errOut := runCLI(t, nil, "health", "-url", url); code != exitFail || !strings.Contains(errOut, "contextd health: ") {
		t.Fatalf("health of a stopped server: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI(t, map[string]string{"FASTMCP_PORT": "http"}, "health"); code != exitConfig {
		t.Fatalf("health with FASTMCP_PORT=http: exit %d, want %d", code, exitConfig)
	}
}
