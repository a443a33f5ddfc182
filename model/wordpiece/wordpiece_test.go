package wordpiece

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

// The expected outputs below are those of transformers' own tests
// (tests/models/bert/test_tokenization_bert.py, which run BertTokenizer
// and BertTokenizerFast against each other), cited by test name, or are
// derived by hand from the rules of tokenization_bert.py with the
// reasoning written beside them. Debian packages neither transformers
// nor tokenizers, so no Python reference runs here.

// words is the basic tokenizer alone: the words WordPiece would receive.
func words(t *Tokenizer, text string) []string {
	var out []string
	for text != "" {
		at, name := t.nextSpecial(text)
		s := text[:at]
		for _, st := range t.steps {
			s = st(s)
		}
		preTokenize(s, t.opt.SplitPunct, func(w string) { out = append(out, w) })
		if name == "" {
			break
		}
		out = append(out, name)
		text = text[at+len(name):]
	}
	return out
}

// vocabOf numbers tokens from 0 in order, as vocab.txt does.
func vocabOf(tokens ...string) map[string]int {
	v := map[string]int{}
	for i, s := range tokens {
		v[s] = i
	}
	return v
}

func mustNew(t *testing.T, vocab map[string]int, opt Options) *Tokenizer {
	t.Helper()
	tok, err := New(vocab, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func TestBasicTokenizer(t *testing.T) {
	v := vocabOf("[UNK]")
	opts := func(lower, strip bool) Options {
		o := BertOptions()
		o.Lower, o.StripAccents = lower, strip
		return o
	}
	const mixed = " \tHäLLo!how  \n Are yoU?  "
	cases := []struct {
		name         string
		lower, strip bool
		in           string
		want         []string
	}{
		// test_basic_tokenizer_lower (strip_accents None follows lower)
		{"lower", true, true, " \tHeLLo!how  \n Are yoU?  ", []string{"hello", "!", "how", "are", "you", "?"}},
		{"lower accents", true, true, "H\u00E9llo", []string{"hello"}},
		// test_basic_tokenizer_lower_strip_accents_false
		{"lower keep accents", true, false, mixed, []string{"hällo", "!", "how", "are", "you", "?"}},
		{"lower keep é", true, false, "H\u00E9llo", []string{"h\u00E9llo"}},
		// test_basic_tokenizer_lower_strip_accents_true / _default
		{"lower strip", true, true, mixed, []string{"hallo", "!", "how", "are", "you", "?"}},
		// test_basic_tokenizer_no_lower
		{"cased", false, false, " \tHeLLo!how  \n Are yoU?  ", []string{"HeLLo", "!", "how", "Are", "yoU", "?"}},
		// test_basic_tokenizer_no_lower_strip_accents_false / _true
		{"cased accents", false, false, mixed, []string{"HäLLo", "!", "how", "Are", "yoU", "?"}},
		{"cased strip", false, true, mixed, []string{"HaLLo", "!", "how", "Are", "yoU", "?"}},
		// test_chinese: each CJK ideograph is a word.
		{"cjk", true, true, "ah\u535A\u63A8zz", []string{"ah", "\u535A", "\u63A8", "zz"}},
		// Hangul is not in BERT's CJK blocks: one word. Accent
		// stripping decomposes its syllables (NFD) into conjoining jamo,
		// which are letters (Lo) and stay, decomposed, as in Python.
		{"hangul", true, true, "한국어", []string{"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165"}},
		{"hangul cased", false, false, "한국어", []string{"한국어"}},
		// test_basic_tokenizer_splits_on_punctuation
		{"punctuation", true, true, "a\n'll !!to?'d of, can't.",
			[]string{"a", "'", "ll", "!", "!", "to", "?", "'", "d", "of", ",", "can", "'", "t", "."}},
		// ASCII symbols count as punctuation ($ + ^ ` | ~), Unicode
		// symbols do not (€ is Sc, © So), Unicode P does (« » are Pi/Pf,
		// ¿ Po).
		{"symbols", true, true, "a$b+c^d`e|f~g €5 ©x «q» ¿y", []string{"a", "$", "b", "+", "c", "^", "d", "`", "e", "|", "f", "~", "g", "€5", "©x", "«", "q", "»", "¿", "y"}},
		// test_clean_text: a soft hyphen (Cf) vanishes; zero-width marks
		// U+200E/F (Cf), NUL, U+FFFD and C0 controls too; U+00A0 (Zs) and
		// tab are whitespace.
		{"clean", true, true, "\xad", nil},
		{"controls", true, true, "a\u200Eb\u200F\x00c\ufffd\x05d e\u00A0f\tg", []string{"abcd", "e", "f", "g"}},
		// Invalid UTF-8 is U+FFFD, which cleaning drops.
		{"invalid utf8", true, true, "ab\xffcd", []string{"abcd"}},
		// Python's and Rust's lower-casing map İ to i + U+0307, and
		// accent stripping then drops the dot.
		{"dotted I", true, true, "İstanbul", []string{"istanbul"}},
		{"dotted I kept", true, false, "İ", []string{"i\u0307"}},
	}
	for _, c := range cases {
		tok := mustNew(t, v, opts(c.lower, c.strip))
		check(t, c.name, words(tok, c.in), c.want)
	}
}

// test_basic_tokenizer_respects_never_split_tokens, and special tokens
// cut out of the raw text before lower-casing.
func TestNeverSplit(t *testing.T) {
	o := BertOptions()
	o.Lower, o.StripAccents = false, false
	o.Specials = []string{"[UNK]"}
	tok := mustNew(t, vocabOf("[UNK]"), o)
	check(t, "never_split", words(tok, " \tHeLLo!how  \n Are yoU? [UNK]"),
		[]string{"HeLLo", "!", "how", "Are", "yoU", "?", "[UNK]"})
	// Uncased: [MASK] is matched before lower-casing and even without
	// surrounding spaces; [mask] is ordinary text.
	up := mustNew(t, vocabOf("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "hello", "world", "[", "]", "mask"), BertOptions())
	check(t, "mask", up.Tokens("Hello[MASK]world [mask]"),
		[]string{"hello", "[MASK]", "world", "[", "mask", "]"})
}

// test_wordpiece_tokenizer and test_full_tokenizer.
func TestWordPiece(t *testing.T) {
	tok := mustNew(t, vocabOf("[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing"), BertOptions())
	check(t, "empty", tok.Tokens(""), nil)
	check(t, "greedy", tok.Tokens("unwanted running"), []string{"un", "##want", "##ed", "runn", "##ing"})
	// "unwantedx": after un ##want ##ed, "x" matches nothing, so the
	// whole word is [UNK] (not a partial split).
	check(t, "unmatched rest", tok.Tokens("unwantedX running"), []string{"[UNK]", "runn", "##ing"})

	full := mustNew(t, vocabOf("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "want", "##want", "##ed",
		"wa", "un", "runn", "##ing", ",", "low", "lowest"), BertOptions())
	if got := full.IDs("UNwant\u00E9d,running"); !slices.Equal(got, []int{9, 6, 7, 12, 10, 11}) {
		t.Errorf("full tokenizer ids %v, want [9 6 7 12 10 11]", got)
	}
	// test_clean_text: with this vocabulary "test" is unknown and the
	// soft hyphen is nothing.
	check(t, "Test", full.Tokens("Test"), []string{"[UNK]"})
	check(t, "soft hyphen", full.Tokens("\xad"), nil)
	// Longest match first: "lowest" beats "low" + "##est".
	check(t, "longest", full.Tokens("lowest low"), []string{"lowest", "low"})

	// test_offsets_with_special_characters (cased): multi-byte
	// continuations step back by characters.
	o := BertOptions()
	o.Lower, o.StripAccents = false, false
	cased := mustNew(t, vocabOf("[UNK]", "A", ",", "na", "##ï", "##ve", "Allen", "##NL", "##P", "sentence", ".", "[MASK]"), o)
	check(t, "cased offsets test", cased.Tokens("A, naïve [MASK] AllenNLP sentence."),
		[]string{"A", ",", "na", "##ï", "##ve", "[MASK]", "Allen", "##NL", "##P", "sentence", "."})
}

// max_input_chars_per_word: a word of 100 characters is split, one of
// 101 is [UNK] whatever the vocabulary holds. Characters, not bytes: 100
// two-byte letters still split.
func TestMaxChars(t *testing.T) {
	tok := mustNew(t, vocabOf("[UNK]", "a", "##a", "é", "##é"), func() Options {
		o := BertOptions()
		o.Lower, o.StripAccents = false, false
		return o
	}())
	if got := tok.Tokens(strings.Repeat("a", 100)); len(got) != 100 || got[1] != "##a" {
		t.Errorf("100 chars: %d tokens", len(got))
	}
	check(t, "101 chars", tok.Tokens(strings.Repeat("a", 101)), []string{"[UNK]"})
	if got := tok.Tokens(strings.Repeat("é", 100)); len(got) != 100 {
		t.Errorf("100 two-byte chars: %d tokens", len(got))
	}
}

// bertVocab is a small uncased vocabulary with BERT's special tokens at
// their usual places relative to each other.
func bertVocab() map[string]int {
	return vocabOf("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat",
		"a", "dog", "ran", ".", ",", "##s", "run", "##ning", "?")
}

func TestEncodeAndPairs(t *testing.T) {
	tok := mustNew(t, bertVocab(), BertOptions())
	e := tok.Encode("The cat sat.")
	// [CLS]=2 the=5 cat=6 sat=7 .=13 [SEP]=3
	if !slices.Equal(e.IDs, []int{2, 5, 6, 7, 13, 3}) || !slices.Equal(e.TypeIDs, []int{0, 0, 0, 0, 0, 0}) ||
		!slices.Equal(e.Mask, []int{1, 1, 1, 1, 1, 1}) {
		t.Errorf("single %+v", e)
	}
	p := tok.EncodePair("cats?", "A dog ran")
	// [CLS] cat ##s ? [SEP] | a dog ran [SEP]
	if !slices.Equal(p.IDs, []int{2, 6, 15, 18, 3, 10, 11, 12, 3}) ||
		!slices.Equal(p.TypeIDs, []int{0, 0, 0, 0, 0, 1, 1, 1, 1}) {
		t.Errorf("pair %+v", p)
	}
	// Padding to the longest of a batch.
	batch := []Encoding{e, p}
	if n := tok.Pad(batch); n != 9 || !slices.Equal(batch[0].IDs[6:], []int{0, 0, 0}) ||
		!slices.Equal(batch[0].Mask[5:], []int{1, 0, 0, 0}) {
		t.Errorf("pad %d %+v", n, batch[0])
	}
}

func TestTruncation(t *testing.T) {
	tok := mustNew(t, bertVocab(), BertOptions())
	cat := func(n int) string { return strings.TrimSpace(strings.Repeat("cat ", n)) }
	dog := func(n int) string { return strings.TrimSpace(strings.Repeat("dog ", n)) }
	count := func(e Encoding, id int) int {
		n := 0
		for _, x := range e.IDs {
			if x == id {
				n++
			}
		}
		return n
	}
	// Single: 10 words into 6 tokens = [CLS] + 4 + [SEP].
	e := tok.WithMaxLen(6).Encode(cat(10))
	if !slices.Equal(e.IDs, []int{2, 6, 6, 6, 6, 3}) {
		t.Errorf("single truncation %v", e.IDs)
	}
	// Pairs, budget = max - 3. The tokenizers library's longest-first:
	// the shorter side is kept whole when it fits in half the budget,
	// else the shorter gets floor(budget/2) and the longer the rest,
	// the first side counting as the shorter on a tie.
	cases := []struct{ a, b, max, wantA, wantB int }{
		{10, 3, 11, 5, 3}, // budget 8: dogs fit in half, cats get 8-3
		{3, 10, 11, 3, 5},
		{6, 6, 10, 3, 4}, // budget 7, a tie: first 3, second 4
		{7, 6, 10, 4, 3}, // budget 7: shorter (second) 3, first 4
		{2, 2, 10, 2, 2}, // fits: untouched
		{5, 5, 3, 0, 0},  // budget 0
		{9, 1, 4, 1, 0},  // budget 1: the shorter gets floor(1/2) = 0, the longer 1
	}
	for _, c := range cases {
		p := tok.WithMaxLen(c.max).EncodePair(cat(c.a), dog(c.b))
		if count(p, 6) != c.wantA || count(p, 11) != c.wantB || len(p.IDs) > c.max {
			t.Errorf("pair %d+%d max %d: %d cats %d dogs (%d tokens), want %d %d",
				c.a, c.b, c.max, count(p, 6), count(p, 11), len(p.IDs), c.wantA, c.wantB)
		}
	}
}

func TestLoadVocabTxt(t *testing.T) {
	dir := t.TempDir()
	vocab := "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nHello\nhä\n##llo\n!\n"
	write(t, dir, "vocab.txt", vocab)
	tok, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// No tokenizer_config.json: uncased BERT, 512 tokens.
	if got := tok.Encode("HELLO!").IDs; !slices.Equal(got, []int{2, 5, 9, 3}) || tok.MaxLen() != 512 {
		t.Errorf("uncased %v max %d", got, tok.MaxLen())
	}
	// Cased, accents kept, [UNK] renamed, 16 tokens.
	write(t, dir, "tokenizer_config.json", `{"do_lower_case": false, "model_max_length": 16,
		"unk_token": {"content": "[UNK]"}, "never_split": ["!"]}`)
	tok, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Tokens("Hello häLLO hällo"); !slices.Equal(got, []string{"Hello", "[UNK]", "hä", "##llo"}) || tok.MaxLen() != 16 {
		t.Errorf("cased %q max %d", got, tok.MaxLen())
	}
	// Lower-cased but accents kept explicitly.
	write(t, dir, "tokenizer_config.json", `{"do_lower_case": true, "strip_accents": false, "model_max_length": 1e30}`)
	if tok, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if got := tok.Tokens("HÄLLO"); !slices.Equal(got, []string{"hä", "##llo"}) || tok.MaxLen() != 512 {
		t.Errorf("keep accents %q max %d", got, tok.MaxLen())
	}
	if _, err := Load(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty folder: %v", err)
	}
	write(t, dir, "tokenizer_config.json", `{"do_lower_case": "yes"}`)
	if _, err := Load(dir); !errors.Is(err, cerrors.ErrMalformed) || !strings.Contains(err.Error(), "vocab.txt") {
		t.Errorf("bad config: %v", err)
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
