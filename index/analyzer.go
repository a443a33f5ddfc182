package index

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/blevesearch/bleve/v2/analysis"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom" // the "custom" analyzer type
	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/ca"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/el"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/eu"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/ga"
	"github.com/blevesearch/bleve/v2/analysis/lang/hi"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/hy"
	"github.com/blevesearch/bleve/v2/analysis/lang/id"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/contextd/contextd/index/token"
)

// DefaultLanguage is the FTS_LANGUAGE default.
const DefaultLanguage = "english"

// AnalyzerVersion names the analysis the index terms come from. A snapshot
// written under another version (or none: before version 2, Bleve's UAX #29
// word tokenizer kept fmt.Println, config.yaml and URLs whole, removed stop
// words from the index and folded diacritics after stemming, so résumé
// never met resume) is rebuilt from SQL at start-up.
const AnalyzerVersion = "unicode61/2"

// tokenizerName is the tokenizer of every analyzer: package token, the
// split and folding of SQLite FTS5's unicode61 with remove_diacritics 2
// (the native backend's), so both backends see the same words.
const tokenizerName = "contextd_unicode61"

// languageFilters lists, per FTS_LANGUAGE, the token filters after the
// tokenizer (which already lower-cases and folds): Bleve's stemmers
// (snowball where Bleve has the language) and normalizers. Stop words are
// indexed, as FTS5 indexes them: phrases and prefixes find them, and
// match and boolean queries treat a stop word on its own as neutral
// (stopFilters, Index.Neutral). Folding runs before stemming, as in FTS5,
// so the stemmer sees résumé and resume as the same word.
var languageFilters = map[string][]string{
	"simple":     nil,
	"arabic":     {ar.NormalizeName, ar.StemmerName},
	"armenian":   nil,
	"basque":     nil,
	"catalan":    nil,
	"danish":     {da.SnowballStemmerName},
	"dutch":      {nl.SnowballStemmerName},
	"english":    {en.SnowballStemmerName},
	"finnish":    {fi.SnowballStemmerName},
	"french":     {fr.SnowballStemmerName},
	"german":     {de.NormalizeName, de.SnowballStemmerName},
	"greek":      nil,
	"hindi":      {hi.NormalizeName, hi.StemmerName},
	"hungarian":  {hu.SnowballStemmerName},
	"indonesian": nil,
	"irish":      nil,
	"italian":    {it.SnowballStemmerName},
	"lithuanian": nil,
	"nepali":     nil,
	"norwegian":  {no.SnowballStemmerName},
	"portuguese": {pt.LightStemmerName},
	"romanian":   {ro.SnowballStemmerName},
	"russian":    {ru.SnowballStemmerName},
	"serbian":    nil,
	"spanish":    {es.SnowballStemmerName},
	"swedish":    {sv.SnowballStemmerName},
	"tamil":      nil,
	"turkish":    {tr.SnowballStemmerName},
	"yiddish":    nil,
}

// stopLists names Bleve's stop-word list of each language that has one.
var stopLists = map[string]string{
	"arabic": ar.StopName, "armenian": hy.StopName, "basque": eu.StopName, "catalan": ca.StopName,
	"danish": da.StopName, "dutch": nl.StopName, "english": en.StopName, "finnish": fi.StopName,
	"french": fr.StopName, "german": de.StopName, "greek": el.StopName, "hindi": hi.StopName,
	"hungarian": hu.StopName, "indonesian": id.StopName, "irish": ga.StopName, "italian": it.StopName,
	"norwegian": no.StopName, "portuguese": pt.StopName, "romanian": ro.StopName, "russian": ru.StopName,
	"spanish": es.StopName, "swedish": sv.StopName, "turkish": tr.StopName,
}

// Languages returns the 29 FTS_LANGUAGE values, sorted.
func Languages() []string {
	out := make([]string, 0, len(languageFilters))
	for l := range languageFilters {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// ValidLanguage reports whether name is an FTS_LANGUAGE value.
func ValidLanguage(name string) bool {
	_, ok := languageFilters[name]
	return ok
}

// analyzerName is the name of the text analyzer in every index mapping.
const analyzerName = "contextd_text"

// addAnalyzer registers the analyzer of language on m.
func addAnalyzer(m *mapping.IndexMappingImpl, language string) error {
	filters, ok := languageFilters[language]
	if !ok {
		return fmt.Errorf("unknown full-text language %q", language)
	}
	if filters == nil {
		filters = []string{}
	}
	return m.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          "custom",
		"tokenizer":     tokenizerName,
		"token_filters": filters,
	})
}

// StopWords returns the stop words of language, folded as the tokenizer
// folds them (a list word that is not one token is left out); nil for a
// language without a list.
func StopWords(language string) (map[string]bool, error) {
	name, ok := stopLists[language]
	if !ok {
		return nil, nil
	}
	tm, err := registry.NewCache().TokenMapNamed(name)
	if err != nil {
		return nil, fmt.Errorf("stop words of %s: %w", language, err)
	}
	out := make(map[string]bool, len(tm))
	for w := range tm {
		var terms []string
		token.Scan(w, nil, func(_, _ int, term []byte) { terms = append(terms, string(term)) })
		if len(terms) == 1 {
			out[terms[0]] = true
		}
	}
	return out, nil
}

// unicode61 is the Bleve tokenizer over package token.
type unicode61 struct{}

// Tokenize allocates tokens and folded terms in blocks, as Bleve's own
// tokenizers do, and a term that is its input bytes already (lower-case
// ASCII, most words) is a slice of the input: one allocation per token
// made the english analyzer allocate 2.6 times as often as the UAX #29
// one it replaced (271 against 105 allocations per 256 bytes of notes).
func (unicode61) Tokenize(input []byte) analysis.TokenStream {
	guess := len(input)/6 + 1
	out := make(analysis.TokenStream, 0, guess)
	toks := make([]analysis.Token, 0, guess)
	var terms []byte
	token.Scan(string(input), nil, func(start, end int, term []byte) {
		t := analysis.Token{Start: start, End: end, Position: len(out) + 1, Type: analysis.AlphaNumeric}
		if src := input[start:end]; bytes.Equal(src, term) {
			t.Term = src[:len(src):len(src)]
		} else {
			if cap(terms)-len(terms) < len(term) {
				terms = make([]byte, 0, max(256, 2*len(term)))
			}
			n := len(terms)
			terms = append(terms, term...)
			t.Term = terms[n:len(terms):len(terms)]
		}
		if len(toks) == cap(toks) {
			toks = make([]analysis.Token, 0, max(64, len(out)/2))
		}
		toks = append(toks, t)
		out = append(out, &toks[len(toks)-1])
	})
	return out
}

func init() {
	// Registration is Bleve's only way to name a tokenizer for a mapping;
	// it is stateless, so one registration serves every index.
	registry.RegisterTokenizer(tokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return unicode61{}, nil
	})
}
