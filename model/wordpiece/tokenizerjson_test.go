package wordpiece

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

// tokenizerJSONText is a tokenizer.json laid out as the tokenizers
// library saves bert-base-uncased and the sentence-transformers models
// derived from it (the fields this package reads, with their values).
func tokenizerJSONText(vocab map[string]int, normalizer, pre, post string, truncation string) string {
	v, _ := json.Marshal(vocab)
	return fmt.Sprintf(`{
  "version": "1.0",
  "truncation": %s,
  "padding": null,
  "added_tokens": [
    {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 4, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
  ],
  "normalizer": %s,
  "pre_tokenizer": %s,
  "post_processor": %s,
  "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": %s}
}`, truncation, normalizer, pre, post, v)
}

const (
	bertNormalizer = `{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}`
	bertPre        = `{"type": "BertPreTokenizer"}`
	bertTemplate   = `{"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
    "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
             {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}}`
	bertProcessing = `{"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}`
)

// sampleTexts exercise every rule at once for the equivalence checks.
var sampleTexts = []string{
	"The cat sat on the mat.", "THE CATS, running?", "ünïcödé cät", "猫 sat", "the\tcat\u00a0ran\x00",
	"[MASK] the [CLS] cat", "", "   ", "cat" + strings.Repeat("s", 120), "cat's mat!?",
}

// TestTokenizerJSONMatchesVocabTxt: the same model saved both ways
// tokenizes alike (BertNormalizer defaults = BertTokenizer defaults;
// TemplateProcessing and BertProcessing = BERT's templates).
func TestTokenizerJSONMatchesVocabTxt(t *testing.T) {
	ref := mustNew(t, bertVocab(), BertOptions())
	for _, post := range []string{bertTemplate, bertProcessing} {
		tj, err := FromTokenizerJSON([]byte(tokenizerJSONText(bertVocab(), bertNormalizer, bertPre, post, "null")))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sampleTexts {
			a, b := ref.EncodePair(s, "a dog"), tj.EncodePair(s, "a dog")
			if !slices.Equal(a.IDs, b.IDs) || !slices.Equal(a.TypeIDs, b.TypeIDs) {
				t.Errorf("%q: vocab.txt %v, tokenizer.json %v", s, a, b)
			}
		}
	}
}

func TestTokenizerJSONOptions(t *testing.T) {
	v := bertVocab()
	v["ünïcödé"] = 19
	v["Cat"] = 20
	cased := `{"type": "BertNormalizer", "lowercase": false, "strip_accents": false}`
	tj, err := FromTokenizerJSON([]byte(tokenizerJSONText(v, cased, bertPre, "null",
		`{"max_length": 4, "strategy": "LongestFirst", "stride": 0, "direction": "Right"}`)))
	if err != nil {
		t.Fatal(err)
	}
	// Cased, accents kept, no post-processor (no [CLS]/[SEP]), 4 tokens.
	if got := tj.Encode("ünïcödé Cat cat sat on").IDs; !slices.Equal(got, []int{19, 20, 6, 7}) {
		t.Errorf("cased, truncated: %v", got)
	}
	// A Sequence normalizer of NFD, Lowercase, StripAccents is uncased
	// BERT without the cleaning (the control character stays, so the
	// word is unknown).
	seq := `{"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}]}`
	ws := `{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}]}`
	tj, err = FromTokenizerJSON([]byte(tokenizerJSONText(v, seq, ws, bertProcessing, "null")))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "sequence", tj.Tokens("CÄT cat\x05 mat."), []string{"cat", "[UNK]", "[UNK]"})
	// StripAccents alone drops nonspacing marks without decomposing, as
	// the library's does: a precomposed "Ü" stays (and is lower-cased), a
	// decomposed one loses its diaeresis.
	v["unicode"] = 21
	seq = `{"type": "Sequence", "normalizers": [{"type": "StripAccents"}, {"type": "Lowercase"}]}`
	if tj, err = FromTokenizerJSON([]byte(tokenizerJSONText(v, seq, ws, bertProcessing, "null"))); err != nil {
		t.Fatal(err)
	}
	if got := tj.IDs("ÜNÏCÖDÉ U\u0308NI\u0308CO\u0308DE\u0301"); !slices.Equal(got, []int{19, 21}) {
		t.Errorf("StripAccents without NFD: %v, want [19 21]", got)
	}
	// The steps keep their order: NFD after lower-casing leaves the word
	// decomposed, so it misses the precomposed entry.
	seq = `{"type": "Sequence", "normalizers": [{"type": "Lowercase"}, {"type": "NFD"}]}`
	if tj, err = FromTokenizerJSON([]byte(tokenizerJSONText(v, seq, ws, bertProcessing, "null"))); err != nil {
		t.Fatal(err)
	}
	check(t, "NFD last", tj.Tokens("ÜNÏCÖDÉ"), []string{"[UNK]"})
	seq = `{"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}, {"type": "Strip", "left": true, "right": true}]}`
	if tj, err = FromTokenizerJSON([]byte(tokenizerJSONText(v, seq, ws, bertProcessing, "null"))); err != nil {
		t.Fatal(err)
	}
	check(t, "NFC keeps accents", tj.Tokens(" U\u0308NÏCÖDÉ "), []string{"ünïcödé"})

	for name, doc := range map[string]string{
		"bpe":        strings.Replace(tokenizerJSONText(v, bertNormalizer, bertPre, "null", "null"), `"type": "WordPiece", "unk`, `"type": "BPE", "unk`, 1),
		"normalizer": tokenizerJSONText(v, `{"type": "Precompiled"}`, bertPre, "null", "null"),
		"pre":        tokenizerJSONText(v, bertNormalizer, `{"type": "Metaspace"}`, "null", "null"),
		"post":       tokenizerJSONText(v, bertNormalizer, bertPre, `{"type": "RobertaProcessing"}`, "null"),
	} {
		if _, err := FromTokenizerJSON([]byte(doc)); !errors.Is(err, cerrors.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
	for name, doc := range map[string]string{
		"not json":    `{"model": `,
		"empty vocab": tokenizerJSONText(map[string]int{}, "null", "null", "null", "null"),
		"no unk":      `{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"a": 0}}}`,
		"bad special": tokenizerJSONText(v, "null", "null", strings.Replace(bertTemplate, `"ids": [2]`, `"ids": [999]`, 1), "null"),
		"bad seq":     tokenizerJSONText(v, "null", "null", strings.Replace(bertTemplate, `"id": "B"`, `"id": "C"`, 1), "null"),
		"bertproc":    tokenizerJSONText(v, "null", "null", `{"type": "BertProcessing", "sep": ["[SEP]"], "cls": ["[CLS]", 2]}`, "null"),
	} {
		if _, err := FromTokenizerJSON([]byte(doc)); !errors.Is(err, cerrors.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// FuzzWordPiece: for any text and pair and bound, the encoding never
// panics, every id is in the vocabulary, the length respects the bound
// and the three slices line up; a single text starts with [CLS] and ends
// with [SEP].
func FuzzWordPiece(f *testing.F) {
	for _, s := range sampleTexts {
		f.Add(s, "a dog ran", uint8(8))
	}
	f.Add("UNwant\u00E9d,running", "", uint8(0))
	f.Add("\xff\xfe[MAS", "[SEP][SEP]", uint8(3))
	f.Add("İ\u0307\u0300a", "한국어 猫", uint8(2))
	v := bertVocab()
	for i, w := range []string{"##a", "a", "##\u0307", "i", "##i", "猫", "##猫"} {
		v[w] = 30 + i
	}
	tokens, err := New(v, BertOptions())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b string, maxLen uint8) {
		tok := tokens.WithMaxLen(int(maxLen))
		for _, e := range []Encoding{tok.Encode(a), tok.EncodePair(a, b)} {
			if len(e.IDs) != len(e.TypeIDs) || len(e.IDs) != len(e.Mask) {
				t.Fatalf("lengths %d %d %d", len(e.IDs), len(e.TypeIDs), len(e.Mask))
			}
			if maxLen >= 3 && len(e.IDs) > int(maxLen) {
				t.Fatalf("%d tokens > %d", len(e.IDs), maxLen)
			}
			for _, id := range e.IDs {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("id %d outside [0, %d)", id, tok.VocabSize())
				}
			}
		}
		e := tok.Encode(a)
		if e.IDs[0] != v["[CLS]"] || e.IDs[len(e.IDs)-1] != v["[SEP]"] {
			t.Fatalf("single %v lacks [CLS] ... [SEP]", e.IDs)
		}
		// WordPiece loses nothing: without [UNK], the pieces (## cut)
		// spell the basic tokenizer's words.
		pieces := tok.Tokens(a)
		if !slices.Contains(pieces, "[UNK]") {
			var spelled strings.Builder
			for _, p := range pieces {
				spelled.WriteString(strings.TrimPrefix(p, "##"))
			}
			if w := strings.Join(words(tok, a), ""); spelled.String() != w {
				t.Fatalf("pieces %q spell %q, words %q", pieces, spelled.String(), w)
			}
		}
	})
}

// FuzzTokenizerJSON: any tokenizer.json either loads or is refused with
// a sentinel; a loaded one tokenizes without panicking.
func FuzzTokenizerJSON(f *testing.F) {
	f.Add(tokenizerJSONText(bertVocab(), bertNormalizer, bertPre, bertTemplate, `{"max_length": 8}`), "The cat")
	f.Add(tokenizerJSONText(bertVocab(), "null", "null", bertProcessing, "null"), "[MASK]")
	f.Add(`{"model": {"type": "WordPiece", "unk_token": "", "vocab": {"": 0}}}`, "x")
	f.Fuzz(func(t *testing.T, doc, text string) {
		tok, err := FromTokenizerJSON([]byte(doc))
		if err != nil {
			if !errors.Is(err, cerrors.ErrMalformed) && !errors.Is(err, cerrors.ErrUnsupported) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		for _, id := range tok.EncodePair(text, text).IDs {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("id %d outside [0, %d)", id, tok.VocabSize())
			}
		}
	})
}
