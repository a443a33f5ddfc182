package memrelease

import (
	"runtime/debug"
	"testing"
)

// TestTighten: the goal is TightPercent while any holder holds it, the
// process's own goal after the last release (a release called twice
// counts once), and a tighter goal or GOGC=off is never loosened.
func TestTighten(t *testing.T) {
	orig := debug.SetGCPercent(150)
	defer debug.SetGCPercent(orig)
	a := Tighten()
	b := Tighten()
	if g := gcGoal(); g != TightPercent {
		t.Fatalf("goal %d while held, want %d", g, TightPercent)
	}
	a()
	a()
	if g := gcGoal(); g != TightPercent {
		t.Fatalf("goal %d with one holder left (a release called twice counted twice?), want %d", g, TightPercent)
	}
	b()
	if g := gcGoal(); g != 150 {
		t.Fatalf("goal %d after the last release, want 150", g)
	}
	for _, own := range []int{10, -1} {
		debug.SetGCPercent(own)
		r := Tighten()
		if g := gcGoal(); g != own {
			t.Fatalf("goal %d while held over GOGC %d, want it kept", g, own)
		}
		r()
		if g := gcGoal(); g != own {
			t.Fatalf("goal %d after release over GOGC %d", g, own)
		}
	}
}

// TestTightenTo: holders of different goals get the tightest while it is
// held, the next tightest after its release, the process's own goal after
// the last; GOGC=off and a tighter own goal are kept.
func TestTightenTo(t *testing.T) {
	orig := debug.SetGCPercent(150)
	defer debug.SetGCPercent(orig)
	loose := Tighten()
	tight := TightenTo(10)
	if g := gcGoal(); g != 10 {
		t.Fatalf("goal %d with holders of %d and 10, want 10", g, TightPercent)
	}
	tight()
	if g := gcGoal(); g != TightPercent {
		t.Fatalf("goal %d after the tighter holder left, want %d", g, TightPercent)
	}
	again := TightenTo(10)
	loose()
	if g := gcGoal(); g != 10 {
		t.Fatalf("goal %d with the holder of 10 left, want 10", g)
	}
	again()
	if g := gcGoal(); g != 150 {
		t.Fatalf("goal %d after the last release, want 150", g)
	}
	for _, own := range []int{5, -1} {
		debug.SetGCPercent(own)
		r := TightenTo(10)
		if g := gcGoal(); g != own {
			t.Fatalf("goal %d while held over GOGC %d, want it kept", g, own)
		}
		r()
		if g := gcGoal(); g != own {
			t.Fatalf("goal %d after release over GOGC %d", g, own)
		}
	}
}

// gcGoal is the collector's goal now (GOGC), left as it was.
func gcGoal() int {
	g := debug.SetGCPercent(-1)
	debug.SetGCPercent(g)
	return g
}
