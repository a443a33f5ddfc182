package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// TestNotifyWakesReplicas: two stores on one schema stand for two
// replicas. A write committed through B runs A's after-commit hook
// (LISTEN/NOTIFY), A's own writes run it once (not again through the
// notification), a rolled-back write of B notifies nobody, and after the
// listener's session is killed the hook still runs for later writes (the
// listener reconnects and runs the hook once to catch up).
func TestNotifyWakesReplicas(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.Schema(t)
	openOn := func() *Store {
		st, err := Open(ctx, Options{URL: url, Schema: schema, PoolMax: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := openOn(), openOn()
	woken := make(chan int64, 16)
	a.AfterCommit(func(ctx context.Context) {
		seq, _ := a.LastSeq(ctx)
		woken <- seq
	})
	expect := func(want int64) {
		t.Helper()
		select {
		case got := <-woken:
			if got < want {
				t.Fatalf("woken at seq %d, want %d", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("replica not woken for seq %d", want)
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case got := <-woken:
			t.Fatalf("unexpected wake-up at seq %d", got)
		case <-time.After(300 * time.Millisecond):
		}
	}
	// The listener subscribes asynchronously: wait until it is in place.
	waitListening(t, a)

	persisttest.Insert(t, b, []persist.Entry{persisttest.NewEntry(1, "t", "user", "x")}, nil)
	expect(1)
	quiet()
	persisttest.Insert(t, a, []persist.Entry{persisttest.NewEntry(2, "t", "user", "x")}, nil)
	expect(2)
	quiet()
	_ = b.Write(ctx, func(tx persist.Tx) error {
		e := persisttest.NewEntry(3, "t", "user", "x")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return context.Canceled // roll back
	})
	quiet()

	pgtest.Exec(t, url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND query = $2 AND pid <> pg_backend_pid()`, listenAppName, listenQuery(schema))
	expect(2) // the catch-up call after the reconnect
	persisttest.Insert(t, b, []persist.Entry{persisttest.NewEntry(4, "t", "user", "x")}, nil)
	expect(3)

	a.AfterCommit(nil)
	persisttest.Insert(t, b, []persist.Entry{persisttest.NewEntry(5, "t", "user", "x")}, nil)
	quiet()
}

// listenQuery is the statement a listener on schema's channel ran last,
// as pg_stat_activity shows it. Matching on it, not on the application
// name alone, keeps the test to its own listener: other packages' stores
// listen on the same cluster at the same time (CI: the test saw another
// listener as A's, wrote before A subscribed, and was never woken).
func listenQuery(schema string) string { return `LISTEN ` + quoteIdent(notifyChannel(schema)) }

// waitListening waits until st's listener session is subscribed.
func waitListening(t *testing.T, st *Store) {
	t.Helper()
	testtier.WaitFor(t, 10*time.Second, "the listener's LISTEN", func() bool {
		var n int
		err := st.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND state = 'idle' AND query = $2`, listenAppName, listenQuery(st.cfg.Schema)).Scan(&n)
		return err == nil && n > 0
	})
}
