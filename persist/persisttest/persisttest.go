package persisttest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// Run runs the whole suite against the stores open returns. open must
// return a fresh, empty store on every call (a new file under t.TempDir(),
// a new schema or database); the suite closes it when t ends.
//
// The groups run in parallel with each other (each test on a store of its
// own, so they share nothing): on PostgreSQL most of a test's time is
// waiting on the server (a schema and its migrations per store), which a
// second group fills.
func Run(t *testing.T, open func(t *testing.T) persist.Store) {
	s := suite{open: open}
	for _, g := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"Entries", s.entries},
		{"Search", s.search},
		{"Access", s.access},
		{"Grants", s.grants},
		{"ChangeLog", s.changeLog},
		{"Vectors", s.vectors},
		{"Compression", s.compression},
		{"NodeSummaries", s.nodeSummaries},
		{"Ingest", s.ingest},
		{"NativeFullText", s.nativeFullText},
		{"NativeVectors", s.nativeVectors},
	} {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t)
		})
	}
}

// RunNativeVectors runs only the NativeVectors group of Run: a backend
// with several vector search strategies runs it once per strategy forced,
// so every strategy gives the answers the suite expects.
func RunNativeVectors(t *testing.T, open func(t *testing.T) persist.Store) {
	suite{open: open}.nativeVectors(t)
}

type suite struct {
	open func(t *testing.T) persist.Store
}

// store opens a fresh store for t, checks that it is empty and closes it
// when t ends.
func (s suite) store(t *testing.T) persist.Store {
	t.Helper()
	st := s.open(t)
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if seq, err := st.LastSeq(context.Background()); err != nil || seq != 0 {
		t.Fatalf("open gave a store that is not empty: last seq %d, %v", seq, err)
	}
	return st
}

// base is the creation time of test entry 1; entry n is n seconds later.
var base = time.Date(2025, 11, 29, 10, 0, 0, 0, time.UTC)

// ID returns the n-th test id: 32 hex digits, in creation order.
func ID(n int) string { return fmt.Sprintf("%032x", n) }

// At returns the creation time of test entry n.
func At(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

// NewEntry builds a private text entry n ("entry n", hash "hashn") owned by
// owner in thread, created at At(n).
func NewEntry(n int, thread, source, owner string) persist.Entry {
	return persist.Entry{
		ID: ID(n), ThreadID: thread, Source: source, ContentType: "text",
		Text: fmt.Sprintf("entry %d", n), ContentHash: fmt.Sprintf("hash%d", n),
		Owner: owner, Visibility: "private", CreatedAt: At(n), UpdatedAt: At(n),
	}
}

// Insert stores es (each with its grants, if any) in one write.
func Insert(t testing.TB, st persist.Store, es []persist.Entry, grants map[string][]persist.Grant) {
	t.Helper()
	ctx := context.Background()
	err := st.Write(ctx, func(tx persist.Tx) error {
		for i := range es {
			if err := tx.Insert(ctx, &es[i], grants[es[i].ID]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
}

// Embeddings builds Embeddings of dimension dim from model "test-model",
// one chunk per vector; chunk i spans [10i, 10i+10).
func Embeddings(dim int, vecs ...[]float32) persist.Embeddings {
	e := persist.Embeddings{Model: "test-model", Dim: dim}
	for i, v := range vecs {
		e.Chunks = append(e.Chunks, persist.ChunkVector{Index: i, Start: 10 * i, End: 10*i + 10, Vector: v})
	}
	return e
}

// SetEmbeddings replaces the vectors of entry id in one write.
func SetEmbeddings(t testing.TB, st persist.Store, id string, e persist.Embeddings) {
	t.Helper()
	ctx := context.Background()
	if err := st.Write(ctx, func(tx persist.Tx) error { return tx.SetEmbeddings(ctx, id, e) }); err != nil {
		t.Fatalf("set embeddings of %s: %v", id, err)
	}
}

// The principals of the suite; see accessFixture.
var (
	alice   = persist.Access{Principal: "alice"}
	bob     = persist.Access{Principal: "bob"}
	bobTeam = persist.Access{Principal: "bob", Groups: []string{"other", "team"}}
	carol   = persist.Access{Principal: "carol"}
	dave    = persist.Access{Principal: "dave"}
)

// IDs returns the ids of test entries ns, in that order.
func IDs(ns ...int) []string { return mapped(ns, ID) }

// mapped applies f to every element of xs.
func mapped[T, U any](xs []T, f func(T) U) []U {
	var out []U
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// num is the inverse of ID.
func num(id string) int {
	var n int
	fmt.Sscanf(id, "%x", &n)
	return n
}

func idsOf(es []persist.Entry) []string {
	return mapped(es, func(e persist.Entry) string { return e.ID })
}

func sorted(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}

func meta(t testing.TB, v any) json.RawMessage {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func search(t testing.TB, r persist.Reader, acc persist.Access, q persist.SearchQuery) []persist.Entry {
	t.Helper()
	res, err := r.Search(context.Background(), acc, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return res.Entries
}

// write runs fn in one write of st and fails t on an error.
func write(t testing.TB, st persist.Store, fn func(ctx context.Context, tx persist.Tx) error) {
	t.Helper()
	ctx := context.Background()
	if err := st.Write(ctx, func(tx persist.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// deleteIDs deletes ids in one write.
func deleteIDs(t testing.TB, st persist.Store, ids ...string) {
	t.Helper()
	write(t, st, func(ctx context.Context, tx persist.Tx) error { _, err := tx.Delete(ctx, ids); return err })
}

// changes returns the whole change log.
func changes(t testing.TB, st persist.Store) []persist.Change {
	t.Helper()
	cs, err := st.Changes(context.Background(), 0, 0)
	if err != nil {
		t.Fatalf("changes: %v", err)
	}
	return cs
}
