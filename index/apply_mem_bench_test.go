package index

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

// largestText is n bytes of the repetitive English of the long-tier RSS
// test (cmd/contextd TestLargestTextGrepRSS), ending on a letter.
func largestText(n int) string {
	line := "a word, a ward, a weird sword in the world; wordy awards and other words in text\n"
	return strings.Repeat(line, n/len(line)+1)[:n-1] + "x"
}

// peakHeap samples the live heap every millisecond until stop is called and
// returns the highest HeapInuse seen, a lower bound of the peak the
// process's RSS follows.
func peakHeap() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// BenchmarkApplyLargestText indexes one entry of the largest legal text
// (10 Mi bytes; smaller sizes for the sweep) into an in-memory index and
// reports bytes allocated per input byte and the sampled peak heap.
func BenchmarkApplyLargestText(b *testing.B) {
	for _, n := range []int{1 << 20, 10 << 20} {
		text := largestText(n)
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			var peak uint64
			for b.Loop() {
				b.StopTimer()
				ix, err := Open(Options{})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				debug.FreeOSMemory()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				stop := peakHeap()
				b.StartTimer()
				doc := Doc{ID: "big", Text: text, Owner: "alice", ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: t0}
				if err := ix.Apply(context.Background(), []Doc{doc}, nil, 1); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				peak = max(peak, stop()-before.HeapInuse)
				_ = ix.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/float64(1<<20), "peak-heap-MB")
		})
	}
}
