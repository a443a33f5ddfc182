package kchunk

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand"
	"strings"
	"testing"
	"unicode"
)

// topicEmbed is a real, deterministic embedder for tests: a bag of hashed
// word features (64 dims), so sentences about the same words are close and
// sentences about different words are far.
func topicEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) < 4 {
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

func tok(t testing.TB) *Tokenizer {
	t.Helper()
	k, err := defaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestTokenizerB3 checks the counter against the requirements' examples
// and cl100k_base ids known from OpenAI's tiktoken.
func TestTokenizerB3(t *testing.T) {
	k := tok(t)
	if n := k.Count("Hello world"); n != 2 {
		t.Errorf(`Count("Hello world") = %d, want 2`, n)
	}
	if n := k.Count(" \n\t "); n != 0 {
		t.Errorf("whitespace-only counts %d, want 0", n)
	}
	if ids := k.Encode("hello world"); fmt.Sprint(ids) != "[15339 1917]" {
		t.Errorf(`Encode("hello world") = %v, want [15339 1917] (tiktoken cl100k_base)`, ids)
	}
	if ids := k.Encode("<|endoftext|>"); len(ids) < 2 {
		t.Errorf("special token text must be encoded as ordinary text, got %v", ids)
	}
	for _, tc := range []struct {
		s    string
		n    int
		want int
	}{
		{"Hello world", 1, 5},
		{"Hello world", 2, 11},
		{"Hello world", 9, 11},
		{"Hello world", 0, 0},
		{"日本語のテキスト", 1, 0},
	} {
		got := k.IndexAt(tc.s, tc.n)
		if tc.want > 0 && got != tc.want {
			t.Errorf("IndexAt(%q, %d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
		if !strings.HasPrefix(tc.s, tc.s[:got]) || !utf8Valid(tc.s[:got]) {
			t.Errorf("IndexAt(%q, %d) = %d cuts a character", tc.s, tc.n, got)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// check asserts the properties every Split result must hold: offsets in
// range and in order, Text = [HeaderPath + "\n\n"] + text[Start:End],
// trimmed, Tokens exact, no chunk over max unless it is one fenced code
// block or one unsplittable run, and every non-space byte covered by a
// chunk (Markdown heading lines by the breadcrumb instead).
func check(t *testing.T, name, text string, cs []Chunk, max int) {
	t.Helper()
	k := tok(t)
	covered := make([]bool, len(text))
	prev := -1
	for i, c := range cs {
		if c.Start < 0 || c.End > len(text) || c.Start >= c.End {
			t.Fatalf("chunk %d: bad offsets %d-%d (len %d)", i, c.Start, c.End, len(text))
		}
		if c.Start < prev {
			t.Fatalf("chunk %d starts at %d before chunk %d's start %d", i, c.Start, i-1, prev)
		}
		prev = c.Start
		body := text[c.Start:c.End]
		want := body
		if c.HeaderPath != "" {
			want = c.HeaderPath + "\n\n" + body
		}
		if c.Text != want {
			t.Fatalf("chunk %d: Text %q != source slice %q", i, c.Text, want)
		}
		if strings.TrimSpace(body) != body {
			t.Fatalf("chunk %d not trimmed: %q", i, body)
		}
		if c.Tokens != k.Count(c.Text) {
			t.Fatalf("chunk %d: Tokens %d, counted %d", i, c.Tokens, k.Count(c.Text))
		}
		if c.Tokens > max && !unsplittable(body) {
			t.Fatalf("chunk %d has %d tokens > %d: %q", i, c.Tokens, max, c.Text)
		}
		for j := c.Start; j < c.End; j++ {
			covered[j] = true
		}
	}
	md := IsMarkdown(name)
	for j, r := range text {
		if covered[j] || unicode.IsSpace(r) {
			continue
		}
		if md && headingLine(text, j) {
			continue
		}
		t.Fatalf("byte %d (%q) of %q is in no chunk", j, text[j], excerpt(text, j))
	}
}

// unsplittable: a fenced code block, inside block quotes and list items
// too (the chunker keeps goldmark's fenced blocks whole from their line's
// start: ">   ~~~00" and "* ~~~ ~" are ones FuzzSplit found), or one run
// with no separator.
func unsplittable(body string) bool {
	lead := body
	for {
		next := strings.TrimLeft(lead, " \t>")
		// A list marker: *, - or +, or up to nine digits and . or ),
		// then a space or the end of the line.
		m := 0
		if next != "" && strings.ContainsRune("*-+", rune(next[0])) {
			m = 1
		} else {
			for m < len(next) && m < 9 && next[m] >= '0' && next[m] <= '9' {
				m++
			}
			if m > 0 && m < len(next) && (next[m] == '.' || next[m] == ')') {
				m++
			} else {
				m = 0
			}
		}
		if m > 0 && (m == len(next) || next[m] == ' ' || next[m] == '\t') {
			next = next[m:]
		}
		if next == lead {
			break
		}
		lead = next
	}
	return strings.HasPrefix(lead, "```") || strings.HasPrefix(lead, "~~~") || !strings.ContainsAny(body, " \n")
}

func headingLine(text string, j int) bool {
	ls := lineStart(text, j)
	line := strings.TrimSpace(text[ls:lineEnd(text, j)])
	if strings.HasPrefix(line, "#") || strings.Trim(line, "=-") == "" {
		return true
	}
	// Setext title, which may span lines ("0\n~\n=" is one heading,
	// "0 ~"): a later line of the same paragraph is an underline.
	for next := lineEnd(text, j) + 1; next < len(text); next = lineEnd(text, next) + 1 {
		u := strings.TrimSpace(text[next:lineEnd(text, next)])
		if u == "" {
			return false
		}
		if strings.Trim(u, "=") == "" || strings.Trim(u, "-") == "" {
			return true
		}
	}
	return false
}

func excerpt(s string, j int) string {
	return s[max(0, j-30):min(len(s), j+30)]
}

func split(t *testing.T, name, text string, o Options) []Chunk {
	t.Helper()
	cs, err := Split(context.Background(), name, text, o)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// prose builds n deterministic English-like paragraphs.
func prose(seed int64, paragraphs, sentencesEach int) string {
	rng := rand.New(rand.NewSource(seed))
	words := strings.Fields("the river carried cold water past stone mills while engineers measured flow and pressure in narrow channels before winter storms arrived at harbour towns where ships waited for calm weather and fresh supplies")
	var b strings.Builder
	for p := 0; p < paragraphs; p++ {
		for s := 0; s < sentencesEach; s++ {
			n := 6 + rng.Intn(14)
			for w := 0; w < n; w++ {
				word := words[rng.Intn(len(words))]
				if w == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				b.WriteString(word)
				if w < n-1 {
					b.WriteByte(' ')
				}
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}
