package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/snapfmt"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// snapWorld is a store of entries with varied owners, grants, threads,
// tags and vectors, for the start-up snapshot tests.
type snapWorld struct {
	t   *testing.T
	st  persist.Store
	dir string
	r   *rand.Rand
	n   int
	ids []string
}

var (
	snapUsers   = []string{"alice", "bob", "carol", "dave"}
	snapThreads = []string{"t1", "t2", "t3"}
	snapTags    = []string{"red", "green", "blue"}
	snapWords   = []string{"heron", "river", "reed", "stone", "moss", "owl", "pine", "frost"}
)

func newSnapWorld(t *testing.T, seed uint64) *snapWorld {
	dir := t.TempDir()
	return &snapWorld{t: t, st: testStore(t, dir), dir: dir, r: rand.New(rand.NewPCG(seed, 1))}
}

func (w *snapWorld) pick(s []string) string { return s[w.r.IntN(len(s))] }

// add stores one random entry (a vector on most) and returns its id.
func (w *snapWorld) add() string {
	w.t.Helper()
	ctx := context.Background()
	w.n++
	id := fmt.Sprintf("%032x", w.n)
	words := make([]string, 3+w.r.IntN(4))
	for i := range words {
		words[i] = w.pick(snapWords)
	}
	text := strings.Join(words, " ")
	vis := "private"
	if w.r.IntN(5) == 0 {
		vis = "public"
	}
	tags := []string{w.pick(snapTags)}
	var grants []persist.Grant
	if w.r.IntN(3) == 0 {
		grants = append(grants, persist.Grant{PrincipalType: "user", PrincipalID: w.pick(snapUsers), Permission: "read"})
	}
	if w.r.IntN(4) == 0 {
		grants = append(grants, persist.Grant{PrincipalType: "group", PrincipalID: "birders", Permission: "read"})
	}
	err := w.st.Write(ctx, func(tx persist.Tx) error {
		e := &persist.Entry{ID: id, ThreadID: w.pick(snapThreads), Source: "user", ContentType: "text", Text: text, Tags: tags,
			Owner: w.pick(snapUsers), Visibility: vis, CreatedAt: t0.Add(time.Duration(w.n) * time.Second), UpdatedAt: t0}
		if err := tx.Insert(ctx, e, grants); err != nil {
			return err
		}
		if w.r.IntN(6) == 0 {
			return nil
		}
		chunks := make([]persist.ChunkVector, 1+w.r.IntN(2))
		for i := range chunks {
			v := make([]float32, 4)
			for j := range v {
				v[j] = float32(w.r.NormFloat64())
			}
			chunks[i] = persist.ChunkVector{Index: i, Start: 0, End: len(text), Vector: v}
		}
		return tx.AddEmbeddings(ctx, id, persist.Embeddings{Model: "test", Dim: 4, Chunks: chunks})
	})
	if err != nil {
		w.t.Fatal(err)
	}
	w.ids = append(w.ids, id)
	return id
}

// churn adds, deletes and re-grants entries.
func (w *snapWorld) churn(n int) {
	w.t.Helper()
	ctx := context.Background()
	for range n {
		switch k := w.r.IntN(6); {
		case k < 3 || len(w.ids) == 0:
			w.add()
		case k < 5:
			i := w.r.IntN(len(w.ids))
			del(w.t, w.st, w.ids[i])
			w.ids = slices.Delete(w.ids, i, i+1)
		default:
			id := w.ids[w.r.IntN(len(w.ids))]
			err := w.st.Write(ctx, func(tx persist.Tx) error {
				_, err := tx.Grant(ctx, id, persist.Grant{PrincipalType: "user", PrincipalID: w.pick(snapUsers), Permission: "read"})
				return err
			})
			if err != nil {
				w.t.Fatal(err)
			}
		}
	}
}

// open opens both in-process indexes, with their snapshots in the world's
// directory when onDisk, and returns them with the progress they wrote.
func (w *snapWorld) open(onDisk bool) (*FullText, *Vectors, func(), string) {
	w.t.Helper()
	ctx := context.Background()
	var progress bytes.Buffer
	feed := follow.NewFeed(w.st)
	fo, vo := FullTextOptions{Progress: &progress}, VectorOptions{Dim: 4, Progress: &progress}
	if onDisk {
		fo.Dir, vo.Dir = filepath.Join(w.dir, "ctx.db.index"), filepath.Join(w.dir, "ctx.db.vectors")
	}
	ft, err := OpenFullText(ctx, w.st, feed, fo)
	if err != nil {
		w.t.Fatal(err)
	}
	vs, err := OpenVectors(ctx, w.st, feed, vo)
	if err != nil {
		w.t.Fatal(err)
	}
	closeAll := func() {
		feed.Close()
		if err := vs.Close(); err != nil {
			w.t.Fatal(err)
		}
		if err := ft.Close(); err != nil {
			w.t.Fatal(err)
		}
	}
	return ft, vs, closeAll, progress.String()
}

// answers are the rankings of a fixed set of callers and filters, ids
// with their scores, from both indexes.
func (w *snapWorld) answers(ft *FullText, vs *Vectors) []string {
	w.t.Helper()
	ctx := context.Background()
	q := rand.New(rand.NewPCG(99, 99))
	var out []string
	for i := range 40 {
		acc := persist.Access{Principal: snapUsers[i%len(snapUsers)]}
		if i%3 == 0 {
			acc.Groups = []string{"birders"}
		}
		var f persist.Filter
		if i%4 == 1 {
			f.ThreadID = snapThreads[q.IntN(len(snapThreads))]
		}
		if i%5 == 2 {
			f.Tags = []string{snapTags[q.IntN(len(snapTags))]}
		}
		if i%6 == 3 {
			s := t0.Add(time.Duration(q.IntN(w.n+1)) * time.Second)
			f.Start = &s
		}
		text := snapWords[q.IntN(len(snapWords))] + " " + snapWords[q.IntN(len(snapWords))]
		fh, _, err := ft.Rank(ctx, acc, FullTextQuery{Filter: f, Text: text, Depth: 100})
		if err != nil {
			w.t.Fatal(err)
		}
		for _, h := range fh {
			out = append(out, fmt.Sprintf("q%d fts %s %.6f", i, h.ID, h.Score))
		}
		v := []float32{float32(q.NormFloat64()), float32(q.NormFloat64()), float32(q.NormFloat64()), float32(q.NormFloat64())}
		vh, _, err := vs.Rank(ctx, acc, VectorQuery{Filter: f, Vector: v, Depth: 100})
		if err != nil {
			w.t.Fatal(err)
		}
		for _, h := range vh {
			out = append(out, fmt.Sprintf("q%d vec %s %.6f %d", i, h.ID, h.Distance, h.Chunk))
		}
		e, c := vs.Counts(acc)
		out = append(out, fmt.Sprintf("q%d counts %d %d", i, e, c))
	}
	return out
}

// fresh is the oracle: both indexes built from SQL in memory.
func (w *snapWorld) fresh() []string {
	ft, vs, closeAll, _ := w.open(false)
	defer closeAll()
	return w.answers(ft, vs)
}

// reopen opens from the snapshots, checks the answers against a fresh
// build and returns the progress written.
func (w *snapWorld) reopen(what string) string {
	w.t.Helper()
	want := w.fresh()
	ft, vs, closeAll, progress := w.open(true)
	defer closeAll()
	if got := w.answers(ft, vs); !slices.Equal(got, want) {
		w.t.Fatalf("%s: answers differ from a fresh build (%d lines, want %d); progress %q", what, len(got), len(want), progress)
	}
	return progress
}

func (w *snapWorld) corrupt(path string) {
	w.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(path, b, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// TestStartupSnapshotsOracle: the catalogs and the chunk map loaded from
// their snapshots (intact, stale, corrupt, mismatched or of another
// database) answer every query exactly as indexes built fresh from SQL;
// the intact ones are used without a scan of SQL, the others are
// detected (the progress names why) and rebuilt.
func TestStartupSnapshotsOracle(t *testing.T) {
	w := newSnapWorld(t, 1)
	for range 150 {
		w.add()
	}
	_, _, closeAll, _ := w.open(true) // builds and writes every snapshot
	w.churn(60)
	closeAll()
	catalogFile := filepath.Join(w.dir, "ctx.db.index", "catalog.snap")
	stateFile := filepath.Join(w.dir, "ctx.db.vectors", vectorStateFile)
	for _, f := range []string{catalogFile, stateFile} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("no snapshot after close: %v", err)
		}
	}

	// Intact: loaded, nothing scanned or rebuilt.
	if p := w.reopen("intact"); p != "" {
		t.Fatalf("intact snapshots: progress %q", p)
	}

	// Stale: writes the indexes never saw are replayed from the log.
	w.churn(80)
	if p := w.reopen("stale"); p != "" {
		t.Fatalf("stale snapshots: progress %q", p)
	}

	// Corrupt: detected by the checksum and rebuilt from SQL.
	w.corrupt(catalogFile)
	w.corrupt(stateFile)
	p := w.reopen("corrupt")
	if !strings.Contains(p, "catalog snapshot unusable") || !strings.Contains(p, "state snapshot unusable") {
		t.Fatalf("corrupt snapshots: progress %q", p)
	}

	// A state snapshot of another watermark than the graph (a crash
	// between the two renames): the graph is reconciled with SQL.
	old, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	w.churn(20)
	_, _, closeAll, _ = w.open(true)
	closeAll()
	if err := os.WriteFile(stateFile, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if p := w.reopen("mismatched"); !strings.Contains(p, "state snapshot at") {
		t.Fatalf("mismatched snapshots: progress %q", p)
	}

	// Vectors rewritten without change-log rows (what `contextd migrate
	// reembed` does): every entry's chunks get new keys; the spot check
	// sees it and the graph is reconciled with SQL.
	ctx := context.Background()
	docs, err := w.st.VectorDocs(ctx, w.ids)
	if err != nil {
		t.Fatal(err)
	}
	err = w.st.Write(ctx, func(tx persist.Tx) error {
		for _, d := range docs {
			v := []float32{float32(w.r.NormFloat64()), float32(w.r.NormFloat64()), 1, 0}
			err := tx.SetEmbeddings(ctx, d.ID, persist.Embeddings{Model: "test", Dim: 4,
				Chunks: []persist.ChunkVector{{Index: 0, Start: 0, End: 3, Vector: v}}})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := w.reopen("re-embedded"); !strings.Contains(p, "without a change-log row") {
		t.Fatalf("re-embedded: progress %q", p)
	}

	// Another database with a longer change log: the Marks differ.
	other := newSnapWorld(t, 2)
	for range 400 {
		other.add()
	}
	for _, d := range []string{"ctx.db.index", "ctx.db.vectors"} {
		if err := os.CopyFS(filepath.Join(other.dir, d), os.DirFS(filepath.Join(w.dir, d))); err != nil {
			t.Fatal(err)
		}
	}
	if p := other.reopen("another database"); !strings.Contains(p, "another database") {
		t.Fatalf("another database: progress %q", p)
	}
}

// TestDecodeStateChunkTwice: a state naming one chunk key under two
// entries is refused, not read as one of them.
func TestDecodeStateChunkTwice(t *testing.T) {
	vi := &vecIndex{cat: catalogOf(t), cm: newChunkMap(0, 0)}
	ord, _ := vi.cat.Ordinal("a")
	ordB, _ := vi.cat.Ordinal("b")
	vi.cm.put(7, ord, span{0, 0, 5})
	vi.cm.setKeys(ord, []uint64{7})
	vi.cm.put(7, ordB, span{0, 0, 5})
	vi.cm.setKeys(ordB, []uint64{7})
	vi.cm.refs.set(8, chunkRef{}) // the count of keys the state declares
	if _, err := decodeState(vi.encodeState(nil, snapfmt.Mark{Seq: 3, Entry: "a"})); err == nil || !strings.Contains(err.Error(), "chunk 7 twice") {
		t.Fatalf("err = %v, want chunk 7 twice", err)
	}
}

// FuzzDecodeState: no input makes the state snapshot decoder panic, and
// what it accepts is consistent (every chunk's entry is in the catalog,
// keys ascending per entry, the counted number of chunks).
func FuzzDecodeState(f *testing.F) {
	vi := &vecIndex{cat: catalogOf(f), cm: newChunkMap(0, 0)}
	ord, _ := vi.cat.Ordinal("a")
	vi.cm.put(7, ord, span{0, 0, 5})
	vi.cm.put(9, ord, span{1, 5, 9})
	vi.cm.setKeys(ord, []uint64{7, 9})
	ordB, _ := vi.cat.Ordinal("b")
	vi.cm.put(12, ordB, span{0, 1 << 33, 1<<33 + 7}) // beyond uint32: kept aside
	vi.cm.setKeys(ordB, []uint64{12})
	f.Add(vi.encodeState(nil, snapfmt.Mark{Seq: 3, Entry: "a"}))
	f.Add([]byte(vectorStateMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, snapfmt.Reseal(data)} {
			s, err := decodeState(in)
			if err != nil {
				continue
			}
			n, entries := 0, 0
			for ord := range len(s.cm.first) {
				keys := s.cm.keys(uint32(ord))
				if len(keys) == 0 {
					continue
				}
				entries++
				id, ok := s.cat.ID(uint32(ord))
				if !ok {
					t.Fatalf("chunks of ordinal %d, not in the catalog", ord)
				}
				for i, k := range keys {
					if i > 0 && keys[i-1] >= k {
						t.Fatalf("keys of %s not ascending: %v", id, keys)
					}
					if got, _, ok := s.cm.ref(k); !ok || got != uint32(ord) {
						t.Fatalf("chunk %d names ordinal %d, its entry has %d", k, got, ord)
					}
				}
				n += len(keys)
			}
			if n != s.nchunks || s.cm.len() != n || entries != s.cm.entries {
				t.Fatalf("%d chunks listed, %d mapped, %d counted; %d entries, %d counted", n, s.cm.len(), s.nchunks, entries, s.cm.entries)
			}
		}
	})
}

// catalogOf is a catalog of two entries, "a" and "b".
func catalogOf(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	c := catalog.New()
	c.Put(catalog.Entry{ID: "a", Owner: "alice", ThreadID: "t", Source: "user", ContentType: "text", Tags: []string{"x"}})
	c.Put(catalog.Entry{ID: "b", Owner: "bob", ThreadID: "t", Source: "agent", ContentType: "text", Public: true})
	return c
}
