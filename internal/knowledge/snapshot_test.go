package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/index/snapfmt"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist"
)

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	*hashembed.Embedder
	n atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.n.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

// TestSnapshotRestart: a clean restart resumes the chunk index from its
// snapshot (nothing is embedded again but the query); a snapshot that is
// missing, damaged (a flipped byte, cut short, garbage) or of another
// database is rebuilt from SQL, and search answers the same either way.
func TestSnapshotRestart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	snap := db + ".knowledge"
	emb := &countingEmbedder{Embedder: hashembed.New(64)}
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
	acc := persist.Access{Principal: "alice"}
	open := func() *contextd.Engine {
		t.Helper()
		eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: db, Embedding: contextd.EmbeddingConfig{Embedder: emb}})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	search := func(eng *contextd.Engine, q, mode string) []string {
		t.Helper()
		s := eng.KnowledgeService()
		c, err := s.Resolve(ctx, acc, "snap")
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Search(ctx, acc, c, knowledge.Query{Text: q, Mode: mode, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Path)
		}
		return out
	}
	eng := open()
	s := eng.KnowledgeService()
	c, err := s.Create(ctx, acc, nil, "snap", "")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"heron.md":   "# Herons\n\nThe grey heron waits by the lake for fish.",
		"kestrel.md": "# Kestrels\n\nA kestrel hovers over the field, hunting voles.",
		"notes.txt":  "Plain notes about the lake shore and its reeds.",
	} {
		if _, err := s.Upload(ctx, acc, c, knowledge.File{Name: name, Data: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	want := search(eng, "heron lake", knowledge.Hybrid)
	if len(want) == 0 || want[0] != "/heron.md" {
		t.Fatalf("before restart: %v", want)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(snap)
	if err != nil {
		t.Fatalf("no snapshot after Close: %v", err)
	}

	embedded := emb.n.Load()
	eng = open()
	if got := search(eng, "heron lake", knowledge.Hybrid); !equal(got, want) {
		t.Fatalf("from the snapshot: %v, want %v", got, want)
	}
	if n := emb.n.Load() - embedded; n != 1 { // the query alone
		t.Fatalf("restart from the snapshot embedded %d texts, want 1 (the query)", n)
	}
	_ = eng.Close()

	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x40
	other := filepath.Join(t.TempDir(), "other.db")
	for name, damage := range map[string]func(){
		"missing":  func() { _ = os.Remove(snap) },
		"flipped":  func() { _ = os.WriteFile(snap, flipped, 0o644) },
		"short":    func() { _ = os.WriteFile(snap, good[:len(good)/3], 0o644) },
		"garbage":  func() { _ = os.WriteFile(snap, []byte("not a snapshot at all"), 0o644) },
		"empty":    func() { _ = os.WriteFile(snap, nil, 0o644) },
		"other db": func() { copySnapshotOf(t, other, snap) },
		// The format before chunk spans (every chunk's text): rebuilt.
		"format 1": func() { _ = os.WriteFile(snap, snapfmt.Reseal(append([]byte("CXKNOW01"), good[8:]...)), 0o644) },
		// The format of float32 vectors: rebuilt.
		"format 2": func() { _ = os.WriteFile(snap, snapfmt.Reseal(append([]byte("CXKNOW02"), good[8:]...)), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			damage()
			before := emb.n.Load()
			eng := open()
			defer eng.Close()
			if got := search(eng, "heron lake", knowledge.Hybrid); !equal(got, want) {
				t.Fatalf("rebuilt: %v, want %v", got, want)
			}
			if got := search(eng, "voles", knowledge.Keyword); len(got) != 1 || got[0] != "/kestrel.md" {
				t.Fatalf("rebuilt keyword: %v", got)
			}
			if emb.n.Load()-before < 4 { // three documents' chunks and the query
				t.Fatalf("a %s snapshot was used instead of rebuilding", name)
			}
		})
	}
}

// copySnapshotOf writes to dst the knowledge snapshot of a fresh database
// at db holding one other document.
func copySnapshotOf(t *testing.T, db, dst string) {
	t.Helper()
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "bob"})
	acc := persist.Access{Principal: "bob"}
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: db, Embedding: contextd.EmbeddingConfig{Embedder: hashembed.New(64)}})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.KnowledgeService()
	c, err := s.Create(ctx, acc, nil, "elsewhere", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Upload(ctx, acc, c, knowledge.File{Name: "x.md", Data: []byte("# Other\n\nSomething else entirely.")}); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(db + ".knowledge")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
