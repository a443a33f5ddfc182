package index

import (
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Warming the segments merges make.
//
// WarmSearch runs at start and in the idle upkeep; a segment Bleve's
// merger introduces after that was met by the first search without its
// ordinal array (prefilter.go) and blocks (maxscore_block.go), which that
// search then built: about a second for the 916k-document segment of a
// 1M-entry load, and one fts_search_context call of 451 ms in a bench run
// whose p99 was otherwise 17 ms (2026-12-05). So each change starts a
// watcher, unless one runs, that waits until neither a change nor a merge
// has come for a second (no plan or merge in progress at settleTicks
// ticks in a row) and then warms what they made; a change or a merge that
// comes after has it warm once more when things settle again. The work is
// WarmSearch's, done once per segment: what is warm already costs a
// lookup. Waiting for the changes too keeps a load from paying for the
// warm-ups of segments the next merges replace: warmed as soon as the
// merges paused, a 100k load stored 3,784-3,860 entries/s against
// 4,005-4,014 without the watcher (alternated runs, 2026-12-05).

// mergeWatchInterval is how often the watcher asks whether merges run;
// settleTicks, how many answers in a row must be no, with no change
// meanwhile, for things to have settled.
const (
	mergeWatchInterval = 50 * time.Millisecond
	settleTicks        = 20
)

// mergeWatch is the watcher's state.
type mergeWatch struct {
	running atomic.Bool
	again   atomic.Bool   // a change came: warm when things settle
	changes atomic.Uint64 // changes applied
	// done is closed when the watcher that made it ends (WaitSettled);
	// nil before the first one.
	mu   sync.Mutex
	done chan struct{}
	// warmed and stopped, when set (tests), hear of each warm-up the
	// watcher ran and of its end; tick, when set (tests, before the first
	// change), replaces mergeWatchInterval.
	warmed, stopped chan struct{}
	tick            time.Duration
}

// watchMerges has the segments of the change just applied, and of the
// merges it sets off, warmed once the merges settle.
func (ix *Index) watchMerges() {
	ix.merges.changes.Add(1)
	ix.merges.again.Store(true)
	// Under mu, so that a WaitSettled meanwhile finds either the watcher
	// before this one, or this one's done.
	ix.merges.mu.Lock()
	defer ix.merges.mu.Unlock()
	if ix.merges.running.CompareAndSwap(false, true) {
		ix.merges.done = make(chan struct{})
		go ix.warmAfterMerges(ix.merges.done)
	}
}

// Settle starts the watcher without a change: an index opened from its
// snapshot has its segments warmed and compacted (compact.go) once
// things settle.
func (ix *Index) Settle() { ix.watchMerges() }

// WaitSettled waits until the watcher has ended, or ctx does: the merges
// of the changes applied before the call, the compaction after them and
// the warm-ups of what they made are done (a change applied meanwhile
// starts them again, and the wait goes on).
func (ix *Index) WaitSettled(ctx context.Context) error {
	for {
		ix.merges.mu.Lock()
		done := ix.merges.done
		ix.merges.mu.Unlock()
		if done == nil {
			return nil
		}
		select {
		case <-done:
			ix.merges.mu.Lock()
			same := ix.merges.done == done
			ix.merges.mu.Unlock()
			if same {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (ix *Index) warmAfterMerges(done chan struct{}) {
	t := time.NewTicker(cmp.Or(ix.merges.tick, mergeWatchInterval))
	defer t.Stop()
	if ix.merges.stopped != nil {
		defer func() { ix.merges.stopped <- struct{}{} }()
	}
	defer close(done)
	idle := 0
	var warmed, changes uint64 // merges introduced when the last warm-up began; changes at the last tick
	for range t.C {
		merging, merged, open := ix.mergeState()
		if !open {
			ix.merges.running.Store(false)
			return
		}
		if c := ix.merges.changes.Load(); merging || c != changes {
			idle, changes = 0, c
			continue
		}
		if idle++; idle < settleTicks {
			continue
		}
		if ix.merges.again.Swap(false) || merged != warmed {
			warmed = merged
			err := ix.WarmSearch()
			if ix.merges.warmed != nil {
				ix.merges.warmed <- struct{}{}
			}
			if err != nil { // closed meanwhile
				ix.merges.running.Store(false)
				return
			}
			idle = 0
			continue
		}
		if ix.compact() {
			idle = 0 // and warm what it made once things settle
			continue
		}
		ix.merges.running.Store(false)
		// A change that came after the Swap found the watcher running:
		// keep watching for it, unless another watcher took over.
		if !ix.merges.again.Load() || !ix.merges.running.CompareAndSwap(false, true) {
			return
		}
	}
}
