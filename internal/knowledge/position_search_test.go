package knowledge_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist"
)

// TestHitPassagePosition checks every hit of every mode against its
// document's text: the code points [Start, End) of the text are the
// chunk's text (a Markdown chunk's heading breadcrumb prefixed), and the
// lines are those of its first and last character. Each hit is the
// best-scoring chunk of its document for the query, so its passage is
// the chunk itself.
func TestHitPassagePosition(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng, err := contextd.Open(ctx, contextd.Config{DBPath: filepath.Join(dir, "k.db"), IndexPath: filepath.Join(dir, "ix"),
		Embedding: contextd.EmbeddingConfig{Embedder: hashembed.New(64)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	svc := eng.KnowledgeService()
	acc := persist.Access{Principal: "alice"}
	c, err := svc.Create(ctx, acc, nil, "positions", "")
	if err != nil {
		t.Fatal(err)
	}
	// Long enough for several chunks, with multi-byte characters before
	// the later ones so code points and bytes differ.
	var md, txt strings.Builder
	md.WriteString("# Café guide\n\n")
	for i := range 60 {
		fmt.Fprintf(&md, "## Section %d — naïve résumé\n\nThe espresso grinder number %d needs cleaning every week; descale the boiler monthly.\n\n", i, i)
		fmt.Fprintf(&txt, "Line %d: 世界 the harbour crane lifts container %d onto the ship before noon.\n", i, i)
	}
	docs := map[string]string{"cafe.md": md.String(), "port.txt": txt.String()}
	for name, text := range docs {
		if _, err := svc.Upload(ctx, acc, c, knowledge.File{Name: name, Data: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	later := 0 // hits past the first line
	for _, mode := range []string{knowledge.Keyword, knowledge.Semantic, knowledge.Hybrid} {
		for _, q := range []string{"descale the boiler", "crane container ship", "grinder number 42", `"descale the boiler"`, `"lifts container"`} {
			res, err := svc.Search(ctx, acc, c, knowledge.Query{Text: q, Mode: mode, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatalf("%s %q: no hits", mode, q)
			}
			for _, h := range res.Hits {
				runes := []rune(docs[h.Name])
				p := h.Passage
				if p.Start < 0 || p.End > len(runes) || p.Start >= p.End {
					t.Fatalf("%s %q %s chunk %d: span %+v outside the text (%d code points)", mode, q, h.Name, h.Chunk, p, len(runes))
				}
				span := string(runes[p.Start:p.End])
				if p.Text != span {
					t.Errorf("%s %q %s chunk %d: passage text %q, want the document's text[%d:%d] %q", mode, q, h.Name, h.Chunk, p.Text, p.Start, p.End, span)
				}
				if !strings.HasSuffix(h.Text, span) {
					t.Errorf("%s %q %s chunk %d: text[%d:%d] = %q is not the chunk's text %q", mode, q, h.Name, h.Chunk, p.Start, p.End, span, h.Text)
				}
				if p.StartLine > 1 {
					later++
				}
				before := string(runes[:p.Start])
				if want := 1 + strings.Count(before, "\n"); p.StartLine != want {
					t.Errorf("%s %q %s chunk %d: start line %d, want %d", mode, q, h.Name, h.Chunk, p.StartLine, want)
				}
				if want := 1 + strings.Count(before+span[:len(span)-1], "\n"); p.EndLine != want {
					t.Errorf("%s %q %s chunk %d: end line %d, want %d", mode, q, h.Name, h.Chunk, p.EndLine, want)
				}
			}
		}
	}
	if later == 0 {
		t.Error("every hit starts on line 1: the documents were not cut into several chunks")
	}
}
