package index

import (
	"fmt"
	"sort"
	"unicode"

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
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unitok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/unicode/norm"
)

// DefaultLanguage is the FTS_LANGUAGE default.
const DefaultLanguage = "english"

// foldName is the Unicode folding token filter: diacritics are removed
// from Latin, Greek and Cyrillic letters (café = cafe), and text is NFC.
// It runs after stemming, so stemmers still see the accents they expect,
// and it rewrites only token terms, so highlight offsets stay exact.
const foldName = "contextd_fold"

// languageFilters lists, per FTS_LANGUAGE, the token filters after the
// Unicode tokenizer: Bleve's own stop words and stemmers (snowball where
// Bleve has the language), then folding. Languages Bleve has no stemmer
// for are lowercased and folded only.
var languageFilters = map[string][]string{
	"simple":     {lowercase.Name, foldName},
	"arabic":     {lowercase.Name, ar.StopName, ar.NormalizeName, ar.StemmerName},
	"armenian":   {lowercase.Name, hy.StopName},
	"basque":     {lowercase.Name, eu.StopName, foldName},
	"catalan":    {ca.ElisionName, lowercase.Name, ca.StopName, foldName},
	"danish":     {lowercase.Name, da.StopName, da.SnowballStemmerName, foldName},
	"dutch":      {lowercase.Name, nl.StopName, nl.SnowballStemmerName, foldName},
	"english":    {en.PossessiveName, lowercase.Name, en.StopName, en.SnowballStemmerName, foldName},
	"finnish":    {lowercase.Name, fi.StopName, fi.SnowballStemmerName, foldName},
	"french":     {fr.ElisionName, lowercase.Name, fr.StopName, fr.SnowballStemmerName, foldName},
	"german":     {lowercase.Name, de.StopName, de.NormalizeName, de.SnowballStemmerName, foldName},
	"greek":      {lowercase.Name, el.StopName, foldName},
	"hindi":      {lowercase.Name, hi.NormalizeName, hi.StopName, hi.StemmerName},
	"hungarian":  {lowercase.Name, hu.StopName, hu.SnowballStemmerName, foldName},
	"indonesian": {lowercase.Name, id.StopName, foldName},
	"irish":      {ga.ElisionName, lowercase.Name, ga.StopName, foldName},
	"italian":    {it.ElisionName, lowercase.Name, it.StopName, it.SnowballStemmerName, foldName},
	"lithuanian": {lowercase.Name, foldName},
	"nepali":     {lowercase.Name},
	"norwegian":  {lowercase.Name, no.StopName, no.SnowballStemmerName, foldName},
	"portuguese": {lowercase.Name, pt.StopName, pt.LightStemmerName, foldName},
	"romanian":   {lowercase.Name, ro.StopName, ro.SnowballStemmerName, foldName},
	"russian":    {lowercase.Name, ru.StopName, ru.SnowballStemmerName, foldName},
	"serbian":    {lowercase.Name, foldName},
	"spanish":    {lowercase.Name, es.StopName, es.SnowballStemmerName, foldName},
	"swedish":    {lowercase.Name, sv.StopName, sv.SnowballStemmerName, foldName},
	"tamil":      {lowercase.Name},
	"turkish":    {lowercase.Name, tr.StopName, tr.SnowballStemmerName, foldName},
	"yiddish":    {lowercase.Name},
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
	return m.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          "custom",
		"tokenizer":     unitok.Name,
		"token_filters": filters,
	})
}

// foldFilter removes combining marks that follow Latin, Greek or Cyrillic
// letters.
type foldFilter struct{}

func (foldFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		t.Term = foldTerm(t.Term)
	}
	return in
}

func foldTerm(term []byte) []byte {
	ascii := true
	for _, c := range term {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return term
	}
	d := norm.NFD.Bytes(term)
	out := make([]rune, 0, len(d))
	var base rune
	for _, r := range string(d) {
		if unicode.Is(unicode.Mn, r) && (unicode.Is(unicode.Latin, base) || unicode.Is(unicode.Greek, base) || unicode.Is(unicode.Cyrillic, base)) {
			continue
		}
		if !unicode.Is(unicode.Mn, r) {
			base = r
		}
		out = append(out, r)
	}
	return norm.NFC.Bytes([]byte(string(out)))
}

func init() {
	// Registration is Bleve's only way to name a filter for a mapping; the
	// filter is stateless, so one registration serves every index.
	registry.RegisterTokenFilter(foldName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return foldFilter{}, nil
	})
}
