package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func TestTwoHandlesOneFile(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	a, b := openFile(t, path), openFile(t, path)
	acc := persist.Access{Principal: "alice"}
	insert(t, a, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	if got := search(t, b, acc, persist.SearchQuery{}); len(got) != 1 {
		t.Fatalf("b sees %d entries after a's write", len(got))
	}
	insert(t, b, []persist.Entry{entry(2, "t", "agent", "alice")}, nil)
	if got := search(t, a, acc, persist.SearchQuery{}); len(got) != 2 {
		t.Fatalf("a sees %d entries after b's write", len(got))
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

func TestConcurrentReadersDuringWrites(t *testing.T) {
	for _, name := range []string{"file", "memory"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var s *Store
			if name == "file" {
				s = openFile(t, tempDB(t))
			} else {
				s = openMem(t)
			}
			acc := persist.Access{Principal: "alice"}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for r := 0; r < 4; r++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					last := 0
					for {
						select {
						case <-stop:
							return
						default:
						}
						res, err := s.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t"}})
						if err == nil {
							_, err = s.Stats(ctx, acc)
						}
						if err != nil {
							errs <- err
							return
						}
						if len(res.Entries) < last {
							errs <- fmt.Errorf("reader went back from %d to %d entries", last, len(res.Entries))
							return
						}
						last = len(res.Entries)
					}
				}()
			}
			for i := 1; i <= 100; i++ {
				e := entry(i, "t", "user", "alice")
				e.Tags = []string{"x"}
				if err := s.Write(ctx, func(tx persist.Tx) error { return tx.Insert(ctx, &e, nil) }); err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
			}
			close(stop)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("reader: %v", err)
			}
		})
	}
}

func TestStoreReadInsideWrite(t *testing.T) {
	for _, name := range []string{"file", "memory"} {
		t.Run(name, func(t *testing.T) {
			var s *Store
			if name == "file" {
				s = openFile(t, tempDB(t))
			} else {
				s = openMem(t)
			}
			insert(t, s, []persist.Entry{entry(1, "t", "user", "a")}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := s.Write(ctx, func(tx persist.Tx) error {
				e := entry(2, "t", "user", "a")
				if err := tx.Insert(ctx, &e, nil); err != nil {
					return err
				}
				_, err := s.Search(ctx, persist.Access{Principal: "a"}, persist.SearchQuery{})
				return err
			})
			if err != nil {
				t.Fatalf("store read inside a write: %v", err)
			}
		})
	}
}

func TestMemoryChangesOnlyCommitted(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "a")}, nil)
	err := s.Write(ctx, func(tx persist.Tx) error {
		e := entry(2, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		ch, err := s.Changes(ctx, 0, 0)
		if err != nil {
			return err
		}
		if len(ch) != 1 {
			return fmt.Errorf("changes during an open write = %v, want only the committed one", ch)
		}
		return errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatal(err)
	}
	insert(t, s, []persist.Entry{entry(3, "t", "user", "a")}, nil)
	ch, err := s.Changes(ctx, 0, 0)
	if err != nil || len(ch) != 2 || ch[1].Seq != 2 || ch[1].EntryID != tid(3) {
		t.Fatalf("changes = %v, %v", ch, err)
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
