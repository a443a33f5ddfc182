package builtin

import (
	"context"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contextd/contextd/model"
)

// Summarizer is the offline extractive summarizer, the default summary
// provider. It keeps the sentences most central to the text -- those whose
// term vector (TF-IDF over the text's own sentences) is closest to the
// centroid of the whole text -- in their original order, as one paragraph
// within the word and token caps. It needs no model files and is
// deterministic. The zero value uses the defaults.
//
//	s := builtin.Summarizer{}
//	summary, err := s.Summarize(ctx, "", longText)
type Summarizer struct {
	// MaxTokens caps the summary (SUMMARY_MAX_TOKENS; default 4000),
	// estimated as 4/3 tokens per word.
	MaxTokens int
	// MaxWords caps the paragraph (default 250, the upper end of the
	// prompt's 100-250 words).
	MaxWords int
}

// Summarizer is what the engine's summary seam expects.
var _ model.Summarizer = Summarizer{}

// Summarize returns one dense paragraph of the text's central sentences.
// The prompt is ignored: an extractive summary has no instructions to
// follow. It never fails; ctx cancellation is honoured.
func (s Summarizer) Summarize(ctx context.Context, prompt, text string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	maxWords := s.MaxWords
	if maxWords <= 0 {
		maxWords = 250
	}
	maxTokens := s.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 4000
	}
	maxWords = min(maxWords, maxTokens*3/4)
	maxWords = max(maxWords, 1)

	sents := splitSentences(text)
	if len(sents) == 0 {
		return "", nil
	}
	// A summary condenses: aim for a third of the text, at least
	// minTargetWords, within the caps.
	total := 0
	for _, x := range sents {
		total += countFields(x)
	}
	maxWords = min(maxWords, max(total/3, minTargetWords))
	scores := centrality(sents)
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	chosen := make([]bool, len(sents))
	words := 0
	for _, i := range order {
		n := countFields(sents[i])
		if n < minSentenceWords && len(sents) > 1 {
			continue // a heading or fragment, not a statement
		}
		if words > 0 && words+n > maxWords {
			continue
		}
		chosen[i] = true
		words += n
		if words >= maxWords {
			break
		}
	}
	if words == 0 {
		chosen[order[0]] = true // only fragments: keep the most central one
	}
	var parts []string
	for i, ok := range chosen {
		if ok {
			parts = append(parts, sents[i])
		}
	}
	out := strings.Join(parts, " ")
	if f := strings.Fields(out); len(f) > maxWords {
		out = strings.Join(f[:maxWords], " ")
	}
	return out, nil
}

const (
	minTargetWords   = 30
	minSentenceWords = 4
)

var (
	sentenceEnd = regexp.MustCompile(`([.!?。！？])\s+`)
	lineMarkup  = regexp.MustCompile(`^\s*(?:#{1,6}\s+|[-*+]\s+|\d{1,9}[.)]\s+|>\s*)+`)
	fenceLine   = regexp.MustCompile("^\\s*(```|~~~)")
)

// splitSentences splits text into sentences: at sentence punctuation
// followed by space, and at line breaks (a heading or list item is a
// sentence of its own). Markdown markers and fenced code are dropped.
func splitSentences(text string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if fenceLine.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		line = lineMarkup.ReplaceAllString(line, "")
		line = sentenceEnd.ReplaceAllString(line, "$1\n")
		for _, s := range strings.Split(line, "\n") {
			s = strings.Join(strings.Fields(s), " ")
			if hasTerm(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// The summarizer reads every word of a text three times (sentence
// filter, term vectors, word counts). It used to build a slice of every
// word each time, about 100 MB of transient slices for a 10 MiB text of
// one long line; the walks below visit the same words without them.

// eachTerm calls f with every lower-cased content word of s, in order:
// the words of strings.ToLower(s) split at code points that are neither
// letters nor numbers, of more than one code point and not stop words.
// It stops when f returns false.
func eachTerm(s string, f func(string) bool) {
	s = strings.ToLower(s)
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if w := s[start:i]; isTerm(w) && !f(w) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		if w := s[start:]; isTerm(w) {
			f(w)
		}
	}
}

func isTerm(w string) bool {
	return utf8.RuneCountInString(w) > 1 && !stopwords[w]
}

// hasTerm reports whether s has a content word.
func hasTerm(s string) bool {
	found := false
	eachTerm(s, func(string) bool { found = true; return false })
	return found
}

// countFields is len(strings.Fields(s)).
func countFields(s string) int {
	n, in := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			in = false
		} else if !in {
			in, n = true, n+1
		}
	}
	return n
}

// centrality scores each sentence by the cosine between its TF-IDF vector
// and the centroid of all sentences, damped for very short sentences.
func centrality(sents []string) []float64 {
	tfs := make([]map[string]float64, len(sents))
	df := map[string]int{}
	for i, s := range sents {
		tf := map[string]float64{}
		eachTerm(s, func(t string) bool { tf[t]++; return true })
		for t := range tf {
			df[t]++
		}
		tfs[i] = tf
	}
	n := float64(len(sents))
	centroid := map[string]float64{}
	for _, tf := range tfs {
		for t, c := range tf {
			w := c * (1 + math.Log(n/float64(df[t])))
			tf[t] = w
			centroid[t] += w
		}
	}
	cnorm := norm(centroid)
	scores := make([]float64, len(sents))
	for i, tf := range tfs {
		dot := 0.0
		for t, w := range tf {
			dot += w * centroid[t]
		}
		if d := norm(tf) * cnorm; d > 0 {
			scores[i] = dot / d
		}
		if k := len(tf); k < 4 {
			scores[i] *= float64(k) / 4
		}
	}
	return scores
}

func norm(v map[string]float64) float64 {
	s := 0.0
	for _, w := range v {
		s += w * w
	}
	return math.Sqrt(s)
}

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from further had has
	have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
	no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that
	the their theirs them themselves then there these they this those through to too under until up very was we were
	what when where which while who whom why will with would you your yours yourself yourselves also may might must
	shall us via per etc`) {
		m[w] = true
	}
	return m
}()
