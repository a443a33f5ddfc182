package model2vec

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

type reference struct {
	Median int `json:"median_token_length"`
	Dim    int `json:"dim"`
	Cases  []struct {
		Text   string    `json:"text"`
		IDs    []int     `json:"ids"`
		Vector []float64 `json:"vector"`
	} `json:"cases"`
}

func readReference(t *testing.T, dir string) reference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReference: the fixtures of testdata/gen_fixtures.py (numpy, with
// the Python reference tokenizer) embed to their reference vectors within
// 1e-4, token ids included; one F16 normalized model, one vocabulary-
// quantized F32 model with mapping and weights, not normalized, and one
// sentence-transformers StaticEmbedding model with Normalize.
func TestReference(t *testing.T) {
	for _, name := range []string{"f16-norm", "quant-f32", "st-static"} {
		dir := filepath.Join("testdata", name)
		ref := readReference(t, dir)
		e, err := Load(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if e.Dim() != ref.Dim || e.Model() != name || (!e.st && e.maxChars != MaxTokens*ref.Median) || e.st != (name == "st-static") {
			t.Fatalf("%s: dim %d model %q max chars %d", name, e.Dim(), e.Model(), e.maxChars)
		}
		texts := make([]string, len(ref.Cases))
		for i, c := range ref.Cases {
			texts[i] = c.Text
		}
		vecs, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i, c := range ref.Cases {
			ids := e.tok.IDs(c.Text)
			if !e.st {
				ids = slices.DeleteFunc(e.tok.IDs(cutRunes(c.Text, e.maxChars)), func(id int) bool { return id == e.tok.UnkID() })
				ids = ids[:min(len(ids), MaxTokens)]
			}
			if !slices.Equal(ids, c.IDs) {
				t.Errorf("%s %q: ids %v, want %v", name, short(c.Text), ids, c.IDs)
			}
			for j, want := range c.Vector {
				worst = max(worst, math.Abs(float64(vecs[i][j])-want))
			}
		}
		if worst > 1e-4 {
			t.Errorf("%s: largest difference from the reference %.2g > 1e-4", name, worst)
		}
		t.Logf("%s: %d texts, largest difference %.2g", name, len(ref.Cases), worst)
	}
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func TestNormalizeOverrideAndZero(t *testing.T) {
	off := false
	e, err := Load(filepath.Join("testdata", "f16-norm"), Options{Name: "potion", Normalize: &off})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Embed(context.Background(), []string{"memory search", "", "%%% [UNK]"})
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, x := range v[0] {
		n += float64(x) * float64(x)
	}
	if e.Model() != "potion" || math.Abs(math.Sqrt(n)-1) < 1e-3 {
		t.Errorf("model %q, norm %g: want the unnormalized mean", e.Model(), math.Sqrt(n))
	}
	for _, x := range v[1] {
		if x != 0 {
			t.Fatalf("empty text: %v, want the zero vector", v[1])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestTokenizerTruncation: a truncation length in tokenizer.json cuts
// the tokens before [UNK] is removed, as the library's encode does: with
// 4 tokens, "ж ж ж the cat" ([UNK] [UNK] [UNK] the cat) keeps only "the".
func TestTokenizerTruncation(t *testing.T) {
	dir := copyFixture(t, "f16-norm")
	edit(t, filepath.Join(dir, "tokenizer.json"), func(s string) string {
		return strings.Replace(s, `"truncation": null`, `"truncation": {"max_length": 4, "strategy": "LongestFirst", "stride": 0, "direction": "Right"}`, 1)
	})
	cut, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Load(filepath.Join("testdata", "f16-norm"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, _ := cut.Embed(ctx, []string{"ж ж ж the cat"})
	want, _ := whole.Embed(ctx, []string{"the"})
	untruncated, _ := whole.Embed(ctx, []string{"ж ж ж the cat"})
	if !slices.Equal(got[0], want[0]) || slices.Equal(got[0], untruncated[0]) {
		t.Errorf("truncated %v\nwant %v (the vector of \"the\")", got[0], want[0])
	}
}

// copyFixture copies a fixture folder so a test can damage one file.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func edit(t *testing.T, path string, fn func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(fn(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFolderErrors: each broken folder is refused with the sentinel of
// its kind and a message naming the file.
func TestFolderErrors(t *testing.T) {
	cases := []struct {
		name   string
		damage func(dir string)
		kind   error
		file   string
	}{
		{"no config", func(d string) { os.Remove(filepath.Join(d, "config.json")) }, cerrors.ErrMalformed, "config.json"},
		{"bert config", func(d string) {
			edit(t, filepath.Join(d, "config.json"), func(string) string { return `{"model_type": "bert", "architectures": ["BertModel"]}` })
		}, cerrors.ErrUnsupported, "config.json"},
		{"bad json", func(d string) { edit(t, filepath.Join(d, "config.json"), func(string) string { return "{" }) }, cerrors.ErrMalformed, "config.json"},
		{"unigram", func(d string) {
			edit(t, filepath.Join(d, "tokenizer.json"), func(s string) string {
				return strings.Replace(s, `"type": "WordPiece",
  "unk_token"`, `"type": "Unigram",
  "unk_token"`, 1)
			})
		}, cerrors.ErrUnsupported, "tokenizer.json"},
		{"no tokenizer", func(d string) { os.Remove(filepath.Join(d, "tokenizer.json")) }, cerrors.ErrMalformed, "tokenizer.json"},
		{"no weights", func(d string) { os.Remove(filepath.Join(d, "model.safetensors")) }, cerrors.ErrMalformed, "model.safetensors"},
		{"truncated weights", func(d string) {
			p := filepath.Join(d, "model.safetensors")
			edit(t, p, func(s string) string { return s[:len(s)-10] })
		}, cerrors.ErrMalformed, "model.safetensors"},
		{"vocabulary larger than the table", func(d string) {
			edit(t, filepath.Join(d, "tokenizer.json"), func(s string) string {
				return strings.Replace(s, `"vocab": {`, `"vocab": {"extra": 100000, `, 1)
			})
		}, cerrors.ErrMalformed, "model.safetensors"},
	}
	for _, c := range cases {
		dir := copyFixture(t, "f16-norm")
		c.damage(dir)
		_, err := Load(dir, Options{})
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), filepath.Join(dir, c.file)) {
			t.Errorf("%s: %v, want %v naming %s", c.name, err, c.kind, c.file)
		}
	}
	if IsModel2Vec(t.TempDir()) || !IsModel2Vec(filepath.Join("testdata", "quant-f32")) || !IsModel2Vec(filepath.Join("testdata", "st-static")) {
		t.Error("IsModel2Vec")
	}
	// The sentence-transformers layout: only Normalize may follow the
	// StaticEmbedding module, whose folder must lie inside the model's.
	for _, c := range []struct {
		modules string
		kind    error
		want    string
	}{
		{`[{"path": "0_StaticEmbedding", "type": "sentence_transformers.models.StaticEmbedding"}, {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}]`,
			cerrors.ErrUnsupported, "module sentence_transformers.models.Dense after StaticEmbedding"},
		{`[{"path": "../elsewhere", "type": "sentence_transformers.models.StaticEmbedding"}]`, cerrors.ErrMalformed, "leaves the folder"},
		{`[{"path": "missing", "type": "sentence_transformers.models.StaticEmbedding"}]`, cerrors.ErrMalformed, filepath.Join("missing", "tokenizer.json")},
	} {
		dir := copyFixture(t, "st-static")
		edit(t, filepath.Join(dir, "modules.json"), func(string) string { return c.modules })
		_, err := Load(dir, Options{})
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("modules %s: %v, want %v with %q", c.modules, err, c.kind, c.want)
		}
	}
}

// BenchmarkEmbed: a batch of 64 sentences of about 12 words on the F16
// fixture (the cost is the tokenizer's: a row lookup per token).
func BenchmarkEmbed(b *testing.B) {
	e, err := Load(filepath.Join("testdata", "f16-norm"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = "The quick brown fox jumps over the lazy dog near the database server, again and again."
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "sentences/s")
}
