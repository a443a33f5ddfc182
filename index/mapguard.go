package index

import (
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/contextd/contextd/internal/memrelease"
)

// A large change is indexed, then merged: Bleve's merger reads the
// source segments through their maps, and every page it read stayed in the
// process's resident set until the segment was closed. Measured with the
// sixteen 10 MiB texts of one store_context_batch (2026-12-05): up to 443
// MB of segment files resident on top of 300-430 MB of the process's own
// memory, once the indexes had followed. While such a change and the
// merges after it run, a guard hands the segments' pages back
// (ReleaseMapped) whenever the file-backed resident set passes
// mappedBudget; the merger faults what it reads next back in from the
// kernel's page cache.
const (
	mappedBudget   = 64 << 20
	mappedInterval = 50 * time.Millisecond
	// mappedSettle bounds how long the guard waits for the merges after
	// the change: the merger starts a plan within seconds.
	mappedSettle = 60 * time.Second
)

// guardMapped starts the guard; stop ends the change's part of it, after
// which it runs until no merge is planned or running (twice in a row),
// mappedSettle has passed, or the index is closed.
func (ix *Index) guardMapped() (stop func()) {
	if memrelease.FileResident() == 0 {
		return func() {} // nothing to measure by: no guard
	}
	var done atomic.Bool
	go func() {
		t := time.NewTicker(mappedInterval)
		defer t.Stop()
		if ix.guard.exited != nil {
			defer func() { ix.guard.exited <- struct{}{} }()
		}
		var since time.Time
		idle := 0
		for range t.C {
			if memrelease.FileResident() > ix.guard.budget {
				if _, err := ix.ReleaseMapped(); err != nil {
					return // closed
				}
				ix.guard.releases.Add(1)
			}
			if !done.Load() {
				continue
			}
			if since.IsZero() {
				since = time.Now()
			}
			merging, open := ix.merging()
			if !open {
				return
			}
			if merging {
				idle = 0
			} else {
				idle++
			}
			if idle >= 2 || time.Since(since) > mappedSettle {
				return
			}
		}
	}()
	return func() { done.Store(true) }
}

// merging reports whether Bleve's merger has a plan or a segment merge in
// progress; open is false once the index is closed.
func (ix *Index) merging() (merging, open bool) {
	merging, _, open = ix.mergeState()
	return merging, open
}

// mergeState is merging with the count of segments merges have
// introduced so far.
func (ix *Index) mergeState() (merging bool, merged uint64, open bool) {
	ix.life.RLock()
	defer ix.life.RUnlock()
	if ix.bi == nil {
		return false, 0, false
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return false, 0, true
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return false, 0, true
	}
	st, ok := s.Stats().(*scorch.Stats)
	if !ok {
		return false, 0, true
	}
	merging = atomic.LoadUint64(&st.TotFileMergePlanTasks) != atomic.LoadUint64(&st.TotFileMergePlanTasksDone) ||
		atomic.LoadUint64(&st.TotFileMergeZapBeg) != atomic.LoadUint64(&st.TotFileMergeZapEnd)
	return merging, atomic.LoadUint64(&st.TotIntroducedSegmentsMerge), true
}

// mapGuard is the guard's setting and what tests observe of it.
type mapGuard struct {
	budget   uint64        // mappedBudget; tests set less
	releases atomic.Int64  // releases made
	exited   chan struct{} // tests: a value when a guard ends
}
