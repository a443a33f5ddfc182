package index

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// TestTextTokens checks the text lengths the catalog keeps per entry (the
// BM25 average document length): upserts add, replacements and deletes
// take the old length back out.
func TestTextTokens(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, Options{})
	want := func(docs ...string) uint64 {
		var n uint64
		for _, d := range docs {
			n += uint64(len(ix.analyze(d)))
		}
		return n
	}
	texts := map[string]string{}
	for _, d := range testDocs() {
		texts[d.ID] = d.Text
	}
	check := func(step string) {
		t.Helper()
		var all []string
		for _, s := range texts {
			all = append(all, s)
		}
		got := ix.cat.Tokens(nil)
		if w := want(all...); got != w {
			t.Fatalf("%s: %d tokens, want %d", step, got, w)
		}
	}
	check("initial")
	up := testDocs()[1]
	up.Text = "Connection refused again and again by the database server in the night."
	texts[up.ID] = up.Text
	if err := ix.Apply(ctx, []Doc{up}, []string{"03", "99"}, 8); err != nil {
		t.Fatal(err)
	}
	delete(texts, "03")
	check("replace and delete")
	// A delete and an upsert of one id in one batch: the upsert wins.
	again := testDocs()[0]
	again.Text = "Authentication."
	texts[again.ID] = again.Text
	if err := ix.Apply(ctx, []Doc{again}, []string{again.ID}, 9); err != nil {
		t.Fatal(err)
	}
	check("delete then upsert")
	if err := ix.Reset(); err != nil {
		t.Fatal(err)
	}
	texts = map[string]string{}
	check("reset")
}

// TestBM25Rescore checks the ranking stage against textbook BM25
// (k1 = 1.2, b = 0.75, raw term frequency, one idf per term).
func TestBM25Rescore(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	docs := []Doc{
		{ID: "a", Text: "wing flutter wing flutter wing flutter in a long report about many other subjects entirely", Owner: "u", CreatedAt: t0},
		{ID: "b", Text: "wing flutter", Owner: "u", CreatedAt: t0},
		{ID: "c", Text: "shock wave on a wing", Owner: "u", CreatedAt: t0},
		{ID: "d", Text: "boundary layer transition", Owner: "u", CreatedAt: t0},
	}
	if err := ix.Apply(ctx, docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, Query{Text: `"wing" OR "flutter"`, Mode: "boolean", Access: Access{Principal: "u"}, Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	lens := map[string]int{}
	tfs := map[string]map[string]int{}
	for _, d := range docs {
		terms := ix.analyze(d.Text)
		lens[d.ID] = len(terms)
		total += len(terms)
		tfs[d.ID] = map[string]int{}
		for _, x := range terms {
			tfs[d.ID][x]++
		}
	}
	avgdl := float64(total) / float64(len(docs))
	df := map[string]int{}
	for _, m := range tfs {
		for x := range m {
			df[x]++
		}
	}
	bm25 := func(id string) float64 {
		s := 0.0
		for _, x := range []string{"wing", "flutter"} {
			tf := float64(tfs[id][x])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (4-float64(df[x])+0.5)/(float64(df[x])+0.5))
			s += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(lens[id])/avgdl))
		}
		return s
	}
	if got := ids(res); got != "b,a,c" {
		t.Fatalf("ranking %s, want b,a,c", got)
	}
	for _, h := range res.Hits {
		if w := bm25(h.ID); math.Abs(h.Score-w) > 1e-9 {
			t.Fatalf("%s: score %v, want %v", h.ID, h.Score, w)
		}
	}
}

// TestTextLength: a text's BM25 length is its number of index terms
// (Bleve's field length), for every language, on text with long and short
// lines.
func TestTextLength(t *testing.T) {
	line := "The café's owners weren't there; Über-naïve jumping foxes ran 42 km, l'homme, ĥôtel, 東京 タワー, русские слова и ещё fmt.Println\n"
	text := strings.Repeat(line, 300) + strings.Repeat("x", 1<<17) + "\n" + strings.Repeat(line, 50)
	for _, lang := range Languages() {
		m := bleve.NewIndexMapping()
		if err := addAnalyzer(m, lang); err != nil {
			t.Fatal(err)
		}
		want := len(m.AnalyzerNamed(analyzerName).Analyze([]byte(text)))
		if got, _ := textLength(text, nil); got != want || want != 350*25+1 {
			t.Errorf("%s: length %d, analyzer %d, want %d", lang, got, want, 350*25+1)
		}
	}
}
