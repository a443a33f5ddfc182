package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestPoolSettings shows that each of the four pool settings pgxpool has
// no option for takes effect (config passes them from
// POSTGRESQL_POOL_TIMEOUT_S, _SESSION_POOLER_MAX_CLIENTS,
// _MAX_CACHED_STATEMENT_LIFETIME_S and _MAX_CACHEABLE_STATEMENT_SIZE).
func TestPoolSettings(t *testing.T) {
	t.Run("PoolTimeout", func(t *testing.T) {
		st := open(t, Options{PoolMin: 1, PoolMax: 1, PoolTimeout: 200 * time.Millisecond})
		ctx := context.Background()
		held, err := st.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		release := sync.OnceFunc(held.Release)
		t.Cleanup(release) // before the store's Close, which waits for it
		// Every connection busy: reads, writes and transactions give up
		// after PoolTimeout with an error saying so, though ctx has no
		// deadline.
		_, err = st.LastSeq(ctx)
		if !errors.Is(err, cerrors.ErrUnavailable) || !strings.Contains(err.Error(), "POSTGRESQL_POOL_TIMEOUT_S") {
			t.Fatalf("read with the pool exhausted: %v", err)
		}
		err = st.Write(ctx, func(persist.Tx) error { return nil })
		if !errors.Is(err, cerrors.ErrUnavailable) {
			t.Fatalf("write with the pool exhausted: %v", err)
		}
		// The caller's own cancellation stays its error.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.LastSeq(cctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled read: %v", err)
		}
		release()
		if _, err := st.LastSeq(ctx); err != nil {
			t.Fatalf("read after release: %v", err)
		}
	})

	t.Run("SessionPoolerMaxClients", func(t *testing.T) {
		for _, c := range []struct {
			url       string
			cap, want int
		}{
			{"postgres://u@aws-0-eu-central-1.pooler.supabase.com:5432/postgres", 0, 15}, // session mode: default cap
			{"postgres://u@aws-0-eu-central-1.pooler.supabase.com:5432/postgres", 4, 4},
			{"postgres://u@aws-0-eu-central-1.pooler.supabase.com:6543/postgres", 4, 20}, // transaction mode
			{"postgres://u@db.internal:5432/postgres", 4, 20},
		} {
			cfg, err := resolve(Options{URL: c.url, SessionPoolerMaxClients: c.cap})
			if err != nil {
				t.Fatal(err)
			}
			pc, err := pgxpool.ParseConfig(c.url)
			if err != nil {
				t.Fatal(err)
			}
			(&Store{cfg: cfg}).configure(pc)
			if int(pc.MaxConns) != c.want || pc.MinConns > pc.MaxConns {
				t.Errorf("%s with cap %d: pool %d..%d, want at most %d", c.url, c.cap, pc.MinConns, pc.MaxConns, c.want)
			}
		}
	})

	// prepared counts the statements prepared on the pool's one
	// connection whose text is sql.
	prepared := func(t *testing.T, st *Store, sql string) int {
		t.Helper()
		var n int
		if err := st.pq.QueryRow(context.Background(), `SELECT count(*)::int FROM pg_prepared_statements WHERE statement = $1`, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	run := func(t *testing.T, st *Store, sql string) {
		t.Helper()
		var n int
		if err := st.pq.QueryRow(context.Background(), sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("MaxCachedStatementLifetime", func(t *testing.T) {
		st := open(t, Options{PoolMin: 1, PoolMax: 1, MaxCachedStatementLifetime: time.Hour})
		var mu sync.Mutex
		now := time.Now()
		st.stmtLife.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		const probe = `SELECT 4242::int`
		run(t, st, probe)
		if n := prepared(t, st, probe); n != 1 {
			t.Fatalf("probe prepared %d times, want 1 (cached)", n)
		}
		mu.Lock()
		now = now.Add(59 * time.Minute)
		mu.Unlock()
		if n := prepared(t, st, probe); n != 1 {
			t.Fatalf("probe dropped before its lifetime: %d", n)
		}
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		if n := prepared(t, st, probe); n != 0 {
			t.Fatalf("probe still prepared after its lifetime: %d", n)
		}
		run(t, st, probe) // prepared again, and cached
		if n := prepared(t, st, probe); n != 1 {
			t.Fatalf("probe after the reset prepared %d times", n)
		}
	})

	t.Run("MaxCacheableStatementSize", func(t *testing.T) {
		short := `SELECT 7::int`
		long := `SELECT 8::int /* ` + strings.Repeat("x", 200) + ` */`
		st := open(t, Options{PoolMin: 1, PoolMax: 1, MaxCacheableStatementSize: 100})
		run(t, st, short)
		run(t, st, long)
		if n := prepared(t, st, short); n != 1 {
			t.Fatalf("short statement prepared %d times, want 1", n)
		}
		if n := prepared(t, st, long); n != 0 {
			t.Fatalf("statement of %d bytes cached with a limit of 100", len(long))
		}
		// Without the limit the same statement is cached.
		st = open(t, Options{PoolMin: 1, PoolMax: 1, MaxCacheableStatementSize: -1})
		run(t, st, long)
		if n := prepared(t, st, long); n != 1 {
			t.Fatalf("without a limit the long statement was prepared %d times", n)
		}
	})
}
