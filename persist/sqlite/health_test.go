package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

// holdReaders opens n reader connections at once and returns them to the
// pool, so n are idle afterwards.
func holdReaders(t *testing.T, s *Store, n int) {
	t.Helper()
	var conns []*sql.Conn
	for range n {
		c, err := s.r.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		_ = c.Close()
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testtier.WaitFor(t, 10*time.Second, what, cond)
}

// TestPoolIdleTimeout: POOL_IDLE_TIMEOUT_S is applied to the reader pool:
// idle readers are closed once idle that long; the writer stays.
func TestPoolIdleTimeout(t *testing.T) {
	s, err := Open(context.Background(), Options{Path: tempDB(t), IdleTimeout: 50 * time.Millisecond, HealthCheckInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holdReaders(t, s, 4)
	if idle := s.PoolStats().Idle; idle < 4 {
		t.Fatalf("%d idle connections after the burst", idle)
	}
	// database/sql's cleaner runs at most once a second.
	waitFor(t, "idle readers to close", func() bool { return s.r.Stats().MaxIdleTimeClosed >= 4 && s.r.Stats().Idle == 0 })
	if w := s.w.Stats(); w.OpenConnections != 1 {
		t.Fatalf("writer connections %d, want 1", w.OpenConnections)
	}
	if _, err := Open(context.Background(), Options{Path: tempDB(t), IdleTimeout: -time.Second}); err == nil ||
		err.Error() != "sqlite: option IdleTimeout: -1s is negative" {
		t.Fatalf("negative idle timeout: %v", err)
	}
}

// TestPoolHealthCheck: POOL_HEALTH_CHECK_INTERVAL_S checks the idle
// readers at the interval; a database file damaged under the pool is
// reported in the pool statistics in fixed words and the failing
// connections are discarded; Close stops the checker.
func TestPoolHealthCheck(t *testing.T) {
	path := tempDB(t)
	s, err := Open(context.Background(), Options{Path: path, JournalMode: "DELETE", HealthCheckInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holdReaders(t, s, 3)
	waitFor(t, "health checks", func() bool { return s.PoolStats().HealthChecks >= 6 })
	if p := s.PoolStats(); p.HealthCheckFailures != 0 || p.LastError != "" {
		t.Fatalf("healthy pool reported %d failures, last error %q", p.HealthCheckFailures, p.LastError)
	}
	// Another process overwrites the file in place. Its length stays: a
	// file cut shorter than the pages SQLite has memory-mapped
	// (SQLITE_MMAP_SIZE) faults the reading process with SIGBUS, a
	// hazard of mmap that no check can catch, and not what this tests.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte("not a database "), int(fi.Size())/15+1)[:fi.Size()]
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(junk, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Readers to check, if the checker has not already found the damage
	// and discarded the idle ones: then a new connection's set-up reads
	// the damaged file and fails (as it should), which is no test failure.
	var fresh []*sql.Conn
	for range 2 {
		if c, err := s.r.Conn(context.Background()); err == nil {
			fresh = append(fresh, c)
		}
	}
	for _, c := range fresh {
		_ = c.Close() // back to the pool, idle, for the checker
	}
	waitFor(t, "a failed health check", func() bool { return s.PoolStats().HealthCheckFailures > 0 })
	p := s.PoolStats()
	if p.LastError != "database file corrupt" || p.LastErrorTime.IsZero() {
		t.Fatalf("last error %q at %v", p.LastError, p.LastErrorTime)
	}
	waitFor(t, "failing readers discarded", func() bool { return s.r.Stats().Idle == 0 })
	if err := s.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	after := s.PoolStats().HealthChecks
	time.Sleep(100 * time.Millisecond) // not a wait: five intervals in which a checker that outlived Close would run
	if got := s.PoolStats().HealthChecks; got != after {
		t.Fatalf("%d health checks after Close", got-after)
	}
}
