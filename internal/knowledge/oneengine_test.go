package knowledge_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	_ "github.com/contextd/contextd/persist/sqlite"
)

// replicas opens n engines on one database: SQLite files shared the way
// two server processes share ~/.mcp/context_storage.db (each engine has
// its own connections, indexes and knowledge workers, and no commit hook
// of one reaches another), or PostgreSQL replicas on one schema (woken by
// the store's notifications). Each engine's index snapshots live in a
// folder of its own, as each process's would beside its own copy.
func replicas(t *testing.T, store string, n int) []*contextd.Engine {
	t.Helper()
	dir := t.TempDir()
	var url, schema string
	if store == "postgresql" {
		url, schema = pgtest.Schema(t)
	}
	out := make([]*contextd.Engine, n)
	for i := range out {
		cfg := contextd.Config{DBPath: filepath.Join(dir, "k.db"), IndexPath: filepath.Join(dir, fmt.Sprintf("r%d", i)),
			Embedding: contextd.EmbeddingConfig{Embedder: hashembed.New(64)}}
		if url != "" {
			st, err := postgres.Open(context.Background(), postgres.Options{URL: url, Schema: schema, PoolMin: 1, PoolMax: 8})
			if err != nil {
				t.Fatalf("open postgresql store: %v", err)
			}
			t.Cleanup(func() { _ = st.Close() })
			cfg.Store = st
		}
		eng, err := contextd.Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("open engine %d: %v", i, err)
		}
		t.Cleanup(func() { _ = eng.Close() })
		out[i] = eng
	}
	return out
}

func stores(t *testing.T, f func(t *testing.T, store string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "sqlite") })
	t.Run("postgresql", func(t *testing.T) {
		if os.Getenv("CONTEXTD_TEST_POSTGRES_URL") == "" {
			t.Skip("CONTEXTD_TEST_POSTGRES_URL is not set (scripts/test.sh starts a cluster)")
		}
		f(t, "postgresql")
	})
}

// modelDoc is what the test expects of one document.
type modelDoc struct {
	id, text, marker string
	size             int64
}

// TestReplicasSeeEveryKnowledgeWrite runs random sequences of uploads,
// re-uploads, file deletes, container deletes and update_context edits
// of knowledge entries, each through a random one of two engines on one
// database, and after each checks that both engines' search_knowledge,
// list_files, get_document and container_stats answer the same committed
// state, the test's model of it, within a second.
func TestReplicasSeeEveryKnowledgeWrite(t *testing.T) {
	stores(t, func(t *testing.T, store string) {
		for seed := range uint64(3) {
			t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runReplicaSequence(t, store, seed, 30) })
		}
	})
}

func runReplicaSequence(t *testing.T, store string, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	engs := replicas(t, store, 2)
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
	acc := persist.Access{Principal: "alice"}
	svc := func(i int) *knowledge.Service { return engs[i].KnowledgeService() }
	word := func() string {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return "mk" + string(b)
	}
	paths := []string{"/a.md", "/b.txt", "/docs/c.md", "/docs/deep/d.txt"}
	// containers: name -> path -> doc; dead markers must find nothing.
	model := map[string]map[string]*modelDoc{}
	var dead []string
	next := 0
	newContainer := func(by int) {
		name := fmt.Sprintf("c%d", next)
		next++
		if _, err := svc(by).Create(ctx, acc, nil, name, ""); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		model[name] = map[string]*modelDoc{}
	}
	newContainer(0)
	newContainer(1)
	for step := range steps {
		by := rng.IntN(2)
		s := svc(by)
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range model {
				if !yield(n) {
					return
				}
			}
		})
		name := names[rng.IntN(len(names))]
		c, err := s.Resolve(ctx, acc, name)
		if err != nil {
			t.Fatalf("step %d: engine %d resolve %s: %v", step, by, name, err)
		}
		docs := model[name]
		var what string
		switch op := rng.IntN(10); {
		case op < 5 || len(docs) == 0: // upload or re-upload
			p := paths[rng.IntN(len(paths))]
			m := word()
			text := "# Note\n\nThis page mentions " + m + " and nothing else of note.\n"
			dir, file := filepath.Split(p)
			up, err := s.Upload(ctx, acc, c, knowledge.File{Name: file, Folder: dir, Data: []byte(text)})
			if err != nil {
				t.Fatalf("step %d: upload %s: %v", step, p, err)
			}
			if old := docs[p]; old != nil {
				dead = append(dead, old.marker)
				if old.id != up.DocumentID {
					t.Fatalf("step %d: re-upload of %s changed its id %s -> %s", step, p, old.id, up.DocumentID)
				}
			}
			docs[p] = &modelDoc{id: up.DocumentID, text: text, marker: m, size: int64(len(text))}
			what = "upload " + p
		case op < 7: // delete a file
			p := randomKey(rng, docs)
			if _, err := s.DeleteFile(ctx, acc, c, docs[p].id); err != nil {
				t.Fatalf("step %d: delete %s: %v", step, p, err)
			}
			dead = append(dead, docs[p].marker)
			delete(docs, p)
			what = "delete " + p
		case op < 9: // edit a Ready document through the context tools
			p := randomKey(rng, docs)
			waitIdle(t, engs)
			m := word()
			text := "Edited through update_context: " + m + " is the new word."
			if _, err := engs[by].Update(ctx, contextd.UpdateRequest{ContextID: docs[p].id, Text: &text}); err != nil {
				t.Fatalf("step %d: update_context %s: %v", step, p, err)
			}
			dead = append(dead, docs[p].marker)
			docs[p].text, docs[p].marker, docs[p].size = text, m, int64(len(text))
			what = "update_context " + p
		default: // delete the container, refused while it holds files
			err := s.DeleteContainer(ctx, acc, name)
			if len(docs) > 0 {
				if err == nil {
					t.Fatalf("step %d: deleting non-empty %s succeeded", step, name)
				}
				what = "refused delete of " + name
				break
			}
			if err != nil {
				t.Fatalf("step %d: delete container %s: %v", step, name, err)
			}
			delete(model, name)
			newContainer(rng.IntN(2))
			what = "delete container " + name
		}
		waitIdle(t, engs)
		var msg string
		if !testtier.Until(time.Second, func() bool { msg = checkReplicas(ctx, acc, engs, model, dead); return msg == "" }) {
			t.Fatalf("step %d (%s by engine %d): %s", step, what, by, msg)
		}
	}
}

func randomKey(rng *rand.Rand, m map[string]*modelDoc) string {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	return keys[rng.IntN(len(keys))]
}

// waitIdle waits until no engine has ingestion queued or running.
func waitIdle(t *testing.T, engs []*contextd.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, e := range engs {
		if err := e.KnowledgeService().WaitIdle(ctx); err != nil {
			t.Fatalf("wait for ingestion: %v", err)
		}
	}
}

// checkReplicas compares every engine's view with the model; it returns
// what differs ("" when nothing does).
func checkReplicas(ctx context.Context, acc persist.Access, engs []*contextd.Engine, model map[string]map[string]*modelDoc, dead []string) string {
	for i, eng := range engs {
		s := eng.KnowledgeService()
		list, err := s.List(ctx, acc)
		if err != nil {
			return fmt.Sprintf("engine %d: container_list: %v", i, err)
		}
		if len(list) != len(model) {
			return fmt.Sprintf("engine %d: %d containers, want %d", i, len(list), len(model))
		}
		for name, docs := range model {
			c, err := s.Resolve(ctx, acc, name)
			if err != nil {
				return fmt.Sprintf("engine %d: resolve %s: %v", i, name, err)
			}
			st, err := s.Stats(ctx, acc, c)
			if err != nil {
				return fmt.Sprintf("engine %d: container_stats %s: %v", i, name, err)
			}
			var bytes int64
			for _, d := range docs {
				bytes += d.size
			}
			if st.Documents != len(docs) || st.Ready != len(docs) || st.Processing != 0 || st.Bytes != bytes {
				return fmt.Sprintf("engine %d: container_stats %s: %d documents (%d ready, %d processing), %d bytes; want %d ready, %d bytes",
					i, name, st.Documents, st.Ready, st.Processing, st.Bytes, len(docs), bytes)
			}
			got := map[string]bool{}
			if err := listAll(ctx, s, acc, c, "/", got); err != nil {
				return fmt.Sprintf("engine %d: list_files %s: %v", i, name, err)
			}
			if len(got) != len(docs) {
				return fmt.Sprintf("engine %d: list_files %s: %v, want %d files", i, name, got, len(docs))
			}
			for p, d := range docs {
				if !got[p] {
					return fmt.Sprintf("engine %d: list_files %s lacks %s", i, name, p)
				}
				g, err := s.Get(ctx, acc, c, p)
				if err != nil {
					return fmt.Sprintf("engine %d: get_document %s%s: %v", i, name, p, err)
				}
				if g.Text != d.text || g.ID != d.id || g.Size != d.size {
					return fmt.Sprintf("engine %d: get_document %s%s: %q (id %s, %d bytes), want %q (id %s, %d bytes)",
						i, name, p, g.Text, g.ID, g.Size, d.text, d.id, d.size)
				}
				res, err := s.Search(ctx, acc, c, knowledge.Query{Text: d.marker, Mode: knowledge.Keyword, TopK: 10})
				if err != nil {
					return fmt.Sprintf("engine %d: search_knowledge %s: %v", i, name, err)
				}
				if len(res.Hits) != 1 || res.Hits[0].Path != p {
					return fmt.Sprintf("engine %d: search_knowledge %s %q: %d hits, want %s", i, name, d.marker, len(res.Hits), p)
				}
			}
			for _, m := range dead {
				res, err := s.Search(ctx, acc, c, knowledge.Query{Text: m, Mode: knowledge.Keyword, TopK: 10})
				if err != nil {
					return fmt.Sprintf("engine %d: search_knowledge %s: %v", i, name, err)
				}
				if len(res.Hits) != 0 {
					return fmt.Sprintf("engine %d: search_knowledge %s finds the gone word %q in %s", i, name, m, res.Hits[0].Path)
				}
			}
		}
	}
	return ""
}

// listAll walks list_files from folder, recording every file path.
func listAll(ctx context.Context, s *knowledge.Service, acc persist.Access, c *knowledge.Container, folder string, out map[string]bool) error {
	l, err := s.ListFiles(ctx, acc, c, folder)
	if err != nil {
		if folder == "/" {
			return err
		}
		return nil
	}
	for _, f := range l.Files {
		out[f.Path] = true
	}
	for _, d := range l.Dirs {
		if err := listAll(ctx, s, acc, c, strings.TrimSuffix(l.Folder, "/")+"/"+d+"/", out); err != nil {
			return err
		}
	}
	return nil
}

// TestReadyNeverLooksProcessing: while one engine ingests a burst of
// uploads, every document the other's get_document has reported Ready is
// counted Ready by its container_stats called right after (reads answer
// from one committed state: the stats catch up first).
func TestReadyNeverLooksProcessing(t *testing.T) {
	stores(t, func(t *testing.T, store string) {
		engs := replicas(t, store, 2)
		ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
		acc := persist.Access{Principal: "alice"}
		a, b := engs[0].KnowledgeService(), engs[1].KnowledgeService()
		c, err := a.Create(ctx, acc, nil, "burst", "")
		if err != nil {
			t.Fatal(err)
		}
		const n = 40
		for i := range n {
			text := fmt.Sprintf("# Page %d\n\nBurst page number %d of the test.", i, i)
			if _, err := a.Upload(ctx, acc, c, knowledge.File{Name: fmt.Sprintf("p%02d.md", i), Data: []byte(text)}); err != nil {
				t.Fatal(err)
			}
		}
		cb, err := b.Resolve(ctx, acc, "burst")
		if err != nil {
			t.Fatal(err)
		}
		ready := map[int]bool{}
		for deadline := time.Now().Add(30 * time.Second); len(ready) < n; {
			if time.Now().After(deadline) {
				t.Fatalf("only %d of %d documents became Ready", len(ready), n)
			}
			for i := range n {
				if ready[i] {
					continue
				}
				if _, err := b.Get(ctx, acc, cb, fmt.Sprintf("/p%02d.md", i)); err == nil {
					ready[i] = true
				}
			}
			st, err := b.Stats(ctx, acc, cb)
			if err != nil {
				t.Fatal(err)
			}
			if st.Ready < len(ready) {
				t.Fatalf("get_document reported %d documents Ready, container_stats right after %d (%d processing)", len(ready), st.Ready, st.Processing)
			}
		}
	})
}

// TestPeerAdoptsUnfinishedUploads: uploads one engine accepted and never
// ingested (it stopped with its queue held) are ingested by the other,
// still running, engine once they made no progress for AdoptAfter.
func TestPeerAdoptsUnfinishedUploads(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *contextd.Engine {
		eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(dir, "k.db"),
			IndexPath: filepath.Join(dir, name), Embedding: contextd.EmbeddingConfig{Embedder: hashembed.New(64)},
			Knowledge: contextd.KnowledgeConfig{AdoptAfter: 300 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
	acc := persist.Access{Principal: "alice"}
	b := open("b")
	defer b.Close()
	a := open("a")
	ka := a.KnowledgeService()
	ka.Pause()
	c, err := ka.Create(ctx, acc, nil, "left", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := ka.Upload(ctx, acc, c, knowledge.File{Name: fmt.Sprintf("f%d.md", i), Data: []byte(fmt.Sprintf("# F%d\n\nLeft behind number %d.", i, i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil { // its uploads stay Pending
		t.Fatal(err)
	}
	kb := b.KnowledgeService()
	cb, err := kb.Resolve(ctx, acc, "left")
	if err != nil {
		t.Fatal(err)
	}
	var st *knowledge.Stats
	if !testtier.Until(20*time.Second, func() bool {
		var err error
		st, err = kb.Stats(ctx, acc, cb)
		if err != nil {
			t.Fatal(err)
		}
		return st.Ready == 3
	}) {
		t.Fatalf("the other engine never ingested the left uploads: %+v", st)
	}
}

// TestLegacyDocumentReplacedInPlace: a document written by an earlier
// version (an entry id not derived from its path) is found by path after
// a restart: an upload to its path replaces it, keeping its id, and no
// second document appears.
func TestLegacyDocumentReplacedInPlace(t *testing.T) {
	dir := t.TempDir()
	open := func() *contextd.Engine {
		eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(dir, "k.db"),
			Embedding: contextd.EmbeddingConfig{Embedder: hashembed.New(64)}})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
	acc := persist.Access{Principal: "alice"}
	eng := open()
	c, err := eng.KnowledgeService().Create(ctx, acc, nil, "old", "")
	if err != nil {
		t.Fatal(err)
	}
	const legacyID = "0190abcdef127000800000000000abcd" // version 7, as entries were
	text := "# Old\n\nWritten by an earlier version."
	now := time.Now().UTC()
	meta := fmt.Sprintf(`{"knowledge":{"kind":"document","name":"old.md","container":%q,"path":"/old.md","size":%d,"status":"Ready","generation":1,"job":"j1","strategy":"Semantic"}}`, c.ID, len(text))
	err = eng.Persist().Write(context.Background(), func(tx persist.Tx) error {
		return tx.Insert(context.Background(), &persist.Entry{ID: legacyID, ThreadID: "knowledge/" + c.ID, Source: "user", ContentType: "text",
			Text: text, Metadata: []byte(meta), Version: 1, Owner: "alice", Visibility: "private", CreatedAt: now, UpdatedAt: now, Tags: []string{}}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	// The database as the earlier version leaves it: it wrote no
	// knowledge snapshot (this engine's does not hold the entry, which it
	// never took for a document: Apply reads only derived ids and the
	// documents it knows), so the upgraded one rebuilds from SQL.
	if err := os.Remove(filepath.Join(dir, "k.db.knowledge")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err) // none when Close came before the index had started
	}
	eng = open()
	defer eng.Close()
	s := eng.KnowledgeService()
	up, err := s.Upload(ctx, acc, c, knowledge.File{Name: "old.md", Data: []byte("# New\n\nReplaced in place.")})
	if err != nil {
		t.Fatal(err)
	}
	if up.DocumentID != legacyID {
		t.Fatalf("upload to a legacy document's path made document %s, want %s replaced", up.DocumentID, legacyID)
	}
	if err := s.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, acc, c)
	if err != nil || st.Documents != 1 || st.Ready != 1 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	g, err := s.Get(ctx, acc, c, "/old.md")
	if err != nil || g.ID != legacyID || !strings.Contains(g.Text, "Replaced in place") {
		t.Fatalf("get_document: %+v, %v", g, err)
	}
}
