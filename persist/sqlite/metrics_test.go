package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
)

// TestPoolStats: PoolStats reports the pool (one writer plus MaxReaders
// readers), counts operations, reports a writer waiting for the writer
// connection as the write queue, and records a database failure (another
// process holding the write lock past the busy timeout) as a kind in
// fixed words, which the next success clears from consecutive_failures.
func TestPoolStats(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ctx.db")
	s, err := Open(ctx, Options{Path: path, MaxReaders: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.PoolStats()
	if p.PoolSize != 4 || p.TotalConnections < 2 || p.FailedConnections != 0 || p.FailedQueries != 0 || p.LastError != "" {
		t.Fatalf("fresh store: %+v", p)
	}
	before := p.TotalQueries
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	if _, err := s.Get(ctx, alice, []string{tid(1)}, persist.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := s.PoolStats().TotalQueries; got < before+2 {
		t.Fatalf("total queries %d after a write and a read, was %d", got, before)
	}

	// Hold the writer; a second writer of this store queues for it.
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.Write(ctx, func(persist.Tx) error { close(held); <-release; return nil })
	}()
	<-held
	queued := make(chan error, 1)
	go func() { queued <- s.Write(ctx, func(persist.Tx) error { return nil }) }()
	testtier.WaitFor(t, 5*time.Second, "a write queue of 1", func() bool { return s.PoolStats().WriteQueue == 1 })
	if p := s.PoolStats(); p.InUse < 1 || p.OpenConnections < 2 {
		t.Fatalf("with the writer held: %+v", p)
	}

	// Another store on the file cannot take the write lock: SQLITE_BUSY.
	other, err := Open(ctx, Options{Path: path, BusyTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Write(ctx, func(persist.Tx) error { return nil }); err == nil {
		t.Fatal("a second process took the held write lock")
	}
	q := other.PoolStats()
	if q.FailedQueries != 1 || q.ConsecutiveFailures != 1 || q.LastError != "database busy" || q.LastErrorTime.IsZero() {
		t.Fatalf("after a busy failure: %+v", q)
	}
	close(release)
	if err := <-queued; err != nil {
		t.Fatal(err)
	}
	if s.PoolStats().WriteQueue != 0 || s.PoolStats().WaitCount < 1 {
		t.Fatalf("after the queue drained: %+v", s.PoolStats())
	}
	if err := other.Write(ctx, func(persist.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	q = other.PoolStats()
	if q.ConsecutiveFailures != 0 || q.FailedQueries != 1 || q.LastError != "database busy" {
		t.Fatalf("after a success: %+v", q)
	}
}
