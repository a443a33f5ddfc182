package builtin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/contextd/contextd/index/token"
)

func TestStem(t *testing.T) {
	tests := []struct {
		words []string // all must share one stem
		want  string
	}{
		{[]string{"index", "indexes", "indexed", "indexing", "Indexes"}, "index"},
		{[]string{"search", "searches", "searched", "searching"}, "search"},
		{[]string{"rank", "ranks", "ranked", "ranking"}, "rank"},
		{[]string{"query", "queries", "queried"}, "queri"},
		{[]string{"cache", "caches", "cached", "caching"}, "cach"},
		{[]string{"run", "runs", "running"}, "run"},
		{[]string{"embedded", "embedding"}, "embed"},
		{[]string{"use", "uses", "used", "using"}, "use"},
		{[]string{"class", "classes"}, "class"},
		{[]string{"status"}, "status"},
		{[]string{"analysis"}, "analysi"},
		{[]string{"fall", "falling"}, "fall"},
		{[]string{"string", "strings"}, "string"},
		{[]string{"café", "CAFÉ", "cafe"}, "cafe"}, // folded as the index folds
		{[]string{"2024"}, "2024"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			for _, w := range tc.words {
				var got string
				tokenize(w, nil, func(tok []byte) { got = token.Stem(string(tok)) })
				if got != tc.want {
					t.Fatalf("stem(%q) = %q, want %q", w, got, tc.want)
				}
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"Hello, World!", "hello|world"},
		{"snake_case and kebab-case", "snake|case|and|kebab|case"},
		{"Größe über 10kg", "große|uber|10kg"}, // FTS5's folding: ß is a letter
		{"日本語 テキスト", "日本語|テキスト"},
		{"bad\xffbytes", "bad|bytes"},
		{"e\u0301t\u00e9", "ete"}, // diacritics folded, decomposed or not
		{"fmt.Println", "fmt|println"},
		{"\u0301x", "x"}, // but starts no token
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var toks []string
			tokenize(tc.in, nil, func(tok []byte) { toks = append(toks, string(tok)) })
			if got := strings.Join(toks, "|"); got != tc.want {
				t.Fatalf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func filler(n int, seed uint64) string {
	words := []string{"river", "mountain", "green", "window", "paper", "coffee", "table", "garden", "music", "yellow", "bridge", "summer"}
	r := rand.New(rand.NewPCG(seed, 1))
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

func TestLexicalOrdering(t *testing.T) {
	query := "how does the vector index compaction"
	close := filler(40, 1) + " the vector index compaction runs nightly " + filler(40, 2)
	far := "vector " + filler(60, 3) + " index " + filler(60, 4) + " compaction " + filler(10, 5)
	fewer := filler(40, 6) + " vector index " + filler(40, 7)
	none := filler(80, 8)
	scores, err := Lexical{}.Rerank(context.Background(), query, []string{fewer, far, none, close})
	if err != nil {
		t.Fatal(err)
	}
	fw, fr, no, cl := scores[0], scores[1], scores[2], scores[3]
	if !(cl > fr && fr > fw && fw > no) {
		t.Fatalf("scores close=%.3f far=%.3f fewer=%.3f none=%.3f, want close > far > fewer > none", cl, fr, fw, no)
	}
	if no != 0 {
		t.Fatalf("no query term = %v, want 0", no)
	}
}

func TestLexicalCases(t *testing.T) {
	tests := []struct {
		name     string
		query    string
		passages []string
		want     []float64 // nil: only check the ordering in order
		order    []int     // indexes from best to worst, strict
	}{
		{name: "empty query", query: "", passages: []string{"anything", ""}, want: []float64{0, 0}},
		{name: "punctuation query", query: "?!", passages: []string{"anything"}, want: []float64{0}},
		{name: "no passages", query: "x", passages: nil, want: []float64{}},
		{name: "empty passage", query: "vector", passages: []string{"vector", ""}, order: []int{0, 1}},
		{name: "stop words only query kept", query: "the who", passages: []string{"the band the who", "a band"}, order: []int{0, 1}},
		{name: "stop words dropped", query: "the vector", passages: []string{"a vector", "the thing"}, order: []int{0, 1}},
		{name: "stemming and case", query: "Indexing Queries", passages: []string{"the INDEXED query", "an index", "nothing"}, order: []int{0, 1, 2}},
		{name: "repeated query term counts once", query: "rank rank rank", passages: []string{"ranked", "other"}, order: []int{0, 1}},
		{name: "rare term weighs more", query: "alpha zeta", passages: []string{"alpha", "alpha", "alpha zeta x", "zeta y alpha"}, order: []int{2, 3, 0}},
		{name: "unicode", query: "Größe Café", passages: []string{"café größe", "GRÖSSE cafe", "café"}, order: []int{0, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Lexical{}.Rerank(context.Background(), tc.query, tc.passages)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.passages) {
				t.Fatalf("got %d scores for %d passages", len(got), len(tc.passages))
			}
			for i, s := range got {
				if s < 0 || s > 1 {
					t.Fatalf("score %d = %v, out of [0,1]", i, s)
				}
			}
			if tc.want != nil {
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Fatalf("scores = %v, want %v", got, tc.want)
				}
			}
			for k := 1; k < len(tc.order); k++ {
				a, b := tc.order[k-1], tc.order[k]
				if !(got[a] > got[b]) {
					t.Fatalf("score[%d] = %v not above score[%d] = %v (all %v)", a, got[a], b, got[b], got)
				}
			}
		})
	}
}

func TestLexicalProximityMonotone(t *testing.T) {
	// The farther apart the terms, the lower the score.
	var passages []string
	for _, gap := range []int{0, 1, 3, 10, 30, 100} {
		passages = append(passages, "alpha "+filler(gap, uint64(gap))+" beta")
	}
	got, err := Lexical{}.Rerank(context.Background(), "alpha beta", passages)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(got); i++ {
		if !(got[i] < got[i-1]) || got[i] <= 0 {
			t.Fatalf("scores %v: want strictly decreasing and positive", got)
		}
	}
}

func TestLexicalConcurrentDeterministic(t *testing.T) {
	passages := benchPassages(20, 2000)
	want, err := Lexical{}.Rerank(context.Background(), benchQuery, passages)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var l Lexical
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := l.Rerank(context.Background(), benchQuery, passages)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("concurrent run: %v, %v; want %v", got, err, want)
			}
		}()
	}
	wg.Wait()
}

func TestLexicalCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Lexical{}).Rerank(ctx, "x", []string{"x"}); err == nil {
		t.Fatalf("canceled context: err = nil, want error")
	}
}

const benchQuery = "how to rebuild the vector index after a crash during compaction"

// benchPassages returns n pseudo-English passages of about size bytes,
// fixed seed, some query words sprinkled in.
func benchPassages(n, size int) []string {
	vocab := strings.Fields("the of and a to in is that for it as was with be on by this are from or an which " +
		"system data index vector search query result engine document passage score rank model server rebuild " +
		"crash compaction snapshot segment merge process memory disk write read log change entry thread tag " +
		"configuration running indexed queries searching caches embedding network request response latency")
	r := rand.New(rand.NewPCG(42, 7))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for b.Len() < size {
			w := vocab[r.IntN(len(vocab))]
			if r.IntN(12) == 0 {
				w = strings.ToUpper(w[:1]) + w[1:] + "."
			}
			b.WriteString(w)
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}

func BenchmarkLexical(b *testing.B) { benchRerank(b, Lexical{}) }
