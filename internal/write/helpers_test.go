package write

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/contextd/contextd/persist/sqlite"
)

var (
	alice = Principal{ID: "alice", Groups: []string{"team"}}
	bob   = Principal{ID: "bob"}
)

// openStore opens a private in-memory SQLite store.
func openStore(t *testing.T) persist.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// openPostgres opens a store on a fresh schema of the PostgreSQL test
// server (CONTEXTD_TEST_POSTGRES_URL), skipping t without one.
func openPostgres(t *testing.T) persist.Store {
	t.Helper()
	url, schema := pgtest.Schema(t)
	st, err := postgres.Open(context.Background(), postgres.Options{URL: url, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// fixedClock is a clock that only moves when told.
func fixedClock() func() time.Time {
	now := time.Date(2025, 11, 29, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return now }
}

// validStore validates a store request the way the engine does.
func validStore(t *testing.T, thread, text string) *request.Store {
	t.Helper()
	s, err := request.ValidateStore(request.StoreInput{ThreadID: thread, Source: "user", Text: text}, request.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// textUpdate validates an update that sets the text.
func textUpdate(t *testing.T, text string) *request.Update {
	t.Helper()
	u, err := request.ValidateUpdate(request.UpdateInput{Text: &text}, request.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// get reads one entry as p, failing when it is not readable.
func get(t *testing.T, st persist.Store, p Principal, id string) persist.Entry {
	t.Helper()
	ents, err := st.Get(context.Background(), p.access(), []string{id}, persist.GetOptions{})
	if err != nil || len(ents) != 1 {
		t.Fatalf("get %s: %v (%d entries)", id, err, len(ents))
	}
	return ents[0]
}

// wantErr checks an error's sentinel and that its text contains want.
func wantErr(t *testing.T, err, kind error, want string) {
	t.Helper()
	if err == nil || !errors.Is(err, kind) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %v containing %q", err, kind, want)
	}
}

// countingSummarizer summarizes every text as "summary of <text>".
type countingSummarizer struct{ calls atomic.Int32 }

func (s *countingSummarizer) Summarize(_ context.Context, _, text string) (string, error) {
	s.calls.Add(1)
	return "summary of " + text, nil
}

// racingStore wraps a real store so that, inside each write transaction,
// another writer bumps the entry right after the writer under test read
// its state: the version check then sees a real conflict in the database.
type racingStore struct {
	persist.Store
	races int // how many state reads still lose the race
}

type racingTx struct {
	persist.Tx
	s *racingStore
}

func (s *racingStore) Write(ctx context.Context, fn func(persist.Tx) error) error {
	return s.Store.Write(ctx, func(tx persist.Tx) error { return fn(&racingTx{Tx: tx, s: s}) })
}

func (t *racingTx) State(ctx context.Context, acc persist.Access, id string) (persist.State, bool, error) {
	st, found, err := t.Tx.State(ctx, acc, id)
	if err != nil || !found || t.s.races == 0 {
		return st, found, err
	}
	t.s.races--
	tags := []string{fmt.Sprintf("race-%d", t.s.races)}
	ok, err := t.Tx.Update(ctx, id, persist.Update{Tags: &tags, BumpVersion: true, UpdatedAt: time.Now().UTC(), ExpectVersion: st.Version})
	if err == nil && !ok {
		err = errors.New("the racing writer did not apply")
	}
	return st, found, err
}

// mustStore stores text into thread as p.
func mustStore(t *testing.T, w *Writer, p Principal, thread, text string) Stored {
	t.Helper()
	out, err := w.Store(context.Background(), p, validStore(t, thread, text))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
