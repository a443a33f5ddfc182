package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
)

// Memory is the process's memory at one moment, in MiB.
type Memory struct {
	RSS     float64 `json:"rss_mib"`      // VmRSS
	RSSAnon float64 `json:"rss_anon_mib"` // anonymous: Go heap, stacks, SQLite's allocator
	RSSFile float64 `json:"rss_file_mib"` // file-backed: the binary and mapped index files
	// HeapInuse is the Go heap in use after a collection.
	HeapInuse float64 `json:"go_heap_inuse_mib"`
	// Components split HeapInuse by the component that allocated it
	// (proportionally to the heap profile's sampled in-use bytes).
	Components []Component `json:"go_heap_components"`
}

// Component is one component's share of the Go heap.
type Component struct {
	Name string  `json:"name"`
	MiB  float64 `json:"mib"`
}

// components maps the package prefixes of allocating frames to component
// names; the innermost frame of a stack that matches one names the
// component of that allocation.
var components = []struct{ prefix, name string }{
	{"github.com/contextd/contextd/index/catalog.", "access catalog (index/catalog)"},
	{"github.com/contextd/contextd/vector.", "vector index (vector)"},
	{"github.com/contextd/contextd/quant.", "vector index (vector)"},
	{"github.com/blevesearch/", "full-text index (bleve, index)"},
	{"github.com/contextd/contextd/index.", "full-text index (bleve, index)"},
	{"github.com/RoaringBitmap/", "bitmaps (roaring)"},
	{"github.com/contextd/contextd/model/", "embedding model (model)"},
	{"modernc.org/", "SQLite driver (modernc)"},
	{"github.com/contextd/contextd/persist/", "SQL store (persist)"},
	{"github.com/contextd/contextd/internal/search.", "search legs (internal/search)"},
	{"github.com/mark3labs/mcp-go/", "MCP (mcp-go)"},
}

// memoryReleaser is the engine: it returns what it holds outside the Go
// heap when idle (SQLite's page caches and file map, the full-text
// index's mapped segment pages).
type memoryReleaser interface {
	ReleaseMemory(ctx context.Context) error
}

// measureMemory does what the idle server does (internal/memrelease: the
// engine's ReleaseMemory, a collection, free pages returned to the system)
// and reads the process's memory. store is the engine.
func measureMemory(ctx context.Context, store any) (Memory, error) {
	if r, ok := store.(memoryReleaser); ok {
		if err := r.ReleaseMemory(ctx); err != nil {
			return Memory{}, err
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	var m Memory
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return m, fmt.Errorf("read process status: %w", err)
	}
	m.RSS, m.RSSAnon, m.RSSFile = statusMiB(st, "VmRSS"), statusMiB(st, "RssAnon"), statusMiB(st, "RssFile")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.HeapInuse = float64(ms.HeapInuse) / (1 << 20)
	var prof bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&prof, 1); err != nil {
		return m, fmt.Errorf("heap profile: %w", err)
	}
	shares, err := ParseHeapProfile(&prof)
	if err != nil {
		return m, err
	}
	total := 0.0
	for _, v := range shares {
		total += v
	}
	for name, v := range shares {
		if total > 0 {
			m.Components = append(m.Components, Component{Name: name, MiB: m.HeapInuse * v / total})
		}
	}
	sort.Slice(m.Components, func(i, j int) bool { return m.Components[i].MiB > m.Components[j].MiB })
	return m, nil
}

// diskRead is how many bytes the process has read from storage so far:
// read_bytes of /proc/self/io, the reads the page cache did not serve
// (readahead included); false where the system does not say.
func diskRead() (int64, bool) {
	io, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "read_bytes:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// statusMiB reads a "Name:   123 kB" line of /proc/self/status in MiB (0
// when absent).
func statusMiB(status []byte, name string) float64 {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

// ParseHeapProfile reads a heap profile in the legacy text format
// (pprof.Lookup("heap").WriteTo(w, 1)) and returns the estimated in-use
// bytes per component (components; "other" for stacks that match none).
// The text format holds raw samples: the runtime samples an allocation of
// s bytes with probability 1 − exp(−s/rate) (rate: MemProfileRate, half
// the header's "heap/N"), so the raw bytes over-weight large objects. Each
// record is scaled by 1/(1 − exp(−avg/rate)), avg its bytes per object, as
// pprof does. Unscaled, the 100k bench gave the vector index (a few huge
// arrays) 103 MiB of the heap, where the scaled profile shows 60-65 MiB,
// and under-counted the catalogs and maps (many small objects).
// Records look like
//
//	3: 1536 [10: 5120] @ 0x4a1b2c 0x4a1d00
//	#	0x4a1b2c	github.com/contextd/contextd/vector.(*Index).grow+0x2c	/src/vector/hnsw.go:120
//
// A malformed record is an error naming its line.
func ParseHeapProfile(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var inuse float64
	rate := 0.0   // MemProfileRate; 0 until the header names it (no scaling)
	open := false // inside a record whose component is still unknown
	flush := func() {
		if open {
			out["other"] += inuse
		}
		open = false
	}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "heap profile:"):
			if _, r, ok := strings.Cut(line, "@ heap/"); ok {
				if v, err := strconv.ParseFloat(strings.TrimSpace(r), 64); err == nil && v >= 2 {
					rate = v / 2
				}
			}
		case strings.Contains(line, " @ ") && !strings.HasPrefix(line, "#"):
			flush()
			head, _, _ := strings.Cut(line, " @ ")
			objs, rest, ok := strings.Cut(head, ":")
			if !ok {
				return nil, fmt.Errorf("heap profile line %d: record without counts: %q", n, line)
			}
			bytesField, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
			o, err := strconv.ParseInt(strings.TrimSpace(objs), 10, 64)
			if err != nil || o < 0 {
				return nil, fmt.Errorf("heap profile line %d: bad object count: %q", n, line)
			}
			b, err := strconv.ParseInt(bytesField, 10, 64)
			if err != nil || b < 0 {
				return nil, fmt.Errorf("heap profile line %d: bad byte count: %q", n, line)
			}
			inuse, open = unsample(float64(o), float64(b), rate), b > 0
		case strings.HasPrefix(line, "#\t") && open:
			f := strings.Fields(line)
			if len(f) < 3 {
				continue
			}
			for _, c := range components {
				if strings.HasPrefix(f[2], c.prefix) {
					out[c.name] += inuse
					open = false
					break
				}
			}
		case line == "" || strings.HasPrefix(line, "# runtime.MemStats"):
			flush()
			if strings.HasPrefix(line, "# runtime.MemStats") {
				return out, nil // the rest are MemStats lines
			}
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("heap profile: %w", err)
	}
	return out, nil
}

// unsample estimates the in-use bytes behind a record of objs objects and
// b bytes sampled at rate (pprof's scaling of heap profiles).
func unsample(objs, b, rate float64) float64 {
	if objs <= 0 || b <= 0 || rate <= 0 {
		return b
	}
	d := -math.Expm1(-b / objs / rate) // 1 − exp(−x), exact for small x
	if r := b / d; d > 0 && !math.IsInf(r, 0) {
		return r
	}
	return b // a header too odd to scale by
}
