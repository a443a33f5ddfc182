package extract

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// flateBombPDF is a one-page PDF whose content stream inflates from a few
// hundred kilobytes to n bytes: a text object of repeated show-text
// operators, or (huge) one string of n bytes.
func flateBombPDF(t testing.TB, n int, huge bool) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	if huge {
		w.Write([]byte("BT /F1 12 Tf 72 720 Td ("))
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for written := 0; written < n; written += len(chunk) {
			w.Write(chunk)
		}
		w.Write([]byte(") Tj ET"))
	} else {
		w.Write([]byte("BT /F1 12 Tf 72 720 Td "))
		chunk := []byte(strings.Repeat("(x) Tj ", 1<<17))
		for written := 0; written < n; written += len(chunk) {
			w.Write(chunk)
		}
		w.Write([]byte("ET"))
	}
	w.Close()
	stream := fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String())
	return pdfFile(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		stream,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	)
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPDFBombsEnd: a self-referencing page tree and two flate bombs (a
// content stream inflating to 256 MiB of show-text operators, and to one
// string of 256 MiB) each end with an error within the extraction's
// deadline with the heap far below the inflated size, and once the call
// has returned no goroutine of it runs: the process's CPU time stands
// still over the next second (a parse left running, as the cycle once
// was, burns a core for good). The bombs are refused by contentWithin
// after MaxBytes of inflated content (35-40 ms, 1 MiB of heap); before
// it, the library's interpreter inflated until the deadline, and its heap
// followed how fast it got there (9-93 MiB at load 20, 279 MiB at load 4).
func TestPDFBombsEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 512 MiB")
	}
	const timeout = 2 * time.Second
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"self-referencing", cyclicPDF()},
		{"flate bomb of operators", flateBombPDF(t, 256<<20, false)},
		{"flate bomb of one string", flateBombPDF(t, 256<<20, true)},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			runtime.GC()
			var peak uint64
			stop, sampled := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					runtime.ReadMemStats(&m)
					peak = max(peak, m.HeapInuse)
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()
			start := time.Now()
			_, err := As(context.Background(), PDF, "bomb.pdf", c.data, Options{Timeout: timeout})
			took := time.Since(start)
			close(stop)
			<-sampled
			if err == nil {
				t.Fatal("no error")
			}
			if took > timeout+time.Second {
				t.Fatalf("ended after %s, deadline %s: %v", took, timeout, err)
			}
			if peak > 64<<20 {
				t.Fatalf("peak heap %d MiB: %v", peak>>20, err)
			}
			waitGoroutines(t, before)
			cpu0 := processCPU()
			time.Sleep(time.Second) // not a wait: the window the CPU time is measured over
			if used := processCPU() - cpu0; used > 100*time.Millisecond {
				t.Fatalf("%s of CPU in the second after the call returned", used)
			}
			t.Logf("%d bytes: %v after %s, peak heap %d MiB", len(c.data), err, took.Round(time.Millisecond), peak>>20)
		})
	}
}
