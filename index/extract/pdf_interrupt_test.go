package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/testtier"
)

// cyclicPDF is a minimal PDF whose page tree's only kid is the tree
// itself (with a correct xref table, so the parser gets that far).
func cyclicPDF() []byte {
	return pdfFile(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R] /Count 1 >>",
	)
}

// TestPDFCycleEnds: a page tree that points back to itself ends the
// extraction with an error well before its deadline, and no goroutine
// keeps parsing afterwards (one did, for good, burning a core).
func TestPDFCycleEnds(t *testing.T) {
	before := runtime.NumGoroutine()
	start := time.Now()
	_, err := As(context.Background(), PDF, "loop.pdf", cyclicPDF(), Options{Timeout: 20 * time.Second})
	if err == nil || !errors.Is(err, cerrors.ErrMalformed) {
		t.Fatalf("error %v, want a malformed PDF", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
	waitGoroutines(t, before)
}

// TestPDFDeadlineStopsParser: when the deadline ends an extraction first,
// the parser stops at its next read instead of running on in the
// background.
func TestPDFDeadlineStopsParser(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	r := newInterruptible(ctx, bytes.NewReader(cyclicPDF()), 1<<40) // no budget to speak of
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		buf := make([]byte, 16)
		for {
			_, _ = r.ReadAt(buf, 0)
		}
	}()
	cancel()
	select {
	case v := <-done:
		if v != errInterrupted {
			t.Fatalf("stopped with %v", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the reader kept reading after its context ended")
	}
	waitGoroutines(t, before)
}

// waitGoroutines waits until at most n goroutines run.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	testtier.WaitFor(t, 5*time.Second, fmt.Sprintf("at most %d goroutines", n), func() bool { return runtime.NumGoroutine() <= n })
}
