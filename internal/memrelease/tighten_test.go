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
	goal := func() int {
		g := debug.SetGCPercent(-1)
		debug.SetGCPercent(g)
		return g
	}
	a := Tighten()
	b := Tighten()
	if g := goal(); g != TightPercent {
		t.Fatalf("goal %d while held, want %d", g, TightPercent)
	}
	a()
	a()
	if g := goal(); g != TightPercent {
		t.Fatalf("goal %d with one holder left (a release called twice counted twice?), want %d", g, TightPercent)
	}
	b()
	if g := goal(); g != 150 {
		t.Fatalf("goal %d after the last release, want 150", g)
	}
	for _, own := range []int{10, -1} {
		debug.SetGCPercent(own)
		r := Tighten()
		if g := goal(); g != own {
			t.Fatalf("goal %d while held over GOGC %d, want it kept", g, own)
		}
		r()
		if g := goal(); g != own {
			t.Fatalf("goal %d after release over GOGC %d", g, own)
		}
	}
}
