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

// tight counts the holders of Tighten and TightenTo by goal. The
// collector's goal belongs to the process, so the count does too: it is
// the one piece of package state.
var tight struct {
	mu    sync.Mutex
	held  map[int]int // goal -> holders
	n     int         // holders in all
	prev  int         // the goal before the first holder
	force int         // the goal set now (valid while n > 0)
}

// Tighten sets the collector's goal to TightPercent until every caller
// that holds it has called the returned release (once each); the goal the
// process had before (GOGC, or what debug.SetGCPercent last set) comes
// back then. A goal already tighter, or off (GOGC=off), is kept.
//
//	defer memrelease.Tighten()()
func Tighten() (release func()) { return TightenTo(TightPercent) }

// TightenTo is Tighten with the goal percent (at least 1): while holders
// ask for different goals the tightest is in force.
func TightenTo(percent int) (release func()) {
	percent = max(percent, 1)
	tight.mu.Lock()
	defer tight.mu.Unlock()
	if tight.n == 0 {
		tight.prev = debug.SetGCPercent(percent)
		tight.force = percent
		if tight.held == nil {
			tight.held = map[int]int{}
		}
	}
	tight.n++
	tight.held[percent]++
	setTightest()
	var once sync.Once
	return func() {
		once.Do(func() {
			tight.mu.Lock()
			defer tight.mu.Unlock()
			tight.n--
			if tight.held[percent]--; tight.held[percent] == 0 {
				delete(tight.held, percent)
			}
			if tight.n == 0 {
				debug.SetGCPercent(tight.prev)
				return
			}
			setTightest()
		})
	}
}

// setTightest sets the tightest goal held, or the process's own when that
// is tighter or off (GOGC=off, negative, is kept); tight.mu is held and
// tight.n > 0.
func setTightest() {
	goal := tight.prev
	if goal >= 0 {
		for p := range tight.held {
			goal = min(goal, p)
		}
	}
	if goal != tight.force {
		debug.SetGCPercent(goal)
		tight.force = goal
	}
}
