// Package memrelease returns the memory of a burst of large requests to
// the system once the burst is over.
//
// The Go runtime keeps freed heap pages mapped up to its current heap goal
// (which a burst raises to about twice the burst's live heap) and only
// learns that a burst's objects are dead at the next collection, which an
// idle process does not run for up to two minutes (the forced periodic
// collection). Below the soft memory limit the background scavenger has no
// reason to return those pages, so a process that handled one large
// request sits at its peak until the next collection and beyond.
// A Releaser watches the runtime's cumulative allocation counter and,
// when the process has gone quiet after allocating a lot, collects and
// returns every free page (debug.FreeOSMemory) once.
//
// Memory outside the Go heap is handed back by Trim, which the releaser
// calls whenever the process turns quiet after any activity (at most once
// per MinGap): the server passes the store's ReleaseMemory, which empties
// SQLite's page caches and unmaps the database file (persist/sqlite), so
// the pages a burst of queries touched leave the resident set.
//
//	go memrelease.Releaser{Trim: store.ReleaseMemory}.Run(ctx)
package memrelease

import (
	"context"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Defaults of a Releaser.
const (
	// DefaultInterval is how often the allocation counter is read.
	DefaultInterval = time.Second
	// DefaultBurst is how much must be allocated since the last release
	// before another one: small requests never cause one.
	DefaultBurst = 64 << 20
	// DefaultQuiet is the most allocated during one interval for the
	// process to count as quiet (an idle server allocates almost nothing).
	DefaultQuiet = 1 << 20
	// DefaultMinGap is the least time between two releases, which bounds
	// the cost (one full collection) under any load.
	DefaultMinGap = 10 * time.Second
)

// Releaser holds the policy; the zero value uses the defaults.
type Releaser struct {
	Interval time.Duration
	Burst    uint64
	Quiet    uint64
	MinGap   time.Duration
	Logger   *slog.Logger // optional: a debug line per release
	// Trim, when set, returns memory the Go runtime does not own (see the
	// package comment). It runs when an interval allocated at most Quiet
	// bytes after more than Quiet bytes were allocated since the last
	// Trim, at most once per MinGap: unlike a collection it is cheap
	// (measured: under a millisecond for nine idle SQLite connections), so
	// it needs no burst.
	Trim func(context.Context) error

	release func() // Release; replaced in tests
}

// Release collects twice and returns every free page to the system. The
// first collection moves what sync.Pools hold (such as encoding/json's
// encoder buffers of a large response) to their victim caches; only the
// second frees it, and debug.FreeOSMemory runs that second collection
// before it scavenges. Measured after the largest legal text and four
// greps: a live heap of 81 MB after the first collection, 19 MB after
// the second.
func Release() {
	runtime.GC()
	debug.FreeOSMemory()
}

const (
	allocsMetric   = "/gc/heap/allocs:bytes"
	totalMetric    = "/memory/classes/total:bytes"
	releasedMetric = "/memory/classes/heap/released:bytes"
)

// Headroom is how many bytes the process may still map before it reaches
// its soft memory limit (debug.SetMemoryLimit, MEMORY_LIMIT_MB): the limit
// less the memory the runtime holds, 0 past it, math.MaxInt64 without a
// limit.
func Headroom() int64 {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return limit
	}
	_, retained := Stats()
	return max(limit-int64(retained), 0)
}

// Stats reads the cumulative bytes allocated on the heap and the memory
// the runtime holds from the system (mapped and not released).
func Stats() (allocs, retained uint64) {
	s := []metrics.Sample{{Name: allocsMetric}, {Name: totalMetric}, {Name: releasedMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64() - s[2].Value.Uint64()
}

// Run watches until ctx is done.
func (r Releaser) Run(ctx context.Context) {
	interval := cmp(r.Interval, DefaultInterval)
	burst := cmp(r.Burst, DefaultBurst)
	quiet := cmp(r.Quiet, DefaultQuiet)
	minGap := cmp(r.MinGap, DefaultMinGap)
	release := r.release
	if release == nil {
		release = Release
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	last, _ := Stats()
	since := last   // the counter at the last release
	trimmed := last // the counter at the last Trim
	var lastRelease, lastTrim time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, before := Stats()
		step := now - last
		last = now
		if step > quiet {
			continue
		}
		if r.Trim != nil && now-trimmed > quiet && time.Since(lastTrim) >= minGap {
			if err := r.Trim(ctx); err != nil && r.Logger != nil {
				r.Logger.Debug("returning memory outside the Go heap failed", "err", err)
			}
			lastTrim = time.Now()
			trimmed, _ = Stats()
			last = trimmed
		}
		if now-since < burst || time.Since(lastRelease) < minGap {
			continue
		}
		start := time.Now()
		release()
		lastRelease = time.Now()
		last, _ = Stats()
		since = last
		if r.Logger != nil {
			_, after := Stats()
			r.Logger.Debug("memory returned to the system after a burst",
				"held_before_mb", before>>20, "held_after_mb", after>>20, "took", lastRelease.Sub(start))
		}
	}
}

func cmp[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
