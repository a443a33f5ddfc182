package knowledge

import (
	"context"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/builtin"
)

// TestVecCodeOracle: the semantic leg over the chunks' int16 codes against
// an exact float64 scan of their float32 vectors, for the built-in
// embedder's vectors of the two evaluation sets (internal/lab/keval's
// documentation pages, paragraph by paragraph, and testdata/gocode's
// sources, block by block) and their questions. The top 10 must hold
// the same chunks and every score be within 1e-4: int16 codes move a
// cosine by about 1e-5 (measured: at most 9.9e-6 and 7.1e-6 on the two
// sets, every top 10 the same); int8 codes moved it by up to 2.9e-3,
// which was enough to change a Hybrid ranking (veccode.go).
func TestVecCodeOracle(t *testing.T) {
	for _, set := range []struct{ name, dir, ext, sep, questions string }{
		{"documentation", "../lab/keval/testdata/corpus", ".md", "\n\n", "../lab/keval/testdata/questions.json"},
		{"code", "../../testdata/gocode/src", ".go", "\n\n", "../../testdata/gocode/questions.json"},
	} {
		t.Run(set.name, func(t *testing.T) {
			var texts []string
			err := filepath.WalkDir(set.dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || filepath.Ext(p) != set.ext {
					return err
				}
				b, err := os.ReadFile(p)
				for s := range strings.SplitSeq(string(b), set.sep) {
					if len(strings.TrimSpace(s)) >= 40 {
						texts = append(texts, s)
					}
				}
				return err
			})
			if err != nil || len(texts) == 0 {
				t.Fatalf("%s: %v, %d texts", set.dir, err, len(texts))
			}
			b, err := os.ReadFile(set.questions)
			if err != nil {
				t.Fatal(err)
			}
			var qs []struct{ Q string }
			if err := json.Unmarshal(b, &qs); err != nil {
				t.Fatal(err)
			}
			var queries []string
			for _, q := range qs {
				queries = append(queries, q.Q)
			}
			oracle(t, texts, queries)
		})
	}
}

// oracle compares the semantic leg over the codes of texts' vectors with
// the exact scan for each query.
func oracle(t *testing.T, texts, queries []string) {
	emb := &builtin.Embedder{}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	qvs, err := emb.Embed(context.Background(), queries)
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]Chunk, len(texts))
	for i, s := range texts {
		chunks[i] = Chunk{Text: s, Start: -1, End: -1}
	}
	x := newChunkIndex()
	out, _ := x.indexChunks("", chunks, vecs)
	cands := make([]candidate, len(out))
	for i := range out {
		cands[i] = candidate{doc: "d", path: "/p" + strconv.Itoa(i), index: i, c: &out[i]}
	}
	const k = 10
	var recall, worst, top1 float64
	minRecall := 1.0
	for qi, qv := range qvs {
		exact := make([]scored, len(vecs))
		for i, v := range vecs {
			exact[i] = scored{i: int32(i), score: cosine64(qv, v)}
		}
		want := top(cands, exact, k)
		got := semanticLeg(cands, qv, k)
		if len(got) != k {
			t.Fatalf("query %d: %d hits", qi, len(got))
		}
		in := map[int32]bool{}
		for _, h := range want {
			in[h.i] = true
		}
		hit := 0.0
		for _, h := range got {
			if in[h.i] {
				hit++
			}
			worst = max(worst, math.Abs(h.score-exact[h.i].score))
		}
		if got[0].i == want[0].i {
			top1++
		}
		recall += hit / k
		minRecall = min(minRecall, hit/k)
	}
	n := float64(len(qvs))
	t.Logf("%d chunks, %d queries, %d dims: recall@%d %.3f (lowest %.1f), same first hit %.3f, largest score error %.2g",
		len(texts), len(qvs), len(vecs[0]), k, recall/n, minRecall, top1/n, worst)
	if recall/n < 0.99 || minRecall < 0.9 {
		t.Errorf("recall@%d of the codes %.3f (lowest %.1f), want at least 0.99 (0.9)", k, recall/n, minRecall)
	}
	if worst > 1e-4 {
		t.Errorf("a code's cosine is %.3g from the exact one, want at most 1e-4", worst)
	}
}

// cosine64 is the exact cosine of a and b, through rank.go's norm.
func cosine64(a, b []float32) float64 {
	var dot float64
	for i, x := range a {
		dot += float64(x) * float64(b[i])
	}
	return dot / (norm(a) * norm(b))
}

// TestEncodeVec: the largest component codes to ±32767 and the others in
// proportion; a vector without direction (all 0, or not finite) codes
// all 0 and scores nothing; the codes of a document share one
// allocation, and a document missing one vector has none.
func TestEncodeVec(t *testing.T) {
	got := encodeVec(nil, []float32{0.5, -1, 0.25, 1e-5, -2e-5})
	if want := []int16{16384, -32767, 8192, 0, -1}; !slices.Equal(got, want) {
		t.Fatalf("codes %v, want %v", got, want)
	}
	q := []float32{1, 0, 0, 0, 0}
	for _, v := range [][]float32{{0, 0, 0, 0, 0}, {1, float32(math.Inf(1)), 0, 0, 0}, {float32(math.NaN()), 1, 0, 0, 0}} {
		c := encodeVec(nil, v)
		if slices.ContainsFunc(c, func(x int16) bool { return x != 0 }) {
			t.Errorf("%v coded %v, want all 0", v, c)
		}
		if _, ok := cosineCode(q, 1, c); ok {
			t.Errorf("%v scored", v)
		}
	}
	if s, ok := cosineCode(q, 1, got[:4]); ok {
		t.Errorf("codes of another dimension scored %v", s)
	}
	vecs := [][]float32{{1, 2}, {3, -4}}
	codes := encodeVecs(vecs)
	if len(codes) != 2 || !slices.Equal(codes[0], []int16{16384, 32767}) || cap(codes[0]) != 2 {
		t.Fatalf("codes %v", codes)
	}
	if n := testing.AllocsPerRun(10, func() { encodeVecs(vecs) }); n != 2 { // the codes and their headers
		t.Errorf("%v allocations to code a document, want 2", n)
	}
	if s, ok := cosineCode([]float32{3, -4}, 5, codes[1]); !ok || math.Abs(s-1) > 1e-3 {
		t.Errorf("cosine of a vector with its own codes %v, want 1", s)
	}
	if encodeVecs([][]float32{{1, 2}, nil}) != nil {
		t.Error("a document missing a vector was coded")
	}
}
