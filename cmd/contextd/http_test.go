package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd/internal/testtier"
)

// TestHTTPTransportAndSIGTERM serves MCP_TRANSPORT=http with a simple
// token, checks /health and an authenticated call, then stops the binary
// with SIGTERM and expects a clean exit.
func TestHTTPTransportAndSIGTERM(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(binary)
	cmd.Env = []string{"HOME=" + t.TempDir(), "DB_PATH=" + filepath.Join(t.TempDir(), "ctx.db"),
		"MCP_TRANSPORT=streamable-http", "FASTMCP_HOST=127.0.0.1", "FASTMCP_PORT=" + port,
		"MCP_AUTH_PROVIDER=simple_token", "MCP_AUTH_TOKEN=tok"}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	base := "http://127.0.0.1:" + port
	var body []byte
	if !testtier.Until(20*time.Second, func() bool {
		var resp *http.Response
		if resp, err = http.Get(base + "/health"); err != nil {
			return false
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return true
	}) {
		t.Fatalf("server never answered /health: %v (stderr %s)", err, stderr.String())
	}
	if string(body) != `{"status":"ok"}` {
		t.Fatalf("/health: %s", body)
	}
	resp, err := http.Post(base+"/mcp", "application/json", bytes.NewReader([]byte(`{}`)))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("unauthenticated POST: %v %v", resp, err)
	}
	resp.Body.Close()
	c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "contextd-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "store_context"
	req.Params.Arguments = map[string]any{"thread_id": "h", "source": "user", "text": "over http"}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("store over http: %v %v", res, err)
	}
	c.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != exitOK) {
			t.Fatalf("exit after SIGTERM: %v (stderr %s)", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit 20 s after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "serving MCP on http://127.0.0.1:"+port+"/mcp (auth simple_token)") {
		t.Fatalf("start-up line missing: %q", stderr.String())
	}
}
