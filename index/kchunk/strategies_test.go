package kchunk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

func TestSplitEmptyAndSmallB3(t *testing.T) {
	for _, s := range []string{"", FixedSize, Recursive, Semantic, "semantic", "FIXEDSIZE"} {
		o := Options{Strategy: s, Embed: topicEmbed}
		if cs := split(t, "a.txt", " \n\t ", o); len(cs) != 0 {
			t.Errorf("%s: whitespace gave %d chunks", s, len(cs))
		}
		text := "A short note. It has two sentences."
		cs := split(t, "a.txt", text, o)
		if len(cs) != 1 || cs[0].Text != text || cs[0].Start != 0 || cs[0].End != len(text) {
			t.Errorf("%s: small doc gave %+v, want one chunk of the whole text", s, cs)
		}
	}
}

func TestSplitRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Strategy: "Bogus"},
		{Strategy: FixedSize, MaxTokens: -1},
		{Strategy: FixedSize, MaxTokens: MaxMaxTokens + 1},
		{Strategy: FixedSize, Overlap: -3},
		{Strategy: FixedSize, MinTokens: -1},
		{Strategy: Semantic}, // no embedder
	} {
		_, err := Split(context.Background(), "a.txt", "Some text.", o)
		if !errors.Is(err, cerrors.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", o, err)
		}
	}
	_, err := Split(context.Background(), "a.txt", "x", Options{Strategy: "Bogus"})
	if err == nil || !strings.Contains(err.Error(), `"Bogus"`) {
		t.Errorf("error should name the strategy: %v", err)
	}
}

func TestFixedSizeB3(t *testing.T) {
	text := prose(1, 12, 6)
	cs := split(t, "a.txt", text, Options{Strategy: FixedSize, MaxTokens: 60, Overlap: 12})
	check(t, "a.txt", text, cs, 60)
	if len(cs) < 10 {
		t.Fatalf("got %d chunks", len(cs))
	}
	overlapping := 0
	for i := 1; i < len(cs); i++ {
		if cs[i].Start < cs[i-1].End {
			overlapping++
		}
		// Natural breaks: a window ends at a sentence end or word end.
		if i < len(cs)-1 && !strings.HasSuffix(cs[i].Text, ".") && strings.ContainsAny(text[cs[i].End:cs[i].End+1], "abcdefghijklmnopqrstuvwxyz") {
			t.Errorf("chunk %d ends inside a word: %q", i, cs[i].Text)
		}
	}
	if overlapping < len(cs)/2 {
		t.Errorf("only %d of %d chunks overlap their predecessor", overlapping, len(cs))
	}
	// Overlap ≥ MaxTokens becomes MaxTokens/4 (B3) and still progresses.
	cs = split(t, "a.txt", text, Options{Strategy: FixedSize, MaxTokens: 40, Overlap: 40})
	check(t, "a.txt", text, cs, 40)
}

func TestRecursiveB3(t *testing.T) {
	// Paragraphs that fit are kept whole and merged up to the limit.
	paras := []string{strings.Repeat("Alpha beta gamma delta. ", 10), strings.Repeat("Epsilon zeta eta theta. ", 10), strings.Repeat("Iota kappa lambda mu. ", 10)}
	text := strings.Join(paras, "\n\n")
	cs := split(t, "a.txt", text, Options{Strategy: Recursive, MaxTokens: 80, Overlap: 10, MinTokens: 10})
	check(t, "a.txt", text, cs, 80)
	for _, c := range cs {
		if strings.Contains(c.Text, "\n\n") {
			t.Errorf("two 50-token paragraphs do not fit in 80 tokens, yet merged: %q", c.Text)
		}
	}
	if len(cs) != 3 {
		t.Errorf("got %d chunks, want one per paragraph", len(cs))
	}
	// No separator at all: a hard cut by tokens.
	word := strings.Repeat("x", 5000)
	cs = split(t, "a.txt", word, Options{Strategy: Recursive, MaxTokens: 100})
	check(t, "a.txt", word, cs, 100)
	if len(cs) < 2 || cs[0].Tokens != 100 {
		t.Errorf("hard cut gave %d chunks, first of %d tokens", len(cs), cs[0].Tokens)
	}
	// A long document: every property, defaults.
	long := prose(2, 40, 8)
	check(t, "a.txt", long, split(t, "a.txt", long, Options{Strategy: Recursive}), DefaultMaxTokens)
}

func TestRecursiveMergesSmallChunks(t *testing.T) {
	text := strings.Repeat("Word ", 90) + "\n\nTiny tail."
	cs := split(t, "a.txt", text, Options{Strategy: Recursive, MaxTokens: 100, Overlap: 5, MinTokens: 20})
	check(t, "a.txt", text, cs, 100)
	if last := cs[len(cs)-1]; last.Tokens < 20 {
		t.Errorf("a %d-token tail was not merged: %+v", last.Tokens, cs)
	}
}

// twoTopics is 8 sentences about rivers then 8 about baking.
func twoTopics() (string, int) {
	river := "The river flooded the valley meadow. Flood water covered every meadow near the river. Farmers watched the river flood rise over the valley. The valley river flooded again each spring. River flood warnings reached the valley farmers early. Meadow grass drowned under the river flood. The valley remembers every river flood. River levels in the valley fell after the flood."
	bread := "Bakers knead bread dough before dawn. Fresh bread dough rises in warm ovens. The bakery sells crusty bread loaves daily. Bread flour and yeast make the dough rise. Ovens bake the bread loaves golden brown. Bakers shape dough into round loaves. The bakery smells of warm bread. Yeast dough needs time before baking bread."
	return river + " " + bread, len(river)
}

func TestSemanticB3(t *testing.T) {
	text, boundary := twoTopics()
	calls := 0
	var seen []string
	embed := func(ctx context.Context, xs []string) ([][]float32, error) {
		calls++
		seen = xs
		return topicEmbed(ctx, xs)
	}
	cs := split(t, "a.txt", text, Options{Strategy: Semantic, Embed: embed, MinTokens: 10})
	check(t, "a.txt", text, cs, DefaultMaxTokens)
	if calls != 1 {
		t.Errorf("embedder called %d times, want one batch", calls)
	}
	// SemanticBufferSize 1: each sentence is embedded with its neighbours.
	sents := texts(text, sentences(text))
	if len(seen) != len(sents) || seen[0] != sents[0]+" "+sents[1] || seen[1] != sents[0]+" "+sents[1]+" "+sents[2] || seen[len(seen)-1] != sents[len(sents)-2]+" "+sents[len(sents)-1] {
		t.Errorf("sentence windows: %q", seen[:2])
	}
	found := false
	for _, c := range cs {
		if c.End == boundary {
			found = true
		}
		if c.Embedding == nil || len(c.Embedding) != 64 {
			t.Errorf("chunk %q has no precomputed embedding", c.Text)
		}
	}
	if !found {
		t.Errorf("no break at the topic change (byte %d): %v", boundary, chunkTexts(cs))
	}
	// One sentence: no embedder call (B3 step 1).
	calls = 0
	split(t, "a.txt", "Only one sentence here.", Options{Strategy: Semantic, Embed: embed})
	if calls != 0 {
		t.Errorf("single sentence called the embedder %d times", calls)
	}
}

// TestPercentileB3: rank = p/100·(m−1) with linear interpolation; p ≤ 0
// is the minimum, p ≥ 100 the maximum.
func TestPercentileB3(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for _, tc := range []struct{ p, want float64 }{{95, 4.8}, {50, 3}, {0, 1}, {-3, 1}, {100, 5}, {120, 5}, {25, 2}} {
		if got := percentile(xs, tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("percentile(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 5 {
		t.Error("percentile sorted its input in place")
	}
}

// TestSemanticFewSentencesUseFixedThreshold: with fewer than 5 distances
// the break is where cosine similarity drops below 0.5 (B3 step 4), so
// five sentences on one subject stay one chunk even with a small limit
// on the minimum.
func TestSemanticFewSentencesUseFixedThreshold(t *testing.T) {
	text := "The river flooded the valley. The river flood rose. Valley farmers watched the river flood. River flood warnings came early. The valley river flooded again."
	cs := split(t, "a.txt", text, Options{Strategy: Semantic, Embed: topicEmbed, MinTokens: 1})
	if len(cs) != 1 {
		t.Errorf("one subject, 4 distances: %d chunks %q", len(cs), chunkTexts(cs))
	}
	// Orthogonal windows (similarity 0 < 0.5) break at every sentence.
	orth := func(_ context.Context, xs []string) ([][]float32, error) {
		out := make([][]float32, len(xs))
		for i := range xs {
			out[i] = make([]float32, len(xs))
			out[i][i] = 1
		}
		return out, nil
	}
	cs = split(t, "a.txt", "One apple here. Two bananas there. Three cherries everywhere.", Options{Strategy: Semantic, Embed: orth, MinTokens: 1})
	if len(cs) != 3 {
		t.Errorf("orthogonal windows: %d chunks %q", len(cs), chunkTexts(cs))
	}
}

func TestSemanticSplitsOversizeGroups(t *testing.T) {
	text := prose(3, 10, 10) // one topic: few breaks, groups over 80 tokens
	cs := split(t, "a.txt", text, Options{Strategy: Semantic, Embed: topicEmbed, MaxTokens: 80})
	check(t, "a.txt", text, cs, 80)
}

func TestSemanticEmbedderErrors(t *testing.T) {
	text, _ := twoTopics()
	boom := errors.New("provider down")
	for name, e := range map[string]func(context.Context, []string) ([][]float32, error){
		"error":   func(context.Context, []string) ([][]float32, error) { return nil, boom },
		"count":   func(context.Context, []string) ([][]float32, error) { return [][]float32{{1}}, nil },
		"dims":    func(_ context.Context, xs []string) ([][]float32, error) { return ragged(len(xs)), nil },
		"nothing": func(_ context.Context, xs []string) ([][]float32, error) { return make([][]float32, len(xs)), nil },
	} {
		_, err := Split(context.Background(), "a.txt", text, Options{Strategy: Semantic, Embed: e})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if name == "error" && !errors.Is(err, boom) {
			t.Errorf("embedder error not wrapped: %v", err)
		}
	}
}

func ragged(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, 1+i%2)
	}
	return out
}

func TestMarkdownHeadingAwareB3(t *testing.T) {
	md := "Preamble line.\n\n# Guide\n\nWhy it exists.\n\n## Install\n\nRun this:\n\n```sh\ngo install example.com/x@latest\n\n# a comment, not a heading\n```\n\n### Linux\n\nUse apt.\n\n## Usage\n\nCall it.\n\nOther Title\n===========\n\nSetext body.\n"
	for _, s := range []string{"", FixedSize, Recursive, Semantic} {
		cs := split(t, "guide.md", md, Options{Strategy: s, Embed: topicEmbed})
		check(t, "guide.md", md, cs, DefaultMaxTokens)
		var got []string
		for _, c := range cs {
			got = append(got, c.HeaderPath+"|"+md[c.Start:c.End])
		}
		want := []string{
			"|Preamble line.",
			"Guide|Why it exists.",
			"Guide > Install|Run this:\n\n```sh\ngo install example.com/x@latest\n\n# a comment, not a heading\n```",
			"Guide > Install > Linux|Use apt.",
			"Guide > Usage|Call it.",
			"Other Title|Setext body.",
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("strategy %q:\n got %q\nwant %q", s, got, want)
		}
		if cs[1].Text != "Guide\n\nWhy it exists." {
			t.Errorf("breadcrumb prefix: %q", cs[1].Text)
		}
	}
	// Names: by extension, case-insensitive.
	for _, n := range []string{"a.md", "B.MARKDOWN", "c.mdx", "docs/d.Md"} {
		if !IsMarkdown(n) {
			t.Errorf("%s is Markdown", n)
		}
	}
	if IsMarkdown("a.txt") || IsMarkdown("md") {
		t.Error("a.txt / md are not Markdown")
	}
}

func TestMarkdownFencedCodeNeverSplit(t *testing.T) {
	var code strings.Builder
	code.WriteString("```go\n")
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&code, "x%d := compute(%d) // step\n\n", i, i)
	}
	code.WriteString("```")
	md := "# API\n\n" + prose(4, 6, 6) + code.String() + "\n\n" + prose(5, 6, 6) + "\n~~~\nshort tilde block\n~~~\n"
	cs := split(t, "api.md", md, Options{MaxTokens: 120, Overlap: 10})
	check(t, "api.md", md, cs, 120)
	whole := 0
	for _, c := range cs {
		body := md[c.Start:c.End]
		if n := strings.Count(body, "```"); n%2 != 0 {
			t.Fatalf("a chunk cuts the fence: %q", body)
		}
		if strings.Contains(body, code.String()) {
			whole++
		}
		if c.HeaderPath != "API" {
			t.Errorf("sub-chunk lost its breadcrumb: %q", c.HeaderPath)
		}
		if c.Tokens > 120 && !strings.HasPrefix(body, "```") {
			t.Errorf("prose chunk of %d tokens over 120", c.Tokens)
		}
	}
	if whole != 1 {
		t.Errorf("the code block is whole in %d chunks, want 1", whole)
	}
}

func TestMarkdownWithoutStructureIsRecursive(t *testing.T) {
	text := prose(6, 30, 8)
	a := split(t, "plain.md", text, Options{})
	b := split(t, "plain.txt", text, Options{Strategy: Recursive})
	if fmt.Sprint(chunkTexts(a)) != fmt.Sprint(chunkTexts(b)) {
		t.Error("a Markdown file without headings or fences must chunk like Recursive")
	}
}

func TestSplitHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := prose(7, 50, 8)
	for _, s := range []string{FixedSize, Recursive} {
		if _, err := Split(ctx, "a.txt", text, Options{Strategy: s}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", s, err)
		}
	}
}

// TestSplitProperties runs every strategy over generated documents and
// limits and checks the properties of check.
func TestSplitProperties(t *testing.T) {
	docs := map[string]string{
		"prose.txt":   prose(8, 25, 7),
		"lines.txt":   strings.Repeat("short line without stop\n", 300),
		"unicode.txt": strings.Repeat("Ünïcödé text — 日本語の文章です。 Ελληνικά κείμενα. ", 120),
		"mixed.md":    "# T\n\n" + prose(9, 8, 6) + "## U\n\n```\n" + strings.Repeat("code line\n", 80) + "```\n\n" + prose(10, 8, 6),
		"crlf.txt":    strings.ReplaceAll(prose(11, 10, 6), "\n", "\r\n"),
	}
	for name, text := range docs {
		for _, s := range []string{FixedSize, Recursive, Semantic} {
			for _, max := range []int{16, 64, 300} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, s, max), func(t *testing.T) {
					cs := split(t, name, text, Options{Strategy: s, MaxTokens: max, Embed: topicEmbed})
					check(t, name, text, cs, max)
				})
			}
		}
	}
}

func chunkTexts(cs []Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

// TestMarkdownLongBreadcrumbFits: headings longer than the limit are
// shortened (outer ones dropped, then the inner one cut) so every chunk,
// breadcrumb included, fits.
func TestMarkdownLongBreadcrumbFits(t *testing.T) {
	long := strings.Repeat("very long heading words ", 12)
	md := "# " + long + "\n\n## Inner " + long + "\n\n" + prose(12, 4, 6)
	for _, max := range []int{1, 2, 3, 8, 40} {
		cs := split(t, "long.md", md, Options{MaxTokens: max})
		check(t, "long.md", md, cs, max)
	}
	cs := split(t, "long.md", md, Options{MaxTokens: 40})
	if !strings.HasPrefix(cs[len(cs)-1].HeaderPath, "Inner very long") {
		t.Errorf("the innermost heading should be kept: %q", cs[len(cs)-1].HeaderPath)
	}
}

// TestGoldenDocumentsProperties runs the strategies over the golden set's
// real documents with the defaults and a small limit.
func TestGoldenDocumentsProperties(t *testing.T) {
	files, err := filepath.Glob("../../testdata/knowledge/golden/docs/*")
	if err != nil || len(files) < 12 {
		t.Fatalf("golden docs: %v %d", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		for _, s := range []string{FixedSize, Recursive, Semantic} {
			for _, max := range []int{0, 64} {
				limit := max
				if limit == 0 {
					limit = DefaultMaxTokens
				}
				check(t, name, string(b), split(t, name, string(b), Options{Strategy: s, MaxTokens: max, Embed: topicEmbed}), limit)
			}
		}
	}
}

// TestSplitConcurrent: one shared tokenizer, many goroutines, the same
// chunks.
func TestSplitConcurrent(t *testing.T) {
	text := prose(13, 30, 6)
	want := chunkTexts(split(t, "a.txt", text, Options{Strategy: Recursive}))
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := Split(context.Background(), "a.txt", text, Options{Strategy: Recursive})
			if err != nil || fmt.Sprint(chunkTexts(cs)) != fmt.Sprint(want) {
				errs <- fmt.Sprint("different result: ", err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestStrategyFor(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a.txt", "", Semantic}, {"a.txt", "fixedsize", FixedSize}, {"a.pdf", " Recursive ", Recursive},
		{"a.md", "FixedSize", DocumentAware}, {"A.MARKDOWN", "", DocumentAware}, {"a.txt", "DocumentAware", DocumentAware},
	} {
		if got, err := StrategyFor(tc.name, tc.in); err != nil || got != tc.want {
			t.Errorf("StrategyFor(%q, %q) = %q, %v; want %q", tc.name, tc.in, got, err, tc.want)
		}
	}
	if _, err := StrategyFor("a.md", "SentenceWindow"); !errors.Is(err, cerrors.ErrInvalid) {
		t.Errorf("unknown strategy: %v", err)
	}
}
