package main

// Slow clients are cut off by the server's read deadline, and a
// SIGTERM while they are sending exits 0 within SHUTDOWN_TIMEOUT_S.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// httpProc is the binary serving streamable HTTP on a loopback port.
type httpProc struct {
	cmd    *exec.Cmd
	addr   string
	done   chan error
	stderr *syncBuffer
}

func startHTTP(t *testing.T, env ...string) *httpProc {
	t.Helper()
	return startHTTPOf(t, binary, env...)
}

// startHTTPOf is startHTTP for the executable bin (another build, for a
// measurement side by side with this tree's).
func startHTTPOf(t *testing.T, bin string, env ...string) *httpProc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "DB_PATH=" + filepath.Join(t.TempDir(), "ctx.db"),
		"MCP_TRANSPORT=http", "FASTMCP_HOST=127.0.0.1", "FASTMCP_PORT=" + port}, env...)
	p := &httpProc{cmd: cmd, addr: "127.0.0.1:" + port, done: make(chan error, 1), stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + p.addr + "/health")
		if err == nil {
			resp.Body.Close()
			return p
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("server never answered /health: %v (stderr %s)", err, p.stderr.String())
		}
	}
}

// slowResult is what one slow sender saw: the status line the server sent
// (if any), how long until the connection closed, and how many body
// bytes it had sent.
type slowResult struct {
	status string
	after  time.Duration
	sent   int
}

// slowPost declares a 1,000-byte body and sends it one byte every
// interval, for at most maxBytes bytes (a bounded loop), until the server
// closes the connection.
func slowPost(addr string, interval time.Duration, maxBytes int) <-chan slowResult {
	out := make(chan slowResult, 1)
	go func() {
		start := time.Now()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			out <- slowResult{status: "dial: " + err.Error()}
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n", addr)
		closed := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(c).ReadString('\n')
			_, _ = io.Copy(io.Discard, c) // until the server closes
			closed <- strings.TrimSpace(line)
		}()
		sent := 0
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for sent < maxBytes {
			if _, err := c.Write([]byte{'{'}); err != nil {
				break
			}
			sent++
			select {
			case status := <-closed:
				out <- slowResult{status: status, after: time.Since(start), sent: sent}
				return
			case <-tick.C:
			}
		}
		select {
		case status := <-closed:
			out <- slowResult{status: status, after: time.Since(start), sent: sent}
		case <-time.After(30 * time.Second):
			out <- slowResult{status: "never closed", after: time.Since(start), sent: sent}
		}
	}()
	return out
}

// TestSlowBodyReadDeadline: four connections sending one byte every 2 s
// are answered 408 and closed at MCP_HTTP_READ_TIMEOUT_S.
func TestSlowBodyReadDeadline(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, "MCP_HTTP_READ_TIMEOUT_S=4")
	var res []<-chan slowResult
	for range 4 {
		res = append(res, slowPost(p.addr, 2*time.Second, 30))
	}
	for i, ch := range res {
		r := <-ch
		// 4 s deadline, with room for a loaded machine; without a deadline
		// the sender would go on for 60 s.
		if !strings.HasPrefix(r.status, "HTTP/1.1 408") || r.after < 3*time.Second || r.after > 12*time.Second {
			t.Errorf("slow sender %d: %q after %v (%d bytes sent), want 408 at about 4 s", i, r.status, r.after, r.sent)
		}
	}
}

// TestSlowBodySIGTERM: a SIGTERM while four clients are still sending
// their bodies exits 0 within SHUTDOWN_TIMEOUT_S (the read deadline, 60 s
// by default, is far away); the clients are answered 503 and closed.
func TestSlowBodySIGTERM(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, "SHUTDOWN_TIMEOUT_S=6")
	var res []<-chan slowResult
	for range 4 {
		res = append(res, slowPost(p.addr, 2500*time.Millisecond, 30))
	}
	time.Sleep(3 * time.Second)
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != exitOK) {
			t.Fatalf("exit after SIGTERM: %v (stderr %s)", err, p.stderr.String())
		}
		if d := time.Since(sent); d > 6*time.Second+2*time.Second {
			t.Fatalf("exit %v after SIGTERM, want within SHUTDOWN_TIMEOUT_S=6", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit 20 s after SIGTERM")
	}
	for i, ch := range res {
		if r := <-ch; !strings.HasPrefix(r.status, "HTTP/1.1 503") {
			t.Errorf("slow sender %d: %q after %v, want 503", i, r.status, r.after)
		}
	}
}
