package server_test

// Transport: clients that ask for a large answer and never read
// it are disconnected at the write deadline, the memory their answers
// held is released, and other clients are served meanwhile.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server"
)

// closeTracker is a listener whose connections report when the server
// closes them, by the client's address.
type closeTracker struct {
	net.Listener
	closed chan string
}

func (l *closeTracker) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &trackedConn{Conn: c, closed: l.closed}, nil
}

type trackedConn struct {
	net.Conn
	once   sync.Once
	closed chan string
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.closed <- c.RemoteAddr().String() })
	return c.Conn.Close()
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// rssMB is the process's resident set in MiB after returning freed memory
// to the system (0 where /proc is missing): for the log only, since the
// other tests of the process share it.
func rssMB() float64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func TestHTTPStalledReadersCut(t *testing.T) {
	const (
		writeTimeout = time.Second
		stalled      = 6
		bigChars     = 3 << 20 // two entries: an answer of about 12 MB (the text twice, escaped once)
	)
	// SQLite's own full-text index: Bleve spent 3.6 s of CPU indexing the
	// two texts of one term repeated 500,000 times, 40 % of the test,
	// which is about the HTTP write path and not the index.
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(t.TempDir(), "ctx.db"),
		FTS: contextd.FTSConfig{Backend: contextd.BackendNative}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	track := &closeTracker{Listener: ln, closed: make(chan string, 1024)}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeHTTPListener(ctx, track, server.HTTPOptions{WriteTimeout: writeTimeout, ShutdownTimeout: 2 * time.Second})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		_ = eng.Close()
	})
	url := "http://" + ln.Addr().String()
	normal := mustDial(t, url, "")

	var ids []string
	for i := range 2 {
		text := strings.Repeat(fmt.Sprintf("bulk%d ", i), bigChars/6)
		ids = append(ids, normal.ok("store_context", M{"thread_id": "big", "source": "user", "text": text})["context_id"].(string))
	}
	for i := range 20 {
		normal.ok("store_context", M{"thread_id": "small", "source": "user", "text": fmt.Sprintf("note %d about deadlines", i)})
	}
	// Warm every path once, then take the baseline. The large read goes
	// through the engine: over HTTP, a machine busy enough to take more
	// than the test's 1 s to move 12 MB over loopback would cut it.
	pctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: server.DefaultPrincipal})
	if got, err := eng.Get(pctx, contextd.GetRequest{ContextIDs: ids}); err != nil || len(got) != 2 {
		t.Fatalf("warm-up read: %d entries, %v", len(got), err)
	}
	normal.ok("fts_search_context", M{"query": "deadlines", "limit": 5})
	baseHeap, baseG, baseRSS := heapAfterGC(), runtime.NumGoroutine(), rssMB()

	args, _ := json.Marshal(M{"context_ids": ids})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_context_by_ids","arguments":` + string(args) + `}}`
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		server.MCPPath, ln.Addr(), len(body), body)
	dialer := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		// A small receive window: the answer stays in the server.
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	conns := map[string]net.Conn{}
	started := map[string]time.Time{}
	for range stalled {
		c, err := dialer.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		conns[c.LocalAddr().String()] = c
	}
	// Readiness: the status line has arrived, so the server is writing the
	// answer; after it the client reads nothing more.
	for addr, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := bufio.NewReaderSize(c, 16).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
			t.Fatalf("stalled client %s: status line %q, %v", addr, line, err)
		}
		started[addr] = time.Now()
	}
	heldHeap, heldRSS := heapAfterGC(), rssMB()

	// Normal calls from the other client while the stalled ones are held
	// and until the server has cut every one of them.
	var lat []time.Duration
	// One call at once, while every stalled client is surely held: on a
	// loaded machine the cuts can all arrive before the first tick, and
	// the percentiles below need a call to time.
	t0 := time.Now()
	normal.ok("fts_search_context", M{"query": "deadlines", "limit": 5})
	lat = append(lat, time.Since(t0))
	cut := map[string]time.Duration{}
	// One call every 5 ms: a steady stream of other work to time (about
	// 200 calls in the second before the cut), where calls back to back
	// spent two cores on them for the whole wait.
	limit := time.After(writeTimeout + 15*time.Second)
	pace := time.NewTicker(5 * time.Millisecond)
	defer pace.Stop()
	for len(cut) < stalled {
		select {
		case addr := <-track.closed:
			if s, ok := started[addr]; ok {
				cut[addr] = time.Since(s)
			}
			continue
		case <-limit:
			t.Fatalf("after %s, %d of %d clients that never read are still connected", writeTimeout+15*time.Second, stalled-len(cut), stalled)
		case <-pace.C:
		}
		t0 := time.Now()
		normal.ok("fts_search_context", M{"query": "deadlines", "limit": 5})
		lat = append(lat, time.Since(t0))
	}
	for addr, d := range cut {
		// Each was cut at the deadline, counted from its last write.
		if d > writeTimeout+5*time.Second {
			t.Errorf("client %s cut %s after its answer started (write timeout %s)", addr, d, writeTimeout)
		}
	}
	// The server cut them all: their handler goroutines end and the
	// answers become garbage.
	var afterHeap uint64
	var afterG int
	for range 50 {
		afterHeap, afterG = heapAfterGC(), runtime.NumGoroutine()
		if afterG <= baseG+2 && afterHeap < baseHeap+bigChars {
			break
		}
		normal.ok("fts_search_context", M{"query": "deadlines", "limit": 5})
	}
	afterRSS := rssMB()
	slices.Sort(lat)
	p99 := lat[(len(lat)*99)/100]
	if len(lat) < 100 {
		p99 = lat[len(lat)-1]
	}
	t.Logf("%d clients that never read a ~%d MB answer: heap %.1f MB at baseline, %.1f MB while held, %.1f MB after the cut (RSS %.0f, %.0f, %.0f MB); goroutines %d -> %d; cut after %v; %d normal calls meanwhile: median %v, p99 %v",
		stalled, 4*bigChars>>20, mb(baseHeap), mb(heldHeap), mb(afterHeap), baseRSS, heldRSS, afterRSS, baseG, afterG,
		slices.Sorted(maps.Values(cut)), len(lat), lat[len(lat)/2], p99)
	if afterG > baseG+2 {
		t.Errorf("goroutines: %d at baseline, %d after the clients were cut", baseG, afterG)
	}
	if afterHeap >= baseHeap+bigChars {
		t.Errorf("heap: %.1f MB at baseline, %.1f MB after the clients were cut", mb(baseHeap), mb(afterHeap))
	}
	if p99 > 2*time.Second {
		t.Errorf("normal calls' p99 %v while clients were stalled", p99)
	}
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }
