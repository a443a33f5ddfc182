package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist"
)

// TestStaleSnapshotCatchesUp: a snapshot older than the database (the
// process that wrote later changes died before saving one, or another
// replica made them) is resumed and then brought up to date from the
// change log: a document re-uploaded with new text after the snapshot is
// found by its new words only, its passage is cut from the new text, and
// a document deleted after the snapshot is gone. Only the changed
// document is embedded again: the snapshot was resumed, not rebuilt.
func TestStaleSnapshotCatchesUp(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	snap := db + ".knowledge"
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "alice"})
	acc := persist.Access{Principal: "alice"}
	emb := &countingEmbedder{Embedder: hashembed.New(64)}
	open := func() (*contextd.Engine, *knowledge.Service, *knowledge.Container) {
		t.Helper()
		eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: db, Embedding: contextd.EmbeddingConfig{Embedder: emb}})
		if err != nil {
			t.Fatal(err)
		}
		s := eng.KnowledgeService()
		c, err := s.Resolve(ctx, acc, "stale")
		if err != nil {
			c, err = s.Create(ctx, acc, nil, "stale", "")
		}
		if err != nil {
			t.Fatal(err)
		}
		return eng, s, c
	}
	upload := func(s *knowledge.Service, c *knowledge.Container, name, text string) {
		t.Helper()
		if _, err := s.Upload(ctx, acc, c, knowledge.File{Name: name, Data: []byte(text)}); err != nil {
			t.Fatal(err)
		}
		if err := s.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	search := func(s *knowledge.Service, c *knowledge.Container, q string) []knowledge.Hit {
		t.Helper()
		res, err := s.Search(ctx, acc, c, knowledge.Query{Text: q, Mode: knowledge.Keyword, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits
	}

	eng, s, c := open()
	upload(s, c, "heron.md", "# Herons\n\nThe grey heron waits by the lake for fish.")
	upload(s, c, "kestrel.md", "# Kestrels\n\nA kestrel hovers over the field, hunting voles.")
	upload(s, c, "notes.txt", "Plain notes about the lake shore and its reeds.")
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(snap)
	if err != nil {
		t.Fatalf("no snapshot after Close: %v", err)
	}

	// Changes after the snapshot; the next Close saves a newer one, which
	// is then replaced by the old one, as if this process had died.
	eng, s, c = open()
	before := emb.n.Load()
	upload(s, c, "heron.md", "# Kingfishers\n\nA kingfisher dives into the river for minnows.")
	listing, err := s.ListFiles(ctx, acc, c, "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range listing.Files {
		if d.Name == "kestrel.md" {
			if _, err := s.DeleteFile(ctx, acc, c, d.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	changed := emb.n.Load() - before // the new text's chunks
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, old, 0o644); err != nil {
		t.Fatal(err)
	}

	before = emb.n.Load()
	eng, s, c = open()
	defer eng.Close()
	hits := search(s, c, "kingfisher minnows")
	if len(hits) != 1 || hits[0].Path != "/heron.md" || !strings.Contains(hits[0].Text, "kingfisher dives") {
		t.Fatalf("the re-uploaded text after a stale snapshot: %+v", hits)
	}
	if hits := search(s, c, "grey heron"); len(hits) != 0 {
		t.Fatalf("the text replaced after the snapshot is still found: %+v", hits)
	}
	if hits := search(s, c, "voles"); len(hits) != 0 {
		t.Fatalf("the document deleted after the snapshot is still found: %+v", hits)
	}
	if hits := search(s, c, "reeds"); len(hits) != 1 || hits[0].Path != "/notes.txt" {
		t.Fatalf("the document unchanged since the snapshot: %+v", hits)
	}
	t.Logf("embedded %d texts on resuming; the changed document has %d chunks", emb.n.Load()-before, changed)
	if n := emb.n.Load() - before; n > changed {
		t.Fatalf("resuming the stale snapshot embedded %d texts; the changed document has %d chunks (a rebuild embeds every document)", n, changed)
	}
}
