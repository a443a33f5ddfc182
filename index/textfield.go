package index

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/size"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/contextd/contextd/index/token"
)

// textField is the text field of an index document, analysed straight
// into Bleve's term frequencies. Bleve's own path (document.TextField)
// first builds a token stream (one analysis.Token per word), runs the
// filters on every token (the snowball stemmers allocate three times per
// token), then counts it into a map sized for one term per token. For the
// largest legal text (10 Mi bytes of English, 2.1 million tokens) that
// path allocated 1,076 MB and held a peak heap of 802 MB while indexing
// (BenchmarkApplyLargestText, 2026-12-03).
//
// Here the filters run once per distinct folded word (their output
// depends on the word alone: every FTS_LANGUAGE chain is normalizers and
// a stemmer, one term in, one term out), the text is scanned twice (count,
// then fill) so every location and location list is allocated once at its
// exact size, and no token stream exists. The result is what Bleve's path
// produces, term for term and location for location
// (TestTextFieldMatchesBleve, every language).
type textField struct {
	name  string
	text  string
	pos   []uint64
	opts  bindex.FieldIndexingOptions
	words *wordTerms // the index's memo of its filters
	// analyzer is the whole analysis, run Bleve's way instead when a
	// filter does not map one word to one term.
	analyzer analysis.Analyzer

	length int
	freqs  bindex.TokenFrequencies
	reads  int // calls of AnalyzedTokenFrequencies
}

// freqReaders is how many times Bleve reads a text field's term
// frequencies while indexing it (Bleve 2.6, zapx 17): the analysis offers
// them to the composite field, the segment builder's sizing pass counts
// them, and its copy pass takes them (keeping its own reference until its
// copy is made, after which it drops it). After the last read the field
// forgets them, so the 72 bytes a word of the analysis (151 MB for the
// largest legal text) are garbage while the segment's postings are
// encoded instead of live until the batch returns: the live heap of
// indexing that text fell from 356 to 285 MB (BenchmarkApplyLargestText
// under GOGC=5). A Bleve that reads them more often finds nothing on the
// last read and indexes no words, which every search test notices
// (TestTextFieldReadsThenForgets names the count).
const freqReaders = 3

// newTextField returns the text field of text named as mapped (the field
// mapped holds no text: it only carries the mapping's options), analysed
// by a with the memoised path when a is a tokenizer-plus-filters analyzer
// over package token (words, its filters' memo, is then not nil).
func newTextField(mapped document.Field, text string, a analysis.Analyzer, words *wordTerms) document.Field {
	if words == nil {
		return document.NewTextFieldCustom(mapped.Name(), mapped.ArrayPositions(), []byte(text), mapped.Options(), a)
	}
	return &textField{name: mapped.Name(), text: text, pos: mapped.ArrayPositions(), opts: mapped.Options(), words: words, analyzer: a}
}

func isUnicode61(t analysis.Tokenizer) bool {
	_, ok := t.(unicode61)
	return ok
}

func (f *textField) Name() string                         { return f.name }
func (f *textField) ArrayPositions() []uint64             { return f.pos }
func (f *textField) Options() bindex.FieldIndexingOptions { return f.opts }
func (f *textField) EncodedFieldType() byte               { return 't' }
func (f *textField) NumPlainTextBytes() uint64            { return uint64(len(f.text)) }
func (f *textField) AnalyzedLength() int                  { return f.length }
func (f *textField) AnalyzedTokenFrequencies() bindex.TokenFrequencies {
	freqs := f.freqs
	if f.reads++; f.reads >= freqReaders {
		f.freqs = nil
	}
	return freqs
}

// Value copies the text: it is only read for a stored field, and the text
// field is not stored.
func (f *textField) Value() []byte { return []byte(f.text) }

func (f *textField) Size() int {
	n := size.SizeOfString*2 + len(f.name) + len(f.text) + size.SizeOfSlice + len(f.pos)*size.SizeOfUint64
	for _, tf := range f.freqs {
		n += tf.Size()
	}
	return n
}

// Analyze fills the field's term frequencies and length.
func (f *textField) Analyze() {
	// words maps a folded word to its term's frequencies; the filters run
	// on each distinct word once.
	words := map[string]*bindex.TokenFreq{}
	freqs := bindex.TokenFrequencies{}
	ok := true
	total := 0
	var buf []byte
	buf = token.Scan(f.text, buf, func(start, end int, word []byte) {
		tf, seen := words[string(word)]
		if !seen {
			term, one := f.words.term(start, end, word)
			if !one {
				ok = false
			}
			if tf = freqs[string(term)]; tf == nil {
				tf = &bindex.TokenFreq{Term: term}
				freqs[string(term)] = tf
			}
			words[string(word)] = tf
		}
		tf.SetFrequency(tf.Frequency() + 1)
		total++
	})
	if !ok {
		bf := document.NewTextFieldCustom(f.name, f.pos, []byte(f.text), f.opts, f.analyzer)
		bf.Analyze()
		f.length, f.freqs = bf.AnalyzedLength(), bf.AnalyzedTokenFrequencies()
		return
	}
	f.length, f.freqs = total, freqs
	if !f.opts.IncludeTermVectors() {
		return
	}
	// Every list gets its exact share of one slab of pointers into one
	// slab of locations: two allocations for all the text's locations.
	locs := make([]bindex.TokenLocation, total)
	ptrs := make([]*bindex.TokenLocation, total)
	off := 0
	for _, tf := range freqs {
		n := tf.Frequency()
		tf.Locations = ptrs[off : off : off+n]
		off += n
	}
	i := 0
	token.Scan(f.text, buf, func(start, end int, word []byte) {
		tf := words[string(word)]
		locs[i] = bindex.TokenLocation{ArrayPositions: f.pos, Start: start, End: end, Position: i + 1}
		tf.Locations = append(tf.Locations, &locs[i])
		i++
	})
}

// document maps d as Bleve's Batch.Index would, with the text field
// analysed by textField. The mapping sees an empty text, so the field's
// options and its exclusion from the composite field come from the
// mapping itself.
func (ix *Index) document(d *Doc, length int) (*document.Document, error) {
	fields := docFields(d, length)
	fields[fieldText] = ""
	m := ix.bi.Mapping()
	out := document.NewDocument(d.ID)
	if err := m.MapDocument(out, fields); err != nil {
		return nil, err
	}
	for i, f := range out.Fields {
		if f.Name() == fieldText {
			out.Fields[i] = newTextField(f, d.Text, m.AnalyzerNamed(analyzerName), ix.words)
			return out, nil
		}
	}
	return nil, fmt.Errorf("no %s field in the mapping", fieldText)
}
