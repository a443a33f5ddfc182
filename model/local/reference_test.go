package local

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The fixtures under testdata are tiny BERT models with random weights
// written by testdata/gen_fixtures.py (Debian's python3-torch), with the
// outputs of a BERT forward pass written there in torch over a padded,
// masked batch in float64. The Go encoder must agree within 1e-4.

const refTol = 1e-4

// worstDiff is the largest difference closeVec has seen, logged by the
// reference tests to show the margin under refTol.
var worstDiff float64

type sentenceRef struct {
	MaxSeqLength      int         `json:"max_seq_length"`
	Pooling           string      `json:"pooling"`
	Normalize         bool        `json:"normalize"`
	Texts             []string    `json:"texts"`
	IDs               [][]int     `json:"ids"`
	Embeddings        [][]float64 `json:"embeddings"`
	Queries           []string    `json:"queries"`
	QueryIDs          [][]int     `json:"query_ids"`
	QueryEmbeddings   [][]float64 `json:"query_embeddings"`
	Passages          []string    `json:"passages"`
	PassageIDs        [][]int     `json:"passage_ids"`
	PassageEmbeddings [][]float64 `json:"passage_embeddings"`
}

func readRef(t *testing.T, dir string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func closeVec(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d dimensions, want %d", what, len(got), len(want))
	}
	for i := range got {
		d := math.Abs(float64(got[i]) - want[i])
		if !(d <= refTol) {
			t.Fatalf("%s[%d] = %.7f, want %.7f (diff %.2g)", what, i, got[i], want[i], d)
		}
		worstDiff = max(worstDiff, d)
	}
}

// TestSentenceReference embeds the reference texts with each sentence
// model (mean pooling with normalisation and vocab.txt, truncated to 24
// tokens, with e5-style prompts; CLS pooling without normalisation and
// tokenizer.json) and compares token ids and vectors.
func TestSentenceReference(t *testing.T) {
	for _, name := range []string{"mean-norm", "cls"} {
		t.Run(name, func(t *testing.T) {
			var ref sentenceRef
			readRef(t, name, &ref)
			// Without prompts first: the reference texts are embedded bare.
			empty := ""
			em, err := Load(filepath.Join("testdata", name), Options{PassagePrefix: &empty})
			if err != nil {
				t.Fatal(err)
			}
			if em.pooling != ref.Pooling || em.normalize != ref.Normalize || em.Dim() != map[string]int{"mean-norm": 32, "cls": 48}[name] || em.Model() != name {
				t.Fatalf("pooling %s normalize %v dim %d model %s", em.pooling, em.normalize, em.Dim(), em.Model())
			}
			check := func(kind string, texts []string, prefix string, ids [][]int, want [][]float64, got [][]float32) {
				for i, text := range texts {
					if enc := em.tok.Encode(prefix + text); !slices.Equal(enc.IDs, ids[i]) {
						t.Fatalf("%s %q: ids %v, want %v", kind, text, enc.IDs, ids[i])
					}
					closeVec(t, kind+" "+text, got[i], want[i])
				}
			}
			ctx := context.Background()
			got, err := em.Embed(ctx, ref.Texts)
			if err != nil {
				t.Fatal(err)
			}
			check("text", ref.Texts, em.passagePrefix, ref.IDs, ref.Embeddings, got)
			if ref.Passages != nil {
				// With the folder's prompts, Embed is for stored texts:
				// it prepends the passage prompt.
				pe, err := Load(filepath.Join("testdata", name), Options{})
				if err != nil {
					t.Fatal(err)
				}
				ps, err := pe.Embed(ctx, ref.Passages)
				if err != nil {
					t.Fatal(err)
				}
				check("passage", ref.Passages, "passage: ", ref.PassageIDs, ref.PassageEmbeddings, ps)
				var qs [][]float32
				for _, q := range ref.Queries {
					v, err := pe.EmbedQuery(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					qs = append(qs, v)
				}
				check("query", ref.Queries, "query: ", ref.QueryIDs, ref.QueryEmbeddings, qs)
			}
			// One text at a time gives the same vectors as the batch.
			for i, text := range ref.Texts {
				one, err := em.Embed(ctx, []string{text})
				if err != nil {
					t.Fatal(err)
				}
				closeVec(t, "alone "+text, one[0], toF64(got[i]))
			}
		})
	}
	t.Logf("largest difference from the reference: %.2g (tolerance %g)", worstDiff, refTol)
}

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestCrossEncoderReference scores the reference pairs (two truncated to
// 32 tokens, one of them cut from both sides) and compares token ids,
// token types, logits and scores.
func TestCrossEncoderReference(t *testing.T) {
	var ref struct {
		Pairs  [][2]string `json:"pairs"`
		IDs    [][]int     `json:"ids"`
		Types  [][]int     `json:"types"`
		Logits []float64   `json:"logits"`
		Scores []float64   `json:"scores"`
	}
	readRef(t, "cross", &ref)
	ce, err := LoadCrossEncoder(filepath.Join("testdata", "cross"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, p := range ref.Pairs {
		enc := ce.tok.EncodePair(p[0], p[1])
		if !slices.Equal(enc.IDs, ref.IDs[i]) || !slices.Equal(enc.TypeIDs, ref.Types[i]) {
			t.Fatalf("pair %d: ids %v types %v, want %v %v", i, enc.IDs, enc.TypeIDs, ref.IDs[i], ref.Types[i])
		}
		scores, err := ce.Rerank(ctx, p[0], []string{p[1]})
		if err != nil {
			t.Fatal(err)
		}
		d := math.Abs(scores[0] - ref.Scores[i])
		if !(d <= refTol) {
			t.Fatalf("pair %d: score %.7f, want %.7f", i, scores[0], ref.Scores[i])
		}
		t.Logf("pair %d: score %.7f, reference %.7f", i, scores[0], ref.Scores[i])
	}
	// All passages of the first query in one call: the batch path.
	var ps []string
	var want []float64
	for i, p := range ref.Pairs {
		if p[0] == ref.Pairs[0][0] {
			ps = append(ps, p[1])
			want = append(want, ref.Logits[i])
		}
	}
	got, err := ce.Logits(ctx, ref.Pairs[0][0], ps)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d logits for 2 passages", len(got))
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); !(d <= refTol) {
			t.Fatalf("batch logit %d: %.7f, want %.7f", i, got[i], want[i])
		}
	}
}
