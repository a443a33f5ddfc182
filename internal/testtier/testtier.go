// Package testtier splits the test suite into two tiers.
//
// The quick tier is plain `go test ./...`: every correctness test that
// runs in seconds, so the edit-test loop stays short (the target is 90 s
// on two cores). The long tier adds the tests that take tens of seconds
// to minutes each: the 60-second HTTP load test, the 100k recall gates,
// the peer comparison and the Cranfield evaluation, and it runs the
// generated property tests at their full size (Share). It runs
// when CONTEXTD_LONG=1, which ./scripts/test.sh (what CI runs) always
// sets, so CI checks everything.
//
// The switch is an environment variable rather than a build tag because
// long-tier tests then stay compiled, vetted and type-checked in every
// quick run (a tagged file that no quick run builds can rot unseen), a
// skipped test says in -v output how to run it, and one test binary
// serves both tiers (go test's cache keys on the variables a test reads,
// so toggling it re-runs exactly the tests that depend on it).
package testtier

import (
	"os"
	"strconv"
	"testing"
)

// Env names the environment variable that enables the long tier.
const Env = "CONTEXTD_LONG"

// Enabled reports whether the long tier runs: Env holds a true value as
// strconv.ParseBool reads it ("1", "true", ...). An unset or empty Env is
// the quick tier; any other value is an error, because a misspelt switch
// that quietly skipped the long tier would hide exactly the tests it was
// meant to run.
func Enabled() (bool, error) {
	v := os.Getenv(Env)
	if v == "" {
		return false, nil
	}
	return strconv.ParseBool(v)
}

// Long marks tb as a long-tier test: it skips tb unless the long tier is
// enabled, and fails it when Env holds something that is not a boolean.
func Long(tb testing.TB) {
	tb.Helper()
	if !On(tb) {
		tb.Skip("long tier: set CONTEXTD_LONG=1 (./scripts/test.sh does)")
	}
}

// ReleaseEnv enables the release tier: tests that cross-compile the
// release (six static binaries, a go install from a module proxy). Cold,
// they take about 10 minutes of CPU, more than the whole long tier, so
// the README's test command leaves them to .ci/run, which runs them
// beside the fuzzing step (whose wall time FUZZTIME fixes).
const ReleaseEnv = "CONTEXTD_RELEASE"

// Release marks tb as a release-tier test: it skips tb unless ReleaseEnv
// is true, and fails it when ReleaseEnv holds something that is not a
// boolean.
func Release(tb testing.TB) {
	tb.Helper()
	v := os.Getenv(ReleaseEnv)
	if v == "" {
		tb.Skip("release tier: set " + ReleaseEnv + "=1 (.ci/run does, beside fuzzing)")
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		tb.Fatalf("%s=%q: want a boolean", ReleaseEnv, v)
	}
	if !on {
		tb.Skip("release tier: " + ReleaseEnv + " is false")
	}
}

// On reports whether the long tier is enabled, for a test that runs in
// both tiers at different sizes; like Long it fails tb on a malformed Env.
func On(tb testing.TB) bool {
	tb.Helper()
	on, err := Enabled()
	if err != nil {
		tb.Fatalf("%s=%q: want 1 (long tier) or unset (quick tier): %v", Env, os.Getenv(Env), err)
	}
	return on
}

// Race reports whether the test binary was built with the race detector.
const Race = raceEnabled

// RaceShare returns n, or a quarter of it (at least 1) in a binary built
// with the race detector. Sequential property tests that run thousands of
// operations size themselves with it: ./scripts/test.sh runs them at full
// size in the plain pass, and under -race (5-20 times slower per
// operation) a quarter still drives every code path the race detector
// watches, without making the race pass the longest step of CI
// (TestScoresIgnoreUnreadableEntries alone took 1,423 s under -race on a
// loaded machine at full size).
func RaceShare(n int) int {
	if Race {
		return max(1, n/4)
	}
	return n
}

// Share returns n in the long tier and a quarter of it (at least 1) in
// the quick tier and under the race detector. A generated property test
// (random operations checked against an oracle) sizes itself with it:
// the quick tier keeps every operation kind and every oracle check at a
// quarter of the history, and ./scripts/test.sh, which enables the long
// tier, still runs the full history. The four largest such tests took
// 45 s of the quick tier's 200 s of CPU at full size (2026-12-04).
func Share(tb testing.TB, n int) int {
	tb.Helper()
	if On(tb) && !Race {
		return n
	}
	return max(1, n/4)
}
