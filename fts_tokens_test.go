package contextd

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contextd/contextd/persist/sqlite"
)

// tokenBackends is one corpus served by both search backends over one
// SQLite store: the in-process index and FTS5.
type tokenBackends struct {
	inproc, native *Engine
	ids            []string // entry ids, in corpus order
	texts          map[string]string
}

func openTokenBackends(t *testing.T, entries []string) *tokenBackends {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(dir, "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	b := &tokenBackends{texts: map[string]string{}}
	// In-process first: it drops the FTS5 triggers, the native engine
	// restores them.
	if b.inproc, err = Open(ctx, Config{Store: st, FTS: FTSConfig{IndexDir: filepath.Join(dir, "ctx.db.index"), Progress: io.Discard}}); err != nil {
		t.Fatal(err)
	}
	if b.native, err = Open(ctx, Config{Store: st, FTS: FTSConfig{Backend: BackendNative}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.inproc.Close()
		b.native.Close()
		st.Close()
	})
	actx := WithPrincipal(ctx, Principal{ID: "alice"})
	for _, text := range entries {
		r, err := b.native.Store(actx, StoreRequest{ThreadID: "notes", Source: "agent", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		b.ids = append(b.ids, r.ContextID)
		b.texts[r.ContextID] = text
	}
	return b
}

func (b *tokenBackends) search(t *testing.T, eng *Engine, q, mode string, highlight bool) *FTSSearchResponse {
	t.Helper()
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	res, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: q, Mode: mode, Limit: 50, Highlight: highlight})
	if err != nil {
		t.Fatalf("%s %q: %v", mode, q, err)
	}
	if res.Error != "" {
		t.Fatalf("%s %q: %s", mode, q, res.Error)
	}
	return res
}

func resultIDs(res *FTSSearchResponse) []string {
	out := make([]string, len(res.Results))
	for i, r := range res.Results {
		out[i] = r.ID
	}
	return out
}

type parityCorpus struct {
	Entries []string `json:"entries"`
	Queries []struct {
		Mode string `json:"mode"`
		Q    string `json:"q"`
		// Stemmer says why the backends differ on this query: the
		// in-process index stems with Porter2, FTS5 with Porter v1.
		Stemmer string `json:"stemmer"`
	} `json:"queries"`
}

// TestFTSTokenParity: over the committed corpus of code-ish
// notes, Markdown and multilingual text, the in-process index and SQLite
// FTS5 return the same entries for every match, prefix, phrase and boolean
// query; the top-10 overlap of the rankings is reported.
func TestFTSTokenParity(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "fts", "parity.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c parityCorpus
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	b := openTokenBackends(t, c.Entries)
	overlap, ranked, nonEmpty, stemmed := 0.0, 0, 0, 0
	for _, q := range c.Queries {
		in := resultIDs(b.search(t, b.inproc, q.Q, q.Mode, false))
		nat := resultIDs(b.search(t, b.native, q.Q, q.Mode, false))
		if len(nat) > 0 {
			nonEmpty++
		}
		a, n := slices.Clone(in), slices.Clone(nat)
		slices.Sort(a)
		slices.Sort(n)
		if q.Stemmer != "" {
			if slices.Equal(a, n) {
				t.Errorf("%s %q is marked as a stemmer difference but both backends agree: remove the mark", q.Mode, q.Q)
			}
			stemmed++
			continue
		}
		if !slices.Equal(a, n) {
			t.Errorf("%s %q: in-process found %v, native %v", q.Mode, q.Q, b.textsOf(in), b.textsOf(nat))
			continue
		}
		if len(in) > 1 {
			k := min(10, len(in))
			common := 0
			for _, id := range in[:k] {
				if slices.Contains(nat[:k], id) {
					common++
				}
			}
			overlap += float64(common) / float64(k)
			ranked++
		}
	}
	if nonEmpty < len(c.Queries)*3/4 {
		t.Errorf("only %d of %d queries found anything: the corpus does not exercise the tokenizer", nonEmpty, len(c.Queries))
	}
	t.Logf("%d queries, %d with results, %d differing by stemmer only; top-10 overlap over %d rankings of more than one entry: %.1f%%",
		len(c.Queries), nonEmpty, stemmed, ranked, 100*overlap/float64(max(ranked, 1)))
}

func (b *tokenBackends) textsOf(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = b.texts[id]
		if len(out[i]) > 40 {
			out[i] = out[i][:40] + "..."
		}
	}
	return out
}

// TestFTSTechnicalTokens: the measured misses. Println, yaml,
// example and resume find their entries on both backends, and prefix the
// finds the same entries on both.
func TestFTSTechnicalTokens(t *testing.T) {
	entries := []string{
		"Call fmt.Println to print; config lives in config.yaml next to main.go",
		"See https://docs.example.org/guide",
		"Café crème brûlée naïve résumé",
		"Theory first, then the practice.",
		"Read the guide.",
	}
	b := openTokenBackends(t, entries)
	for _, c := range []struct {
		q, mode string
		want    []int
	}{
		{"Println", "match", []int{0}},
		{"yaml", "match", []int{0}},
		{"example", "match", []int{1}},
		{"resume", "match", []int{2}},
		{"cafe naive", "match", []int{2}},
		{"fmt.Println", "match", []int{0}},
		{"fmt.Println", "phrase", []int{0}},
		{"println fmt", "phrase", nil},
		{"the", "prefix", []int{3, 4}},
		{"\"the guide\"", "match", []int{4}},
		{"the", "match", nil},
	} {
		var want []string
		for _, i := range c.want {
			want = append(want, b.ids[i])
		}
		slices.Sort(want)
		for name, eng := range map[string]*Engine{"in-process": b.inproc, "native": b.native} {
			got := resultIDs(b.search(t, eng, c.q, c.mode, false))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s %s %q: got %v, want %v", name, c.mode, c.q, b.textsOf(got), b.textsOf(want))
			}
		}
	}
}

// TestFTSHighlightSplitTokens: a highlight marks the part of a
// technical token that matched (Println inside fmt.Println) and the
// original accented text, the same on both backends.
func TestFTSHighlightSplitTokens(t *testing.T) {
	entries := []string{
		"Call fmt.Println to print; config lives in config.yaml next to main.go",
		"See https://docs.example.org/guide",
		"Café crème brûlée naïve résumé",
	}
	b := openTokenBackends(t, entries)
	b.checkHighlights(t, []highlightCase{
		{"Println", "match", "Call fmt.<mark>Println</mark> to print; config lives in config.yaml next to main.go"},
		{"yaml", "match", "Call fmt.Println to print; config lives in config.<mark>yaml</mark> next to main.go"},
		{"example", "match", "See https://docs.<mark>example</mark>.org/guide"},
		{"resume cafe", "match", "<mark>Café</mark> crème brûlée naïve <mark>résumé</mark>"},
		{"print", "prefix", "Call fmt.<mark>Println</mark> to <mark>print</mark>; config lives in config.yaml next to main.go"},
	})
}

type highlightCase struct{ q, mode, want string }

// checkHighlights runs each query with highlights on both backends: one
// result, highlighted as wanted.
func (b *tokenBackends) checkHighlights(t *testing.T, cases []highlightCase) {
	t.Helper()
	for _, c := range cases {
		for name, eng := range map[string]*Engine{"in-process": b.inproc, "native": b.native} {
			res := b.search(t, eng, c.q, c.mode, true)
			if len(res.Results) != 1 || res.Results[0].Highlighted == nil {
				t.Errorf("%s %s %q: %d results", name, c.mode, c.q, len(res.Results))
				continue
			}
			if got := *res.Results[0].Highlighted; got != c.want {
				t.Errorf("%s %s %q: highlighted\n%s\nwant\n%s", name, c.mode, c.q, got, c.want)
			}
		}
	}
}

// TestFTSHighlightPhrases: a phrase instance is marked as one range, from
// its first word to its last, as FTS5's highlight() marks it; separate
// words of a match query are marked one by one even when adjacent.
func TestFTSHighlightPhrases(t *testing.T) {
	b := openTokenBackends(t, []string{
		"Call fmt.Println to print; config lives in config.yaml next to main.go",
		"The quick brown fox jumps over the lazy dog. The lazy cat.",
	})
	b.checkHighlights(t, []highlightCase{
		{"config.yaml", "match", "Call fmt.Println to print; config lives in <mark>config.yaml</mark> next to main.go"},
		{"fmt.Println", "phrase", "Call <mark>fmt.Println</mark> to print; config lives in config.yaml next to main.go"},
		{"fmt.Pri", "prefix", "Call <mark>fmt.Println</mark> to print; config lives in config.yaml next to main.go"},
		{"the lazy dog", "phrase", "The quick brown fox jumps over <mark>the lazy dog</mark>. The lazy cat."},
		{"lazy dog", "match", "The quick brown fox jumps over the <mark>lazy</mark> <mark>dog</mark>. The <mark>lazy</mark> cat."},
		{`"lazy dog" OR cat`, "boolean", "The quick brown fox jumps over the <mark>lazy dog</mark>. The lazy <mark>cat</mark>."},
	})
}
