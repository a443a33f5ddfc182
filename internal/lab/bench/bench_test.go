package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

const heapSample = `heap profile: 4: 4096 [10: 8192] @ heap/1048576
2: 3000 [4: 4000] @ 0x1 0x2
#	0x1	github.com/contextd/contextd/vector.(*Index).grow+0x2c	/src/vector/hnsw.go:120
#	0x2	github.com/contextd/contextd/internal/search.open+0x10	/src/internal/search/x.go:1

1: 1000 [2: 2000] @ 0x3 0x4
#	0x3	runtime.malg+0x1	/go/src/runtime/proc.go:1
#	0x4	github.com/contextd/contextd/index/catalog.(*Catalog).Put+0x1	/src/index/catalog/catalog.go:1

1: 96 [4: 2192] @ 0x5
#	0x5	main.main+0x1	/src/main.go:1

0: 0 [3: 300] @ 0x6
#	0x6	github.com/blevesearch/bleve/v2.New+0x1	/x.go:1

# runtime.MemStats
# Alloc = 1
`

// The components of a known profile: innermost matching frame wins, the
// unmatched stack is "other", freed records count nothing.
func TestParseHeapProfile(t *testing.T) {
	got, err := ParseHeapProfile(strings.NewReader(heapSample))
	if err != nil {
		t.Fatal(err)
	}
	// Each record scaled by 1/(1 − exp(−avg/rate)), rate 524288 (half of
	// heap/1048576): 2 objects of 1500 B, 1 of 1000 B, 1 of 96 B.
	scaled := func(avg, b float64) float64 { return b / -math.Expm1(-avg/524288) }
	want := map[string]float64{"vector index (vector)": scaled(1500, 3000),
		"access catalog (index/catalog)": scaled(1000, 1000), "other": scaled(96, 96)}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-6*v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}

// The parser's estimate of the runtime's own profile matches the live
// heap (oracle: runtime.MemStats.HeapAlloc after a collection), where the
// raw samples fall short: the heap is dominated by 32 objects of 1 MiB,
// each sampled with probability 1 − exp(−2) = 0.86, so the estimate's
// relative standard deviation is about 7 % and the raw sum is 14 % low.
func TestParseHeapProfileRuntime(t *testing.T) {
	keep := make([][]byte, 0, 32)
	for range 32 {
		keep = append(keep, make([]byte, 1<<20))
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var buf bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	shares, err := ParseHeapProfile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, v := range shares {
		total += v
	}
	oracle := 0.0
	for _, line := range strings.Split(buf.String(), "\n") {
		if head, _, ok := strings.Cut(line, " @ "); ok && !strings.HasPrefix(line, "heap profile") && !strings.HasPrefix(line, "#") {
			var objs, b, ao, ab float64
			if _, err := fmtSscanf(head, &objs, &b, &ao, &ab); err != nil {
				t.Fatalf("oracle: %q: %v", head, err)
			}
			oracle += b
		}
	}
	live := float64(ms.HeapAlloc)
	t.Logf("estimated %.1f MiB from %.1f MiB sampled; live heap %.1f MiB", total/(1<<20), oracle/(1<<20), live/(1<<20))
	if total < 0.7*live || total > 1.3*live || total <= oracle {
		t.Errorf("estimated %.0f in-use bytes from %.0f sampled; the live heap is %.0f", total, oracle, live)
	}
	runtime.KeepAlive(keep)
}

func TestParseHeapProfileMalformed(t *testing.T) {
	for _, in := range []string{"x @ 0x1\n", "1: y [1: 1] @ 0x1\n", "z: 1 [1: 1] @ 0x1\n", "1: -5 [1: 1] @ 0x1\n"} {
		if _, err := ParseHeapProfile(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "heap profile line 1") {
			t.Errorf("%q: err %v, want one naming line 1", in, err)
		}
	}
}

func FuzzParseHeapProfile(f *testing.F) {
	f.Add(heapSample)
	f.Add("1: 1 [1: 1] @ 0x1\n#\t0x1\tmodernc.org/sqlite.x+0x1\tf.go:1\n")
	f.Add("heap profile: 1: 1 [1: 1] @ heap/1e308\n9: 1 [1: 1] @ 0x1\n#\t0x1\tmodernc.org/sqlite.x+0x1\tf.go:1\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseHeapProfile(strings.NewReader(in))
		if err != nil {
			return
		}
		for k, v := range got {
			if v < 0 || math.IsNaN(v) {
				t.Fatalf("%s: %v", k, v)
			}
		}
	})
}

func TestLoadCorpus(t *testing.T) {
	dir := t.TempDir()
	cran := "cranfield"
	if err := os.MkdirAll(filepath.Join(dir, cran), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := ".I 1\n.T\nexperimental investigation\n.A\nbrenckman,m.\n.W\nof the aerodynamics\nof a wing .\n.I 2\n.T\nsimple shear flow\n.W\npast a flat plate .\n"
	if err := os.WriteFile(filepath.Join(dir, cran, "cran.all.1400"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCorpus(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "cranfield" || c.Len() != 2 || c.Composed() != 0 || c.Text(0) != "experimental investigation of the aerodynamics of a wing ." || c.Text(1) != "simple shear flow past a flat plate ." {
		t.Fatalf("got %s %q %q", c.Name, c.Text(0), c.Text(1))
	}
	// More entries than Cranfield holds: the Go doc comments.
	c, err = LoadCorpus(dir, 3)
	if err != nil {
		t.Skipf("no Go source tree: %v", err)
	}
	if c.Name != "go-doc-comments" || c.Len() != 3 || c.Composed() != 0 {
		t.Fatalf("got %s with %d texts, %d composed", c.Name, c.Len(), c.Composed())
	}
	if _, err := LoadCorpus(dir, 0); err == nil {
		t.Error("size 0 accepted")
	}
	// Beyond MaxSize, refused before the tree is read.
	for _, size := range []int{MaxSize + 1, 50_000_000} {
		if _, err := LoadCorpus(dir, size); !errors.Is(err, ErrNoCorpus) || !strings.Contains(err.Error(), fmt.Sprintf("fewer than %d", size)) {
			t.Errorf("a size beyond MaxSize: %v", err)
		}
	}
}

func TestEntryStructure(t *testing.T) {
	blocked, active := 0, 0
	for i := range 10_000 {
		m := Entry(i, "x")["metadata"].(map[string]any)
		switch m["status"] {
		case "blocked":
			blocked++
		case "active":
			active++
		}
	}
	if blocked != 10 || active != 5000 {
		t.Errorf("blocked %d (want 10), active %d (want 5000)", blocked, active)
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{0.123: "0.12", 12.34: "12.3", 1234.5: "1,234", 1234567: "1,234,567", 99.99: "100.0"} {
		if got := num(in); got != want {
			t.Errorf("num(%v) = %q, want %q", in, got, want)
		}
	}
}

func fmtSscanf(s string, a ...any) (int, error) { return fmt.Sscanf(s, "%g: %g [%g: %g]", a...) }

// TestReadShown: a latency row whose calls read from storage says how
// much, and the report explains it once; rows without reads (and a
// report without any) show the times alone.
func TestReadShown(t *testing.T) {
	lat := []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 9 * time.Millisecond}
	r := &Report{Backends: []string{"in-process"}}
	r.latency("hybrid_search_context", "six words", "in-process", calls{lat: lat})
	var b strings.Builder
	r.Markdown(&b)
	if strings.Contains(b.String(), "MiB read") {
		t.Fatalf("no read, but the report mentions one:\n%s", b.String())
	}
	r.latency("semantic_search_context", "six words", "in-process", calls{lat: lat, read: 12 << 20})
	b.Reset()
	r.Markdown(&b)
	if !strings.Contains(b.String(), "| semantic_search_context | six words (median / p99 ms) | 3.00 / 9.00 (12.0 MiB read) |") ||
		!strings.Contains(b.String(), "| hybrid_search_context | six words (median / p99 ms) | 3.00 / 9.00 |") ||
		strings.Count(b.String(), "what the process read from storage") != 1 {
		t.Fatalf("report:\n%s", b.String())
	}
	if v := r.Rows[1].Values["in-process"]; v.ReadMiB != 12 {
		t.Fatalf("JSON value %+v, want 12 MiB read", v)
	}
}

// TestDiskRead: the counter reads and does not go backwards.
func TestDiskRead(t *testing.T) {
	a, ok := diskRead()
	if !ok {
		t.Skip("/proc/self/io is not readable here")
	}
	if b, _ := diskRead(); b < a || a < 0 {
		t.Fatalf("read_bytes %d then %d", a, b)
	}
}
