package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"
)

// multilingual is text in several scripts with diacritics, marks, digits
// and punctuation, so every language's normalizer and stemmer has words
// to change.
const multilingual = "Les cafés de Paris sont célèbres; die Häuser der Straße. " +
	"Los niños corrían rápidamente, ação e coração. Быстрые собаки бегали. " +
	"Κάποιες λέξεις εδώ. الكتاب والمكتبات. हिंदी भाषाएँ और किताबें। " +
	"Ağaçların gölgesinde. fmt.Println(config.yaml) getUserName snake_case 5432 " +
	"running runners ran runs; résumé RESUME Résumés. İstanbul'da ŞEHİR. \uE000x a\u0301b"

// randomTexts are n texts of up to words words of multilingual and of
// benchText, joined by spaces and punctuation (seed fixes them).
func randomTexts(seed uint64, n, words int) []string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	vocab := strings.Fields(multilingual + " " + benchText(2000))
	texts := make([]string, 0, n)
	for range n {
		var b strings.Builder
		for range rng.IntN(words) {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteString([]string{" ", ", ", "\n", "-", "_", "."}[rng.IntN(6)])
		}
		texts = append(texts, b.String())
	}
	return texts
}

// analyseBleve is what Bleve's own text field makes of text.
func analyseBleve(t *testing.T, ix *Index, text string) (int, bindex.TokenFrequencies) {
	t.Helper()
	d, err := ix.document(&Doc{ID: "x", Text: "", Owner: "o"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Fields {
		if f.Name() == fieldText {
			bf := document.NewTextFieldCustom(f.Name(), f.ArrayPositions(), []byte(text), f.Options(), ix.bi.Mapping().AnalyzerNamed(analyzerName))
			bf.Analyze()
			return bf.AnalyzedLength(), bf.AnalyzedTokenFrequencies()
		}
	}
	t.Fatal("no text field")
	return 0, nil
}

// Oracle: the memoised text field produces Bleve's term frequencies, term
// for term and location for location, in every FTS_LANGUAGE.
func TestTextFieldMatchesBleve(t *testing.T) {
	texts := append([]string{"", "   ...  ", "\u0301\u0301", multilingual, largestText(5000)}, randomTexts(11, 20, 300)...)
	for _, lang := range Languages() {
		ix, err := Open(Options{Language: lang})
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			d, err := ix.document(&Doc{ID: "x", Text: text, Owner: "o"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got document.Field
			for _, f := range d.Fields {
				if f.Name() == fieldText {
					got = f
				}
			}
			if _, ok := got.(*textField); !ok {
				t.Fatalf("%s: text field is %T, want the memoised one", lang, got)
			}
			got.Analyze()
			wantLen, want := analyseBleve(t, ix, text)
			if got.AnalyzedLength() != wantLen {
				t.Errorf("%s text %d: length %d, Bleve %d", lang, i, got.AnalyzedLength(), wantLen)
			}
			if !sameFreqs(got.AnalyzedTokenFrequencies(), want) {
				t.Errorf("%s text %d: term frequencies differ from Bleve's\n got %s\nwant %s", lang, i, dumpFreqs(got.AnalyzedTokenFrequencies()), dumpFreqs(want))
			}
		}
		_ = ix.Close()
	}
}

func sameFreqs(a, b bindex.TokenFrequencies) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || string(x.Term) != string(y.Term) || x.Frequency() != y.Frequency() || len(x.Locations) != len(y.Locations) {
			return false
		}
		for i := range x.Locations {
			p, q := *x.Locations[i], *y.Locations[i]
			if p.Start != q.Start || p.End != q.End || p.Position != q.Position || p.Field != q.Field || len(p.ArrayPositions) != len(q.ArrayPositions) {
				return false
			}
		}
	}
	return true
}

func dumpFreqs(f bindex.TokenFrequencies) string {
	var b strings.Builder
	for k, v := range f {
		fmt.Fprintf(&b, "%q:%d ", k, v.Frequency())
	}
	return b.String()
}

// The memoised path keeps the text field out of the composite field and
// indexes no stored text, as the mapping says.
func TestTextFieldKeepsMappingOptions(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	d, err := ix.document(&Doc{ID: "x", Text: "some words", Owner: "o"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Fields {
		if f.Name() == fieldText {
			o := f.Options()
			if !o.IsIndexed() || o.IsStored() || !o.IncludeTermVectors() {
				t.Fatalf("text options %v", o)
			}
		}
	}
	for _, cf := range d.CompositeFields {
		cf.Compose(fieldText, 1, bindex.TokenFrequencies{"w": &bindex.TokenFreq{Term: []byte("w")}})
		if len(cf.AnalyzedTokenFrequencies()) != 0 {
			t.Fatalf("composite %s includes the text field", cf.Name())
		}
	}
}

// Indexing allocates in proportion to the text with a small
// constant. 1 Mi bytes of the RSS test's English (200,000 words, stop
// words included) allocated 94.7 bytes per input byte through Bleve's
// token stream and 37.4 with textField (2026-12-03); the bound catches a
// return of the token stream.
func TestApplyMemoryPerInputByte(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	text := largestText(1 << 20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := ix.Apply(context.Background(), []Doc{{ID: "big", Text: text, Owner: "o", CreatedAt: t0}}, nil, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
	t.Logf("%.1f bytes allocated per input byte", per)
	if per > 50 {
		t.Errorf("indexing allocated %.1f bytes per input byte, want at most 50", per)
	}
	r, err := ix.Search(context.Background(), Query{Mode: "phrase", Text: "weird sword", Access: Access{Principal: "o"}, Size: 10})
	if err != nil || len(r.Hits) != 1 {
		t.Fatalf("phrase search over the indexed text: %v %+v", err, r)
	}
}

// A batch carrying a large text is followed by a collection; a small one
// is not.
func TestApplyCollectsAfterLargeText(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	gcs := func() uint32 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.NumForcedGC
	}
	before := gcs()
	if err := ix.Apply(context.Background(), []Doc{{ID: "small", Text: largestText(64 << 10), Owner: "o", CreatedAt: t0}}, nil, 1); err != nil {
		t.Fatal(err)
	}
	if n := gcs() - before; n != 0 {
		t.Fatalf("%d forced collections after 64 KiB of text, want 0", n)
	}
	before = gcs()
	if err := ix.Apply(context.Background(), []Doc{{ID: "big", Text: largestText(2 << 20), Owner: "o", CreatedAt: t0}}, nil, 2); err != nil {
		t.Fatal(err)
	}
	if n := gcs() - before; n != 1 {
		t.Fatalf("%d forced collections after 2 MiB of text, want 1", n)
	}
	// Next to a live heap larger than the batch's transient one (a
	// rebuild's index), the same batch causes none.
	held := make([]byte, 96<<20)
	for i := range held {
		held[i] = byte(i)
	}
	runtime.GC()
	before = gcs()
	if err := ix.Apply(context.Background(), []Doc{{ID: "big2", Text: largestText(2 << 20), Owner: "o", CreatedAt: t0}}, nil, 3); err != nil {
		t.Fatal(err)
	}
	if n := gcs() - before; n != 0 {
		t.Fatalf("%d forced collections after 2 MiB of text beside 96 MiB live, want 0", n)
	}
	runtime.KeepAlive(held)
}

// Bleve reads the text field's term frequencies exactly freqReaders times
// while indexing it, so the field forgets them after the last read and not
// before: the words are searchable, and the analysis is no longer held.
func TestTextFieldReadsThenForgets(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	doc := Doc{ID: "x", Text: "the weird sword of the world", Owner: "o", CreatedAt: t0}
	d, err := ix.document(&doc, 6)
	if err != nil {
		t.Fatal(err)
	}
	var tf *textField
	for _, f := range d.Fields {
		if f, ok := f.(*textField); ok {
			tf = f
		}
	}
	b := ix.bi.NewBatch()
	if err := b.IndexAdvanced(d); err != nil {
		t.Fatal(err)
	}
	if err := ix.bi.Batch(b); err != nil {
		t.Fatal(err)
	}
	if tf.reads != freqReaders || tf.freqs != nil {
		t.Fatalf("Bleve read the term frequencies %d times (want %d); still held: %v", tf.reads, freqReaders, tf.freqs != nil)
	}
	ix.applyCatalog([]Doc{doc}, []int{6}, nil)
	for _, q := range []Query{{Mode: "phrase", Text: "weird sword"}, {Mode: "match", Text: "world"}, {Mode: "prefix", Text: "swo"}} {
		q.Access, q.Size = Access{Principal: "o"}, 10
		r, err := ix.Search(context.Background(), q)
		if err != nil || len(r.Hits) != 1 {
			t.Fatalf("%s %q after indexing: %v %+v", q.Mode, q.Text, err, r)
		}
	}
}

// FuzzTextField: on any text, in English and German (a normalizer before
// the stemmer), the memoised field produces Bleve's term frequencies.
func FuzzTextField(f *testing.F) {
	for _, s := range []string{"", multilingual, largestText(300), "a\u0301\u0301 ß ǖ \xff\xfe", "Straße STRASSE strasse"} {
		f.Add(s)
	}
	var ixs []*Index
	for _, lang := range []string{"english", "german"} {
		ix, err := Open(Options{Language: lang})
		if err != nil {
			f.Fatal(err)
		}
		defer ix.Close()
		ixs = append(ixs, ix)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, ix := range ixs {
			d, err := ix.document(&Doc{ID: "x", Text: text, Owner: "o"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, fl := range d.Fields {
				if fl.Name() != fieldText {
					continue
				}
				fl.Analyze()
				wantLen, want := analyseBleve(t, ix, text)
				if fl.AnalyzedLength() != wantLen || !sameFreqs(fl.AnalyzedTokenFrequencies(), want) {
					t.Fatalf("%s %q: differs from Bleve", ix.Language(), text)
				}
			}
		}
	})
}
