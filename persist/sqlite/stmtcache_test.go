package sqlite

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestReadStmtsBoundedUnderConcurrency: concurrent readers running more
// distinct statement texts than the cache holds all get their answers
// (no call finds its statement closed by an eviction), the cache never
// holds more than its bound, a repeated text is prepared once, and
// writes and PRAGMAs are not kept.
func TestReadStmtsBoundedUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	c := newReadStmts(s.r, 8)
	defer c.close()
	q := cachedQuerier{db: s.r, c: c}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				n := (g*7 + i) % 40 // 40 texts through a cache of 8
				var got int
				if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT %d + ?", n), 1).Scan(&got); err != nil {
					errs <- err
					return
				}
				rows, err := q.QueryContext(ctx, fmt.Sprintf("SELECT ? * %d", n), 2)
				if err != nil {
					errs <- err
					return
				}
				var p int
				for rows.Next() {
					if err := rows.Scan(&p); err != nil {
						errs <- err
					}
				}
				rows.Close()
				if got != n+1 || p != 2*n {
					errs <- fmt.Errorf("SELECT %d: got %d and %d", n, got, p)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c.mu.Lock()
	n := len(c.m)
	c.mu.Unlock()
	if n > 8 {
		t.Fatalf("the cache holds %d statements, its bound is 8", n)
	}
	st1, rel1 := c.take(ctx, "SELECT 1")
	st2, rel2 := c.take(ctx, "SELECT 1")
	if st1 == nil || st1 != st2 {
		t.Fatal("a repeated text is not served from the cache")
	}
	rel1()
	rel2()
	for _, q := range []string{"PRAGMA user_version", "UPDATE context_entries SET version = version WHERE id = 'x'"} {
		if st, _ := c.take(ctx, q); st != nil {
			t.Fatalf("%q is cached", q)
		}
	}
}

// TestReadStmtsEvictsHeldStatementAfterRelease: a statement evicted while
// a call holds it stays open until that call releases it.
func TestReadStmtsEvictsHeldStatementAfterRelease(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	c := newReadStmts(s.r, 1)
	defer c.close()
	held, release := c.take(ctx, "SELECT 1")
	other, releaseOther := c.take(ctx, "SELECT 2") // evicts "SELECT 1"
	releaseOther()
	var n int
	if err := held.QueryRowContext(ctx).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the held statement: %d, %v", n, err)
	}
	release()
	if err := held.QueryRowContext(ctx).Scan(&n); err == nil {
		t.Fatal("the evicted statement is still open after its release")
	}
	if err := other.QueryRowContext(ctx).Scan(&n); err != nil || n != 2 {
		t.Fatalf("the cached statement: %d, %v", n, err)
	}
}
