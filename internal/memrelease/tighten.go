package memrelease

import (
	"runtime/debug"
	"sync"
)

// TightPercent is the collector's goal (GOGC) while large work runs: the
// heap may grow a quarter past what the last collection found live, not
// the default 100 %.
//
// Why: the work of a large text is mostly garbage made and dropped within
// one step (the full-text analysis of a 10 MiB text, about 35 live bytes
// per text byte at its height, then the encoded postings; a large call's
// decoded body, then the database's copy). At the default goal the heap
// grows to twice its live size between collections, and the sixteen
// 10 MiB texts of the largest store_context_batch peaked at 1,688 MB of
// RSS once indexed (10.6x their 160 MB) with a soft memory limit of
// 1,024 MB, which bounds the heap only once it is reached.
const TightPercent = 25

// tight counts the holders of Tighten. The collector's goal belongs to the
// process, so the count does too: it is the one piece of package state.
var tight struct {
	mu   sync.Mutex
	n    int
	prev int // the goal before the first holder
}

// Tighten sets the collector's goal to TightPercent until every caller
// that holds it has called the returned release (once each); the goal the
// process had before (GOGC, or what debug.SetGCPercent last set) comes
// back then. A goal already tighter, or off (GOGC=off), is kept.
//
//	defer memrelease.Tighten()()
func Tighten() (release func()) {
	tight.mu.Lock()
	defer tight.mu.Unlock()
	if tight.n == 0 {
		tight.prev = debug.SetGCPercent(TightPercent)
		if tight.prev < TightPercent {
			debug.SetGCPercent(tight.prev) // tighter or off: keep it
		}
	}
	tight.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			tight.mu.Lock()
			defer tight.mu.Unlock()
			tight.n--
			if tight.n == 0 {
				debug.SetGCPercent(tight.prev)
			}
		})
	}
}
