package contextd

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// racingStore wraps a real store so that, inside each write transaction,
// another writer changes the entry right before the engine's update: the
// version check must then see a real conflict in the database.
type racingStore struct {
	persist.Store
	races int // how many updates still lose the race
}

type racingTx struct {
	persist.Tx
	s *racingStore
}

func (s *racingStore) Write(ctx context.Context, fn func(persist.Tx) error) error {
	return s.Store.Write(ctx, func(tx persist.Tx) error { return fn(&racingTx{Tx: tx, s: s}) })
}

func (t *racingTx) Update(ctx context.Context, id string, u persist.Update) (bool, error) {
	if t.s.races > 0 {
		t.s.races--
		other := "changed by another writer"
		if ok, err := t.Tx.Update(ctx, id, persist.Update{Text: &other, BumpVersion: true, ExpectVersion: u.ExpectVersion}); err != nil || !ok {
			return false, errors.Join(err, errors.New("the racing writer did not apply"))
		}
	}
	return t.Tx.Update(ctx, id, u)
}

func TestUpdateConflicts(t *testing.T) {
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs := &racingStore{Store: st}
	eng, err := Open(ctx, Config{Store: rs})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := eng.Store(ctx, StoreRequest{ThreadID: "t", Source: "user", Text: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	text := "v2"
	cases := []struct {
		name  string
		races int
		call  func() error
		want  string
	}{
		{"retried then applied", 2, func() error {
			_, err := eng.Update(ctx, UpdateRequest{ContextID: stored.ContextID, Text: &text})
			return err
		}, ""},
		{"gives up after five attempts", 5, func() error {
			_, err := eng.Update(ctx, UpdateRequest{ContextID: stored.ContextID, Text: &text})
			return err
		}, "Concurrent modification of context " + stored.ContextID + ": the entry kept changing during the update. Retry the request."},
		{"atomic batch", 1, func() error {
			_, err := eng.UpdateBatch(ctx, UpdateBatchRequest{Updates: []UpdateBatchItem{{UpdateRequest: UpdateRequest{ContextID: stored.ContextID, Text: &text}}}})
			return err
		}, "Concurrent modification during atomic batch update"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs.races = c.races
			err := c.call()
			if c.want == "" {
				if err != nil {
					t.Fatalf("update: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrConflict) {
				t.Fatalf("error = %v, want %q (ErrConflict)", err, c.want)
			}
		})
	}
}
