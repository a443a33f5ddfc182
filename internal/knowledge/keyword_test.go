package knowledge

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// kwHits runs the keyword leg of q over texts, indexed as put indexes
// chunks, and returns the matching texts' indexes, best first.
func kwHits(texts []string, q string) []int {
	v := newVocab()
	cands := make([]candidate, len(texts))
	total := 0
	for i, s := range texts {
		ic := v.indexChunk(Chunk{Text: s}, nil)
		cands[i] = candidate{path: fmt.Sprintf("/%02d", i), c: &ic}
		total += int(ic.n)
	}
	res := top(cands, mustLeg(cands, parseKeyword(q), total, v, DefaultMaxQueryTerms), len(texts))
	out := []int{}
	for _, h := range res {
		out = append(out, int(h.i))
	}
	return out
}

// TestKeywordWebsearchI5: the Keyword grammar and streams of requirements
// I.5 (websearch_to_tsquery over an exact and an English stream).
func TestKeywordWebsearchI5(t *testing.T) {
	texts := []string{
		0: "The migration failed on production and was rolled back.",
		1: "Migrations run at start-up; a failed one stops the server.",
		2: "Call fmt.Println to print a line.",
		3: "Println and fmt appear here apart: fmt is a package.",
		4: "The cat sat on the mat.",
		5: "Cats sit on mats.",
		6: "Resetting a password needs the old password.",
	}
	for _, c := range []struct {
		q    string
		want []int // as a set
	}{
		{"migration failed", []int{0, 1}},       // AND; 1 through the stems (migrations → migrat)
		{"migration production", []int{0}},      // AND excludes 1
		{"migration -production", []int{1}},     // negation
		{`"migration failed"`, []int{0}},        // a phrase: adjacent, in order
		{`"failed migration"`, []int{}},         // order matters
		{"fmt.Println", []int{2}},               // a split word is a phrase
		{"println fmt", []int{2, 3}},            // words anywhere
		{"cat or password", []int{4, 5, 6}},     // OR; 5 through the stems
		{"sat mat or resetting", []int{4, 6}},   // (sat AND mat) OR resetting
		{"cats sitting", []int{5}},              // sitting → sit
		{`"sat on the mat"`, []int{4}},          // a phrase through stop words
		{`"cat sat the mat"`, []int{}},          // one stop word is one position: "on the" is two
		{"the", []int{0, 1, 4, 6}},              // only the exact stream knows stop words
		{"or", []int{}},                         // an operator without operands
		{"-cat", []int{0, 1, 2, 3, 5, 6}},       // negation alone
		{"!@#$%^&*()_+-=[]{}|;:,.<>?", []int{}}, // H68
		{"' OR 1=1; DROP TABLE chunks; --", []int{}},
		{"cat password", []int{4, 5, 6}}, // no chunk holds both: the words are OR-ed
		{"cat password -mat", []int{6}},  // and negations still exclude
		{`"unclosed phrase`, []int{}},
		{`"rolled back`, []int{0}},
	} {
		got := kwHits(texts, c.q)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: hits %v, want %v", c.q, got, c.want)
		}
	}
}

// TestKeywordExactOutranksStem: an exact hit counts in both streams, a
// stemmed one in the English stream alone (weights 1 and 0.4).
func TestKeywordExactOutranksStem(t *testing.T) {
	got := kwHits([]string{"Cats sleep all day.", "The cat sleeps."}, "cat")
	if !slices.Equal(got, []int{1, 0}) {
		t.Fatalf("order %v, want the exact match first", got)
	}
}

func TestParseKeyword(t *testing.T) {
	show := func(q kwQuery) string {
		var gs []string
		for _, g := range q {
			var ps []string
			for _, p := range g {
				s := strings.Join(p.terms, "<->")
				if p.neg {
					s = "!" + s
				}
				ps = append(ps, s)
			}
			gs = append(gs, strings.Join(ps, " & "))
		}
		return strings.Join(gs, " | ")
	}
	for _, c := range []struct{ q, exact, stemmed string }{
		{"Running dogs", "running & dogs", "run & dog"},
		{`"the quick fox" or -slow`, "the<->quick<->fox | !slow", "quick<->fox | !slow"},
		{"a b or c d", "a & b | c & d", "b | c & d"},
		{"or x or", "x", "x"},
		{`-"sad cat"`, "!sad<->cat", "!sad<->cat"},
		{"the a", "the & a", ""},
	} {
		kq := parseKeyword(c.q)
		if got := show(kq.exact); got != c.exact {
			t.Errorf("%q exact: %q, want %q", c.q, got, c.exact)
		}
		if got := show(kq.stemmed); got != c.stemmed {
			t.Errorf("%q English: %q, want %q", c.q, got, c.stemmed)
		}
	}
}

// FuzzParseKeyword: any query parses, every phrase has terms and
// neither starts nor ends with a stop-word gap, and a chunk whose text is
// the query itself matches it whenever the query has a word and no
// negation (its words, phrases and split words all occur there, in order).
func FuzzParseKeyword(f *testing.F) {
	for _, s := range []string{"", `"a b" or -c`, `-"`, `"`, "or or", "-", "fmt.Println -x", "\"unclosed -\"x", "the cats or \"a dog\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kq := parseKeyword(s)
		for _, q := range []kwQuery{kq.exact, kq.stemmed} {
			for _, g := range q {
				if len(g) == 0 {
					t.Fatalf("%q: an empty group", s)
				}
				for _, p := range g {
					if len(p.terms) == 0 || p.terms[0] == "" || p.terms[len(p.terms)-1] == "" {
						t.Fatalf("%q: phrase %q", s, p.terms)
					}
				}
			}
		}
		hits := kwHits([]string{s, "a b c", "x"}, s)
		if len(kq.exact) > 0 && !strings.Contains(s, "-") && !slices.Contains(hits, 0) {
			t.Fatalf("%q does not match itself (hits %v)", s, hits)
		}
	})
}

// TestTermCounts: packed counts answer like the map they came from, for
// present, absent and unknown terms, and ids are shared across chunks.
func TestTermCounts(t *testing.T) {
	v := newVocab()
	m := map[string]int{"pot": 1, "tea": 3, "kettle": 70000}
	c := v.counts(m)
	if !c.wide {
		t.Fatal("a count of 70,000 was packed narrow")
	}
	sortedIDs := func(c termCounts) bool {
		for i := 1; i < c.len(); i++ {
			a, _ := c.at(i - 1)
			if b, _ := c.at(i); a >= b {
				return false
			}
		}
		return true
	}
	if !sortedIDs(c) {
		t.Fatal("counts not sorted by id")
	}
	for term, n := range m {
		if got := c.get(v.lookup(term)); got != n {
			t.Errorf("%s: %d, want %d", term, got, n)
		}
	}
	other := v.counts(map[string]int{"tea": 1, "cup": 2})
	if other.get(v.lookup("tea")) != 1 || other.get(v.lookup("pot")) != 0 || c.get(v.lookup("cup")) != 0 {
		t.Fatal("ids are not shared between chunks")
	}
	if v.lookup("absent") != noTerm || c.get(noTerm) != 0 || (termCounts{}).get(0) != 0 {
		t.Fatal("an unknown term has a count")
	}
}

// TestKeywordLongQueryMemory: a query at the 10,000-character limit with
// 1,600 distinct words allocates little over 3,000 chunks. The leg kept
// a count per chunk and query term before: 3,000 × 1,600 × 4 bytes for
// each stream, 38 MB for this query, and gigabytes on large containers.
func TestKeywordLongQueryMemory(t *testing.T) {
	v := newVocab()
	cands := make([]candidate, 3000)
	total := 0
	for i := range cands {
		ic := v.indexChunk(Chunk{Text: fmt.Sprintf("common w%d x%d", i, i%7)}, nil)
		cands[i] = candidate{path: fmt.Sprintf("/%05d", i), c: &ic}
		total += int(ic.n)
	}
	var b strings.Builder
	b.WriteString("common")
	for i := 0; b.Len() < MaxQueryLength-8; i++ {
		fmt.Fprintf(&b, " q%04d", i)
	}
	q := parseKeyword(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := mustLeg(cands, q, total, v, DefaultMaxQueryTerms)
	runtime.ReadMemStats(&after)
	if len(res) != len(cands) {
		t.Fatalf("%d hits, want every chunk (through the OR-ed fallback)", len(res))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 12<<20 {
		t.Fatalf("the leg allocated %d MB", got>>20)
	}
}

// TestTermCountsLayouts: the narrow layout (id < 1<<24, count <= 255)
// and the wide one answer alike, at both edges of the narrow range.
func TestTermCountsLayouts(t *testing.T) {
	cases := []struct {
		pairs [][2]uint32 // id, count, by id
		wide  bool
	}{
		{[][2]uint32{{0, 1}, {7, 255}, {narrowIDs - 1, 2}}, false},
		{[][2]uint32{{0, 1}, {7, 256}}, true},
		{[][2]uint32{{3, 1}, {narrowIDs, 1}}, true},
		{[][2]uint32{{noTerm - 2, 9}}, true},
		{nil, false},
	}
	for _, tc := range cases {
		var packed []uint64
		for _, p := range tc.pairs {
			packed = append(packed, uint64(p[0])<<32|uint64(p[1]))
		}
		c := packCounts(packed)
		if c.wide != tc.wide || c.len() != len(tc.pairs) {
			t.Fatalf("%v: wide %v, %d terms", tc.pairs, c.wide, c.len())
		}
		for i, p := range tc.pairs {
			if id, n := c.at(i); id != p[0] || n != int(p[1]) {
				t.Errorf("%v: term %d is (%d, %d)", tc.pairs, i, id, n)
			}
			if got := c.get(p[0]); got != int(p[1]) {
				t.Errorf("%v: get(%d) = %d", tc.pairs, p[0], got)
			}
			if got := c.get(p[0] + 1); len(tc.pairs) == i+1 && got != 0 {
				t.Errorf("%v: get(%d) = %d, want 0", tc.pairs, p[0]+1, got)
			}
		}
	}
}
