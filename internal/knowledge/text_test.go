package knowledge

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// editBeforeRead is a store whose next read of entries by id (the read
// of a search's hits, hitDocs) first runs hook.
type editBeforeRead struct {
	persist.Store
	hook atomic.Pointer[func()]
}

func (s *editBeforeRead) Search(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	if len(q.Filter.IDs) > 0 {
		if h := s.hook.Swap(nil); h != nil {
			(*h)()
		}
	}
	return s.Store.Search(ctx, acc, q)
}

// TestSearchRereadsEditedDocument: the index keeps no text for a span
// chunk, so a search reads its hits' texts from the store after scoring.
// A document edited in between (here: in the store just before its hit
// is read, every offset shifted) must not give a passage of the new text
// at the old chunk's offsets: the search sees the text is not the one
// its chunks were cut from, catches up and answers from the new chunks.
// Phrases are checked against texts read from the store too.
func TestSearchRereadsEditedDocument(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "k.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ws := &editBeforeRead{Store: st}
	svc, err := Open(ctx, ws, follow.NewFeed(st), hashembed.New(64), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	acc := persist.Access{Principal: "alice"}
	c, err := svc.Create(ctx, acc, nil, "edits", "")
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	md.WriteString("# Guide\n\n")
	for i := range 40 {
		fmt.Fprintf(&md, "## Part %d\n\nThe grinder number %d needs cleaning every week; descale the boiler monthly.\n\n", i, i)
	}
	up, err := svc.Upload(ctx, acc, c, File{Name: "guide.md", Data: []byte(md.String()), Strategy: "Recursive"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]bool{`"descale the boiler"`: true, `"boiler descale"`: false, `"the boiler descale"`: false} {
		res, err := svc.Search(ctx, acc, c, Query{Text: q, Mode: Keyword, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Hits) > 0; got != want {
			t.Fatalf("phrase %s: %d hits, want hits: %v", q, len(res.Hits), want)
		}
		for _, h := range res.Hits {
			if !strings.Contains(h.Text, "descale the boiler") || !strings.HasSuffix(h.Text, h.Passage.Text) {
				t.Fatalf("phrase %s: hit text %q, passage %q", q, h.Text, h.Passage.Text)
			}
		}
	}

	edited := "# Preface\n\n" + strings.Repeat("An introduction that shifts every offset. ", 30) + "\n\n" + md.String()
	var editErr error
	edit := func() {
		docs, err := st.IndexDocs(ctx, []string{up.DocumentID})
		if err != nil || len(docs) != 1 {
			editErr = fmt.Errorf("read the document: %v, %d entries", err, len(docs))
			return
		}
		h := hashText(edited)
		editErr = st.Write(ctx, func(tx persist.Tx) error {
			_, err := tx.Update(ctx, up.DocumentID, persist.Update{Text: &edited, ContentHash: &h, BumpVersion: true,
				UpdatedAt: time.Now(), ExpectVersion: docs[0].Version})
			return err
		})
	}
	ws.hook.Store(&edit)
	res, err := svc.Search(ctx, acc, c, Query{Text: `"descale the boiler" grinder`, Mode: Keyword, TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if ws.hook.Load() != nil || editErr != nil {
		t.Fatalf("the document was not edited before its hits were read (%v)", editErr)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits after the edit")
	}
	runes := []rune(edited)
	for _, h := range res.Hits {
		p := h.Passage
		if p.Start < 0 || p.End > len(runes) || p.Start >= p.End {
			t.Fatalf("chunk %d: span %+v outside the edited text", h.Chunk, p)
		}
		span := string(runes[p.Start:p.End])
		if p.Text != span || !strings.HasSuffix(h.Text, span) || !strings.Contains(h.Text, "descale the boiler") {
			t.Errorf("chunk %d: text %q, passage %q, edited text there %q", h.Chunk, h.Text, p.Text, span)
		}
	}
}
