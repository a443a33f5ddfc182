package index

import (
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
// watcher, unless one runs, that waits for the merges to settle (no plan
// or merge in progress at settleTicks ticks in a row) and then warms what they
// made; a change or a merge that comes meanwhile has it warm once more
// when they settle again. The work is WarmSearch's, done once per segment: what is
// warm already costs a lookup.

// mergeWatchInterval is how often the watcher asks whether merges run;
// settleTicks, how many answers in a row must be no for them to have
// settled (the merger plans after the persister has written a change).
const (
	mergeWatchInterval = 50 * time.Millisecond
	settleTicks        = 4
)

// mergeWatch is the watcher's state.
type mergeWatch struct {
	running atomic.Bool
	again   atomic.Bool // a change came: warm when the merges settle
	// warmed and stopped, when set (tests), hear of each warm-up the
	// watcher ran and of its end.
	warmed, stopped chan struct{}
}

// watchMerges has the segments of the change just applied, and of the
// merges it sets off, warmed once the merges settle.
func (ix *Index) watchMerges() {
	ix.merges.again.Store(true)
	if ix.merges.running.CompareAndSwap(false, true) {
		go ix.warmAfterMerges()
	}
}

func (ix *Index) warmAfterMerges() {
	t := time.NewTicker(mergeWatchInterval)
	defer t.Stop()
	if ix.merges.stopped != nil {
		defer func() { ix.merges.stopped <- struct{}{} }()
	}
	idle := 0
	var warmed uint64 // merges introduced when the last warm-up began
	for range t.C {
		merging, merged, open := ix.mergeState()
		if !open {
			ix.merges.running.Store(false)
			return
		}
		if merging {
			idle = 0
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
		ix.merges.running.Store(false)
		// A change that came after the Swap found the watcher running:
		// keep watching for it, unless another watcher took over.
		if !ix.merges.again.Load() || !ix.merges.running.CompareAndSwap(false, true) {
			return
		}
	}
}
