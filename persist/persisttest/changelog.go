package persisttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func (s suite) changeLog(t *testing.T) {
	t.Run("Ops", s.changeLogOps)
	t.Run("ConcurrentWriters", s.changeLogConcurrentWriters)
	t.Run("OnlyCommitted", s.changeLogOnlyCommitted)
	t.Run("AfterCommit", s.changeLogAfterCommit)
	t.Run("ReadInsideWrite", s.changeLogReadInsideWrite)
	t.Run("ConcurrentReaders", s.changeLogConcurrentReaders)
}

// changeLogOps: one row per mutated entry in write order (a delete logs
// its entries in id order), nothing for a refused update, and a rolled-back
// write leaves neither rows nor a gap.
func (s suite) changeLogOps(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	if seq, err := st.LastSeq(ctx); err != nil || seq != 0 {
		t.Fatalf("last seq of an empty log = %d, %v", seq, err)
	}
	if cs, err := st.Changes(ctx, 0, 0); err != nil || len(cs) != 0 {
		t.Fatalf("changes of an empty log = %v, %v", cs, err)
	}
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "a"), NewEntry(2, "t", "user", "a"), NewEntry(3, "t", "user", "a")}, nil)
	err := st.Write(ctx, func(tx persist.Tx) error {
		if ok, err := tx.Update(ctx, ID(2), persist.Update{ExpectVersion: 5}); err != nil || ok {
			return fmt.Errorf("mismatched update applied: %v %v", ok, err)
		}
		if _, err := tx.Update(ctx, ID(2), persist.Update{}); err != nil {
			return err
		}
		_, err := tx.Delete(ctx, []string{ID(3), ID(1)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// A failing write rolls back the entry and its log row.
	boom := errors.New("boom")
	err = st.Write(ctx, func(tx persist.Tx) error {
		e := NewEntry(9, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("write err = %v, want boom", err)
	}
	// A failing statement (duplicate id) also rolls back.
	err = st.Write(ctx, func(tx persist.Tx) error {
		e, dup := NewEntry(10, "t", "user", "a"), NewEntry(2, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return tx.Insert(ctx, &dup, nil)
	})
	if err == nil {
		t.Fatalf("duplicate insert accepted")
	}
	ch := func(seq int64, id int, op string) persist.Change {
		return persist.Change{Seq: seq, EntryID: ID(id), Op: op}
	}
	want := []persist.Change{
		ch(1, 1, persist.OpInsert), ch(2, 2, persist.OpInsert), ch(3, 3, persist.OpInsert),
		ch(4, 2, persist.OpUpdate), ch(5, 1, persist.OpDelete), ch(6, 3, persist.OpDelete),
	}
	got := changes(t, st)
	if len(got) != len(want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("change %d = %v, want %v", i, got[i], want[i])
		}
	}
	if got, _ := st.Changes(ctx, 3, 2); len(got) != 2 || got[0].Seq != 4 || got[1].Seq != 5 {
		t.Fatalf("changes after 3 limit 2 = %v", got)
	}
	if seq, err := st.LastSeq(ctx); err != nil || seq != 6 {
		t.Fatalf("last seq = %d, %v; want 6", seq, err)
	}
	for _, id := range []int{9, 10} {
		if _, found, _ := st.State(ctx, persist.Access{Principal: "a"}, ID(id)); found {
			t.Fatalf("rolled-back entry %d exists", id)
		}
	}
	// The next write continues the sequence without a gap.
	Insert(t, st, []persist.Entry{NewEntry(11, "t", "user", "a")}, nil)
	if got, _ := st.Changes(ctx, 6, 0); len(got) != 1 || got[0].Seq != 7 {
		t.Fatalf("changes after rollback = %v", got)
	}
	if seq, err := st.LastSeq(ctx); err != nil || seq != 7 {
		t.Fatalf("last seq = %d, %v; want 7", seq, err)
	}
}

// changeLogConcurrentWriters: 8 writers of 50 writes each (an insert, then
// an update of it) while a follower pages through the log. The follower
// never sees a gap (each row it reads is the seq after the last one), the
// log ends up exactly 1..400, and each entry's insert precedes its update.
func (s suite) changeLogConcurrentWriters(t *testing.T) {
	const writers, writes = 8, 50
	ctx := context.Background()
	st := s.store(t)
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < writes; i++ {
				n := 1000*(w+1) + i/2
				err := st.Write(ctx, func(tx persist.Tx) error {
					if i%2 == 0 {
						e := NewEntry(n, fmt.Sprint("w", w), "user", "alice")
						return tx.Insert(ctx, &e, nil)
					}
					ok, err := tx.Update(ctx, ID(n), persist.Update{BumpVersion: true})
					if err == nil && !ok {
						err = fmt.Errorf("update of %d not applied", n)
					}
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	followed := make(chan int64, 1)
	go func() {
		var last int64
		defer func() { followed <- last }()
		for {
			finished := false
			select {
			case <-done:
				finished = true
			default:
			}
			head, err := st.LastSeq(ctx)
			if err == nil && head < last {
				err = fmt.Errorf("last seq went back from %d to %d", last, head)
			}
			var cs []persist.Change
			if err == nil {
				cs, err = st.Changes(ctx, last, 7)
			}
			if err != nil {
				errs <- err
				return
			}
			for _, c := range cs {
				if c.Seq != last+1 {
					errs <- fmt.Errorf("follower at seq %d read seq %d: a gap", last, c.Seq)
					return
				}
				last = c.Seq
			}
			if len(cs) == 0 {
				if finished {
					return
				}
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	wg.Wait()
	close(done)
	last := <-followed
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const total = writers * writes
	if last != total {
		t.Fatalf("the follower reached seq %d, want %d", last, total)
	}
	if seq, err := st.LastSeq(ctx); err != nil || seq != total {
		t.Fatalf("last seq = %d, %v; want %d", seq, err, total)
	}
	cs := changes(t, st)
	if len(cs) != total {
		t.Fatalf("%d change-log rows, want %d", len(cs), total)
	}
	inserted := map[string]int64{}
	updates := 0
	for i, c := range cs {
		if c.Seq != int64(i+1) {
			t.Fatalf("change %d has seq %d", i, c.Seq)
		}
		switch c.Op {
		case persist.OpInsert:
			if _, dup := inserted[c.EntryID]; dup {
				t.Fatalf("%s inserted twice", c.EntryID)
			}
			inserted[c.EntryID] = c.Seq
		case persist.OpUpdate:
			if _, ok := inserted[c.EntryID]; !ok {
				t.Fatalf("update of %s at seq %d before its insert", c.EntryID, c.Seq)
			}
			updates++
		default:
			t.Fatalf("unexpected change %+v", c)
		}
	}
	if len(inserted) != total/2 || updates != total/2 {
		t.Fatalf("%d inserts and %d updates, want %d of each", len(inserted), updates, total/2)
	}
}

// changeLogOnlyCommitted: a row becomes visible to Changes and LastSeq
// when its transaction commits, never before.
func (s suite) changeLogOnlyCommitted(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "a")}, nil)
	err := st.Write(ctx, func(tx persist.Tx) error {
		e := NewEntry(2, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		ch, err := st.Changes(ctx, 0, 0)
		if err != nil {
			return err
		}
		if len(ch) != 1 {
			return fmt.Errorf("changes during an open write = %v, want only the committed one", ch)
		}
		if seq, err := st.LastSeq(ctx); err != nil || seq != 1 {
			return fmt.Errorf("last seq during an open write = %d, %v; want 1", seq, err)
		}
		return errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatal(err)
	}
	Insert(t, st, []persist.Entry{NewEntry(3, "t", "user", "a")}, nil)
	ch := changes(t, st)
	if len(ch) != 2 || ch[1].Seq != 2 || ch[1].EntryID != ID(3) {
		t.Fatalf("changes = %v", ch)
	}
}

// changeLogAfterCommit: the registered function runs once per committed
// write, after the commit (the change is visible to it), never for a
// rolled-back write; a new registration replaces the old, nil removes it.
func (s suite) changeLogAfterCommit(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	type call struct {
		fn  int
		seq int64
	}
	calls := make(chan call, 100)
	hook := func(fn int) func(ctx context.Context) {
		return func(ctx context.Context) {
			seq, err := st.LastSeq(ctx)
			if err != nil {
				seq = -1
			}
			select {
			case calls <- call{fn, seq}:
			default:
			}
		}
	}
	next := func(want call) {
		t.Helper()
		select {
		case c := <-calls:
			if c != want {
				t.Fatalf("after-commit call %+v, want %+v", c, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no after-commit call, want %+v", want)
		}
	}
	none := func() {
		t.Helper()
		select {
		case c := <-calls:
			t.Fatalf("unexpected after-commit call %+v", c)
		case <-time.After(50 * time.Millisecond):
		}
	}
	st.AfterCommit(hook(1))
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "a")}, nil)
	next(call{1, 1})
	if err := st.Write(ctx, func(tx persist.Tx) error {
		e := NewEntry(2, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return errors.New("roll back")
	}); err == nil {
		t.Fatal("write did not fail")
	}
	Insert(t, st, []persist.Entry{NewEntry(3, "t", "user", "a")}, nil)
	next(call{1, 2})
	none()
	st.AfterCommit(hook(2))
	deleteIDs(t, st, ID(1))
	next(call{2, 3})
	none()
	st.AfterCommit(nil)
	Insert(t, st, []persist.Entry{NewEntry(4, "t", "user", "a")}, nil)
	none()
}

// changeLogReadInsideWrite: a read through the Store while a write is open
// (the engine does this) neither deadlocks nor fails.
func (s suite) changeLogReadInsideWrite(t *testing.T) {
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "a")}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := st.Write(ctx, func(tx persist.Tx) error {
		e := NewEntry(2, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		_, err := st.Search(ctx, persist.Access{Principal: "a"}, persist.SearchQuery{})
		return err
	})
	if err != nil {
		t.Fatalf("store read inside a write: %v", err)
	}
}

// changeLogConcurrentReaders: readers running during writes never fail and
// never see the store go back.
func (s suite) changeLogConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
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
				res, err := st.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t"}})
				if err == nil {
					_, err = st.Stats(ctx, acc)
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
		e := NewEntry(i, "t", "user", "alice")
		e.Tags = []string{"x"}
		if err := st.Write(ctx, func(tx persist.Tx) error { return tx.Insert(ctx, &e, nil) }); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("reader: %v", err)
	}
}
