package main

// Memory of the largest batch: sixteen texts of the largest legal size
// stored in one store_context_batch over HTTP keep the process's peak RSS
// within a stated multiple of the payload: a guard against regressions,
// above today's figure; the target (4x) is not met yet.

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/testtier"
)

// batchPeakPayloadMultiple bounds the batch's peak RSS, indexing after the
// call included, as a multiple of its payload (the texts' bytes). The
// target is 4; measured on 2026-12-04 (2 shared cores at load 25-30):
// 18.6x before generation was admitted by size, the chunker and the
// summarizer stopped copying and the index applied large texts in groups,
// 5.2x at the end of the call and 8.8x once the followers had indexed it
// after; at load 4 the same build reached 7.1x and 10.7x (the collector,
// less starved of CPU, lets the heap grow further between cycles), so the
// guard is 12x. Since the request is decoded once and the catalogs
// re-read changed entries without their text, 6 texts measured side by
// side (load 33-40) 6.6x at the end of the call and 11.4x once indexed,
// against 8.3x and 13.8x before. Since large work runs with a tight
// collector goal (memrelease.Tighten), the full-text index reads a change
// in parts of 4 MiB of text and hands SQLite's mapped pages back after
// each large part, 16 texts measured side by side (load 13-18) 3.3x at
// the end of the call and 6.4x once indexed, against 4.3x and 9.2x; alone
// at load 10-20, 3.3-3.6x and 3.8-6.7x. What remains is the full-text
// index's analysis of a large text (term vectors, about 72 bytes per word;
// see docs/benchmarks.md, Memory of a large batch).
const batchPeakPayloadMultiple = 12

// wordText is n bytes of distinct-looking words drawn from a vocabulary of
// 50,000 (each text its own sequence), ending on a letter.
func wordText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString("w")
		b.WriteString(strconv.FormatUint(uint64(r.IntN(50_000)), 36))
		b.WriteByte(' ')
	}
	return b.String()[:n-1] + "x"
}

// TestLargestBatchPeakRSS measures; it is in the release tier and run by
// hand (CONTEXTD_RELEASE=1 go test -run TestLargestBatchPeakRSS -v
// ./cmd/contextd): storing and indexing 160 MB of text takes about 3
// minutes of one core, and the peak it reports follows the machine's
// load through the collector's pacing (10.7x the payload at load 4, 25.7x
// beside the fuzzers in .ci/run, 8.8x at load 25), so it cannot be a gate
// until the copies below are gone. It fails only past the stated guard.
func TestLargestBatchPeakRSS(t *testing.T) {
	testtier.Release(t)
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	const entries = 16
	p := startHTTP(t)
	pid := p.cmd.Process.Pid
	call := mustSucceed(t, mcpHTTP(t, p.addr, "contextd-batch-rss", 10*time.Minute))
	call("store_context", map[string]any{"thread_id": "warm", "source": "user", "text": "warm up the word index"})
	rest, err := procKB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	items := make([]map[string]any, entries)
	payload := 0
	for i := range items {
		text := wordText(uint64(i), request.DefaultMaxTextChars)
		payload += len(text)
		items[i] = map[string]any{"thread_id": "big", "source": "user", "text": text}
	}
	start := time.Now()
	call("store_context_batch", map[string]any{"entries": items})
	took := time.Since(start)
	afterCall, err := procKB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	// The indexes follow the change log after the call: wait until the
	// server has spent less than 50 ms of CPU in a second.
	for idle := time.Now(); time.Since(idle) < 5*time.Minute; {
		before := procCPU(t, pid)
		time.Sleep(time.Second) // the window the CPU time is measured over
		if procCPU(t, pid)-before < 50*time.Millisecond {
			break
		}
	}
	hwm, err := procKB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	payloadMB := payload >> 20
	t.Logf("payload %d MB in %d texts; peak RSS %d MB before the batch, %d MB at the end of the call (%.1fx the payload), %d MB once indexed (%.1fx); the call took %v, the server %v of CPU in all",
		payloadMB, entries, rest>>10, afterCall>>10, float64(afterCall<<10)/float64(payload), hwm>>10, float64(hwm<<10)/float64(payload), took.Round(time.Millisecond), procCPU(t, pid).Round(time.Millisecond))
	if hwm>>10 > batchPeakPayloadMultiple*payloadMB {
		t.Errorf("peak RSS %d MB, want at most %d MB (%dx the payload)", hwm>>10, batchPeakPayloadMultiple*payloadMB, batchPeakPayloadMultiple)
	}
}
