package sqlite

import (
	"context"
	"sync"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestTwoHandlesOneFile(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	a, b := openFile(t, path), openFile(t, path)
	insert(t, a, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	if got := readable(t, b); got != 1 {
		t.Fatalf("b sees %d entries after a's write", got)
	}
	insert(t, b, []persist.Entry{entry(2, "t", "agent", "alice")}, nil)
	if got := readable(t, a); got != 2 {
		t.Fatalf("a sees %d entries after b's write", got)
	}
	// Interleaved writers from both handles serialize without errors.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for h, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				e := entry(1000*(h+1)+i, "c", "user", "alice")
				if err := s.Write(ctx, func(tx persist.Tx) error { return tx.Insert(ctx, &e, nil) }); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent write: %v", err)
	}
	ch, err := a.Changes(ctx, 0, 0)
	if err != nil || len(ch) != 52 {
		t.Fatalf("changes = %d, %v", len(ch), err)
	}
	for i, c := range ch {
		if c.Seq != int64(i+1) {
			t.Fatalf("change %d has seq %d", i, c.Seq)
		}
	}
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, Options{Path: path})
			if err != nil {
				errs <- err
				return
			}
			errs <- s.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent open: %v", err)
		}
	}
	s := openFile(t, path)
	var n int
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(ms) {
		t.Fatalf("schema_migrations rows = %d, %v; want one per migration (%d)", n, err, len(ms))
	}
}
