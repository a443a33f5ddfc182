package ingest_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/ingest"
)

// countingProgress records every call a sync makes.
type countingProgress struct {
	mu           sync.Mutex
	total, added int
	adds         []int
	finished     bool
}

func (p *countingProgress) Start(total int) { p.total = total }
func (p *countingProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.added += n
	p.adds = append(p.adds, n)
}
func (p *countingProgress) Finish() { p.finished = true }

// TestProgressPerFile: a sync advances its progress once per file read,
// not once per range, so a bar moves with every file.
func TestProgressPerFile(t *testing.T) {
	eng := openEngine(t, contextd.Config{})
	p := &countingProgress{}
	syncDir(t, callerFor(t, eng, "alice"), mdTree(t, 7), ingest.Syncer{Progress: p})
	if p.total != 7 || p.added != 7 || len(p.adds) != 7 || !p.finished {
		t.Fatalf("progress: total %d, added %d in %d calls, finished %v; want 7 files, one call each, finished",
			p.total, p.added, len(p.adds), p.finished)
	}
}

// TestLineProgressEveryFewSeconds: off a terminal, progress is a line
// every LineEvery while the sync runs, even when no file finished in
// between (a slow file or a slow server), and a last line at the end.
func TestLineProgressEveryFewSeconds(t *testing.T) {
	if ingest.LineEvery > 5*time.Second {
		t.Fatalf("LineEvery is %v: a log must get a line at least every few seconds", ingest.LineEvery)
	}
	// Finish stops the ticker before it returns, so the buffer is read
	// after every write. The ticker runs on synctest's virtual clock: the
	// sleep is a window of one and a half LineEvery that passes at once
	// (it was 3 s of wall time).
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		p := ingest.NewProgress(&out) // not a terminal
		p.Start(3)
		p.Add(1)
		time.Sleep(ingest.LineEvery + ingest.LineEvery/2) // virtual: nothing more finishes
		p.Add(2)
		p.Finish()
	})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || lines[0] != "contextd ingest: 3 files to sync" ||
		!strings.HasPrefix(lines[1], "contextd ingest: 1/3 files done") ||
		!strings.HasPrefix(lines[len(lines)-1], "contextd ingest: 3/3 files done") {
		t.Fatalf("progress lines:\n%s", out.String())
	}
	if strings.Contains(out.String(), "\r") {
		t.Fatalf("carriage returns off a terminal:\n%q", out.String())
	}
}
