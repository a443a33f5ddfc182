package main

// Document bombs through upload_file: a self-referencing PDF and two
// flate bombs inflating to 256 MiB uploaded to the server each end as a
// failed document within the extraction deadline (30 s), the small bombs
// of FuzzPDF's corpus (262 KB of one letter) end as documents, the
// server's peak RSS stays within MEMORY_LIMIT_MB, and within ten seconds
// the process has a quiet second (no parse left running).

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"

	"github.com/contextd/contextd/index/extract/pdftest"
)

// fuzzSeed reads a []byte seed of a Go fuzz corpus file.
func fuzzSeed(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, lit, ok := strings.Cut(strings.TrimSpace(string(raw)), "\n[]byte(")
	if !ok || !strings.HasSuffix(lit, ")") {
		t.Fatalf("%s is not a []byte fuzz seed", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}

// procCPU is the user and system CPU time of process pid so far.
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the parenthesised command name: utime and stime are
	// the 12th and 13th (clock ticks, 100 a second on Linux).
	_, rest, _ := strings.Cut(string(raw), ") ")
	f := strings.Fields(rest)
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// bombPDF is a one-page PDF whose content stream inflates to n bytes:
// show-text operators, or (one) a single string.
func bombPDF(n int, one bool) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	piece := []byte(strings.Repeat("(x) Tj ", 1<<17))
	if one {
		w.Write([]byte("BT /F1 12 Tf 72 720 Td ("))
		piece = bytes.Repeat([]byte("a"), 1<<20)
	} else {
		w.Write([]byte("BT /F1 12 Tf 72 720 Td "))
	}
	for written := 0; written < n; written += len(piece) {
		w.Write(piece)
	}
	if one {
		w.Write([]byte(") Tj ET"))
	} else {
		w.Write([]byte("ET"))
	}
	w.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return pdftest.File(objs...)
}

var docIDInUpload = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestPDFBombsThroughUpload(t *testing.T) {
	t.Parallel()
	if on, err := testtier.Enabled(); err != nil || !on {
		t.Skipf("long tier: set %s=1 (uploads five PDF bombs and watches the server's RSS and CPU)", testtier.Env)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	const memoryLimitMB = 1024 // MEMORY_LIMIT_MB's default
	p := startHTTP(t)
	pid := p.cmd.Process.Pid
	call := mcpHTTP(t, p.addr, "contextd-pdf-bombs", 5*time.Minute)
	if out, isErr := call("container_create", map[string]any{"name": "bombs"}); isErr {
		t.Fatalf("container_create: %s", out)
	}
	dir := filepath.Join("..", "..", "index", "extract", "testdata", "fuzz", "FuzzPDF")
	for _, c := range []struct {
		name string
		pdf  []byte
		fail bool
	}{
		{"self-referencing-page-tree", fuzzSeed(t, filepath.Join(dir, "self-referencing-page-tree")), true},
		{"flate-bomb-operators", fuzzSeed(t, filepath.Join(dir, "flate-bomb-operators")), false},
		{"flate-bomb-string", fuzzSeed(t, filepath.Join(dir, "flate-bomb-string")), false},
		{"flate-bomb-operators-256MiB", bombPDF(256<<20, false), true},
		{"flate-bomb-string-256MiB", bombPDF(256<<20, true), true},
	} {
		name, pdf := c.name, c.pdf
		start := time.Now()
		out, isErr := call("upload_file", map[string]any{"containerId": "bombs", "fileName": name + ".pdf", "content": base64.StdEncoding.EncodeToString(pdf)})
		id := docIDInUpload.FindString(out)
		if !isErr && id != "" {
			// Accepted: ingestion runs in the background until the
			// document is ready or failed.
			for {
				out, _ = call("get_document", map[string]any{"containerId": "bombs", "fileId": id})
				if !strings.Contains(out, "still being ingested") {
					break
				}
				if time.Since(start) > 3*time.Minute {
					t.Fatalf("%s: still being ingested after 3 minutes (the extraction deadline is 30 s)", name)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		took := time.Since(start)
		failed := isErr || strings.Contains(out, "failed ingestion")
		if failed != c.fail {
			t.Errorf("%s: failed %v, want %v: %.300q", name, failed, c.fail, out)
		}
		if took > 45*time.Second {
			t.Errorf("%s: ended after %v, the extraction deadline is 30 s", name, took)
		}
		// A parser left running spends a core in every second; an idle
		// server's own work (the memory releaser after a large ingest, the
		// followers' polls, a snapshot) comes in bursts. So the server must
		// have a quiet second within ten of the call.
		var spent time.Duration
		quiet := false
		for range 10 {
			before := procCPU(t, pid)
			time.Sleep(time.Second) // not a wait: the window the CPU time is measured over
			if spent = procCPU(t, pid) - before; spent <= 200*time.Millisecond {
				quiet = true
				break
			}
		}
		hwm, err := procKB(pid, "VmHWM")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%d bytes): ended after %v: %.160q; CPU %v in the last second measured; peak RSS so far %d MB",
			name, len(pdf), took.Round(time.Millisecond), out, spent, hwm>>10)
		if !quiet {
			t.Errorf("%s: the server spent over 200 ms of CPU in each of the ten seconds after the call (%v in the last)", name, spent)
		}
		if hwm>>10 > memoryLimitMB {
			t.Errorf("%s: peak RSS %d MB, above MEMORY_LIMIT_MB %d", name, hwm>>10, memoryLimitMB)
		}
	}
}
