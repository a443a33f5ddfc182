// Package paraphrase owns the paraphrase retrieval set: pairs
// of (query, entry) in the style of agent memory (incidents, decisions,
// preferences, errands) where the query shares at most one content word
// with the entry it should find, hidden among paragraphs of real technical
// prose. The data lives in testdata/paraphrase/ (pairs.jsonl written for
// the test, distractors.txt generated from the Go standard library's
// package documentation by ./internal/gen); `contextd eval paraphrase`
// and the long-tier floors read it through Load.
//
//	set, err := paraphrase.Load("testdata/paraphrase")
//	for _, p := range set.Pairs { fmt.Println(p.Query, "->", p.Entry) }
//
// Odd pair ids form the development split (anything tuned may look at
// them), even ids the held-out split.
package paraphrase

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/contextd/contextd/index/token"
)

// Pair is one query and the entry it should retrieve.
type Pair struct {
	ID    int    `json:"id"`
	Kind  string `json:"kind"` // incident, decision, preference or task
	Query string `json:"query"`
	Entry string `json:"entry"`
}

// Dev reports whether p belongs to the development split (odd id).
func (p Pair) Dev() bool { return p.ID%2 == 1 }

// Set is the loaded collection.
type Set struct {
	Pairs       []Pair
	Distractors []string
}

// ErrData wraps every problem with the files of a set.
var ErrData = errors.New("bad paraphrase set")

// Load reads pairs.jsonl and distractors.txt from dir.
func Load(dir string) (*Set, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "pairs.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("read pairs: %w", err)
	}
	set, err := parsePairs(raw)
	if err != nil {
		return nil, err
	}
	raw, err = os.ReadFile(filepath.Join(dir, "distractors.txt"))
	if err != nil {
		return nil, fmt.Errorf("read distractors: %w", err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			set.Distractors = append(set.Distractors, l)
		}
	}
	return set, nil
}

// parsePairs decodes one JSON object a line; ids are unique and positive,
// query and entry non-empty.
func parsePairs(raw []byte) (*Set, error) {
	set := &Set{}
	seen := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var p Pair
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%w: line %d: not a pair object", ErrData, line)
		}
		switch {
		case p.ID <= 0 || seen[p.ID]:
			return nil, fmt.Errorf("%w: line %d: id %d missing or repeated", ErrData, line, p.ID)
		case strings.TrimSpace(p.Query) == "" || strings.TrimSpace(p.Entry) == "":
			return nil, fmt.Errorf("%w: line %d: empty query or entry", ErrData, line)
		}
		seen[p.ID] = true
		set.Pairs = append(set.Pairs, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
	}
	return set, nil
}

// ContentWords are the distinct Snowball-stemmed words of s that are not
// stop words: what "sharing a content word" means for the set.
func ContentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopWords[w] {
			continue
		}
		out[token.Stem(w)] = true
	}
	return out
}

// Shared is the content words query and entry have in common.
func Shared(query, entry string) []string {
	e := ContentWords(entry)
	var out []string
	for w := range ContentWords(query) {
		if e[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords is the English list of Lucene's EnglishAnalyzer widened with
// the pronouns, auxiliaries and question words of NLTK's list.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or such that the
		their then there these they this to was will with i me my we our ours you your he him his she her its
		them what which who whom why how when where am were been being have has had having do does did doing
		would should could can may might must shall from up down out off over under again further once here
		all any both each few more most other some own same so than too very just s t don now about above
		after before below between through during against while until because`) {
		m[w] = true
	}
	return m
}()
