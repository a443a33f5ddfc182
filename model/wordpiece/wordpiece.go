// Package wordpiece owns the BERT tokenizer: the basic tokenizer
// (cleaning, CJK splitting, lower-casing and accent stripping as the
// model configures them, whitespace and punctuation splitting), WordPiece
// (greedy longest match against the vocabulary with "##" continuations,
// [UNK] for a word it cannot cover or longer than 100 characters), the
// special tokens ([CLS] A [SEP], and [CLS] A [SEP] B [SEP] with token
// type ids for a cross-encoder's pairs) and truncation.
//
// It reproduces the Hugging Face tokenizers library (the "fast"
// tokenizer sentence-transformers uses) and transformers' BertTokenizer
// on the cases their own tests pin (wordpiece_test.go cites them). A
// tokenizer loads from a model folder: tokenizer.json when present, else
// vocab.txt with tokenizer_config.json's options.
//
//	tok, err := wordpiece.Load("/models/all-MiniLM-L6-v2")
//	enc := tok.Encode("Héllo, world!") // [CLS] hello , world ! [SEP]
//	pair := tok.EncodePair(query, passage)
package wordpiece

import (
	"strings"
	"unicode/utf8"
)

// Options configure the basic tokenizer and WordPiece.
type Options struct {
	// Lower lower-cases the text; StripAccents drops its accents (NFD,
	// then the nonspacing marks). BERT's uncased models set both.
	Lower, StripAccents bool
	// CleanText drops control characters and maps whitespace to spaces;
	// CJK isolates CJK ideographs; SplitPunct makes every punctuation
	// character a word. All three are on for BERT.
	CleanText, CJK, SplitPunct bool
	// Unk is the unknown token ("[UNK]"); Prefix marks a word's
	// continuation pieces ("##"); MaxChars is the longest word WordPiece
	// splits (100): a longer one is Unk.
	Unk, Prefix string
	MaxChars    int
	// Specials are matched literally in the raw text before anything
	// else and never split ([CLS], [SEP], [MASK], ...).
	Specials []string
	// Single and Pair are the templates of Encode and EncodePair (nil:
	// no special tokens added).
	Single, Pair []Piece
	// MaxLen bounds an encoding, special tokens included (0: no bound).
	MaxLen int
	// Pad is the padding token's id (Pad, for batches).
	Pad int

	// steps, when not nil, replace the normalization the four flags
	// describe (a tokenizer.json Sequence of normalizers, applied in its
	// order).
	steps []step
}

// Piece is one element of a template: a special token (IDs) or one of
// the input sequences (Seq 0 for A, 1 for B), with the token type id its
// tokens get.
type Piece struct {
	Seq    int // -1 for a special token
	IDs    []int
	TypeID int
}

// BertOptions are BERT's defaults (uncased): lower-casing and accent
// stripping, cleaning, CJK and punctuation splitting, "[UNK]", "##",
// 100 characters, 512 tokens. The templates need the vocabulary (New
// fills them from [CLS] and [SEP] when nil).
func BertOptions() Options {
	return Options{Lower: true, StripAccents: true, CleanText: true, CJK: true, SplitPunct: true,
		Unk: "[UNK]", Prefix: "##", MaxChars: 100,
		Specials: []string{"[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"}, MaxLen: 512}
}

// Tokenizer is a loaded BERT tokenizer; safe for concurrent use.
type Tokenizer struct {
	vocab   map[string]int
	size    int // one past the largest id
	unk     int
	opt     Options
	steps   []step
	special map[string]int // Specials that are in the vocabulary
	nAddS   int            // special tokens Single adds
	nAddP   int            // special tokens Pair adds
}

// Encoding is the model input for one text or pair.
type Encoding struct {
	IDs     []int
	TypeIDs []int
	Mask    []int // 1 for a token, 0 for padding
}

// New builds a tokenizer from a vocabulary (token -> id) and options.
// It fails when the vocabulary lacks the unknown token.
func New(vocab map[string]int, opt Options) (*Tokenizer, error) {
	t := &Tokenizer{vocab: vocab, opt: opt, special: map[string]int{}}
	for _, id := range vocab {
		if id < 0 {
			return nil, errf("vocabulary has a negative id %d", id)
		}
		t.size = max(t.size, id+1)
	}
	unk, ok := vocab[opt.Unk]
	if !ok {
		return nil, errf("vocabulary lacks the unknown token %q", opt.Unk)
	}
	t.unk = unk
	if t.opt.MaxChars <= 0 {
		t.opt.MaxChars = 100
	}
	for _, s := range opt.Specials {
		if id, ok := vocab[s]; ok && s != "" {
			t.special[s] = id
		}
	}
	if t.opt.Single == nil && t.opt.Pair == nil {
		cls, ok1 := vocab["[CLS]"]
		sep, ok2 := vocab["[SEP]"]
		if ok1 && ok2 {
			t.opt.Single, t.opt.Pair = BertTemplates(cls, sep)
		}
	}
	for _, p := range t.opt.Single {
		if p.Seq < 0 {
			t.nAddS += len(p.IDs)
		}
	}
	for _, p := range t.opt.Pair {
		if p.Seq < 0 {
			t.nAddP += len(p.IDs)
		}
	}
	t.steps = opt.steps
	if t.steps == nil {
		t.steps = bertSteps(opt.CleanText, opt.CJK, opt.StripAccents, opt.Lower)
	}
	return t, nil
}

// bertSteps is BERT's normalization in the library's order: clean,
// isolate CJK, strip accents, lower-case.
func bertSteps(clean, cjk, strip, lowerCase bool) []step {
	steps := []step{}
	if clean {
		steps = append(steps, cleanText)
	}
	if cjk {
		steps = append(steps, spaceCJK)
	}
	if strip {
		steps = append(steps, stripAccents)
	}
	if lowerCase {
		steps = append(steps, lower)
	}
	return steps
}

// BertTemplates are BERT's: [CLS] A [SEP] (all type 0), and
// [CLS] A [SEP] B [SEP] with B and its [SEP] of type 1.
func BertTemplates(cls, sep int) (single, pair []Piece) {
	single = []Piece{{Seq: -1, IDs: []int{cls}}, {Seq: 0}, {Seq: -1, IDs: []int{sep}}}
	pair = []Piece{{Seq: -1, IDs: []int{cls}}, {Seq: 0}, {Seq: -1, IDs: []int{sep}},
		{Seq: 1, TypeID: 1}, {Seq: -1, IDs: []int{sep}, TypeID: 1}}
	return single, pair
}

// VocabSize is one past the largest id the tokenizer can return.
func (t *Tokenizer) VocabSize() int { return t.size }

// UnkID is the unknown token's id.
func (t *Tokenizer) UnkID() int { return t.unk }

// PadID is the padding token's id.
func (t *Tokenizer) PadID() int { return t.opt.Pad }

// MaxLen is the bound of an encoding (0: none).
func (t *Tokenizer) MaxLen() int { return t.opt.MaxLen }

// WithMaxLen returns a copy bounded to n tokens (a model's
// max_seq_length, when shorter than the tokenizer's own).
func (t *Tokenizer) WithMaxLen(n int) *Tokenizer {
	c := *t
	c.opt.MaxLen = n
	return &c
}

// ID is the id of token (false when it is not in the vocabulary).
func (t *Tokenizer) ID(token string) (int, bool) {
	id, ok := t.vocab[token]
	return id, ok
}

// EachToken calls fn with every vocabulary entry (added tokens
// included), in no particular order.
func (t *Tokenizer) EachToken(fn func(token string, id int)) {
	for tok, id := range t.vocab {
		fn(tok, id)
	}
}

// IDs tokenizes text into ids without special tokens or truncation.
func (t *Tokenizer) IDs(text string) []int {
	var ids []int
	t.each(text, func(_ string, id int) { ids = append(ids, id) })
	return ids
}

// Tokens tokenizes text into vocabulary tokens without special tokens or
// truncation ("unwanted" -> "un", "##want", "##ed").
func (t *Tokenizer) Tokens(text string) []string {
	var toks []string
	t.each(text, func(tok string, _ int) { toks = append(toks, tok) })
	return toks
}

// Encode is the model input for one text: the single template around
// its ids, truncated to MaxLen.
func (t *Tokenizer) Encode(text string) Encoding {
	a := t.IDs(text)
	if t.opt.MaxLen > 0 {
		a = a[:min(len(a), max(t.opt.MaxLen-t.nAddS, 0))]
	}
	return t.build(t.opt.Single, a, nil)
}

// EncodePair is the model input for a pair (a cross-encoder's query and
// passage): the pair template, truncated longest first as the tokenizers
// library does: when both exceed half the budget the shorter keeps
// floor(budget/2) and the longer the rest (the first sequence when they
// are as long); otherwise the shorter is kept whole.
func (t *Tokenizer) EncodePair(a, b string) Encoding {
	x, y := t.IDs(a), t.IDs(b)
	if t.opt.MaxLen > 0 {
		budget := max(t.opt.MaxLen-t.nAddP, 0)
		if len(x)+len(y) > budget {
			n1, n2 := len(x), len(y)
			swap := n1 > n2
			if swap {
				n1, n2 = n2, n1
			}
			if n1 > budget {
				n2 = n1
			} else {
				n2 = max(n1, budget-n1)
			}
			if n1+n2 > budget {
				n1 = budget / 2
				n2 = n1 + budget%2
			}
			if swap {
				n1, n2 = n2, n1
			}
			x, y = x[:min(len(x), n1)], y[:min(len(y), n2)]
		}
	}
	return t.build(t.opt.Pair, x, y)
}

// build fills a template.
func (t *Tokenizer) build(tmpl []Piece, a, b []int) Encoding {
	if tmpl == nil {
		tmpl = []Piece{{Seq: 0}, {Seq: 1, TypeID: 1}}
	}
	var e Encoding
	for _, p := range tmpl {
		ids := p.IDs
		switch p.Seq {
		case 0:
			ids = a
		case 1:
			ids = b
		}
		for _, id := range ids {
			e.IDs = append(e.IDs, id)
			e.TypeIDs = append(e.TypeIDs, p.TypeID)
			e.Mask = append(e.Mask, 1)
		}
	}
	return e
}

// Pad pads encodings to the longest with the padding id, type 0 and
// mask 0, in place, and returns that length.
func (t *Tokenizer) Pad(encs []Encoding) int {
	n := 0
	for _, e := range encs {
		n = max(n, len(e.IDs))
	}
	for i := range encs {
		for len(encs[i].IDs) < n {
			encs[i].IDs = append(encs[i].IDs, t.opt.Pad)
			encs[i].TypeIDs = append(encs[i].TypeIDs, 0)
			encs[i].Mask = append(encs[i].Mask, 0)
		}
	}
	return n
}

// each tokenizes text, calling emit with every vocabulary token and its
// id: special tokens are cut out of the raw text first, the rest is
// normalized, split into words and each word into WordPiece pieces.
func (t *Tokenizer) each(text string, emit func(string, int)) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	for text != "" {
		at, name := t.nextSpecial(text)
		t.plain(text[:at], emit)
		if name == "" {
			return
		}
		emit(name, t.special[name])
		text = text[at+len(name):]
	}
}

// nextSpecial finds the first special token in s (the longest at a
// position); at is len(s) and name "" when there is none.
func (t *Tokenizer) nextSpecial(s string) (at int, name string) {
	at = len(s)
	if len(t.special) == 0 {
		return at, ""
	}
	for sp := range t.special {
		i := strings.Index(s[:min(len(s), at+len(sp))], sp)
		if i >= 0 && (i < at || i == at && len(sp) > len(name)) {
			at, name = i, sp
		}
	}
	return at, name
}

// plain tokenizes text that holds no special token.
func (t *Tokenizer) plain(s string, emit func(string, int)) {
	if s == "" {
		return
	}
	for _, st := range t.steps {
		s = st(s)
	}
	var buf []byte
	preTokenize(s, t.opt.SplitPunct, func(word string) {
		buf = t.wordPiece(word, buf, emit)
	})
}

// wordPiece splits one word by greedy longest match: the longest prefix
// in the vocabulary, then the longest "##"-prefixed continuation of the
// rest, and so on; a word with a part that matches nothing, or longer
// than MaxChars characters, is the unknown token. buf is scratch space,
// returned for reuse.
func (t *Tokenizer) wordPiece(word string, buf []byte, emit func(string, int)) []byte {
	if utf8.RuneCountInString(word) > t.opt.MaxChars {
		emit(t.opt.Unk, t.unk)
		return buf
	}
	type piece struct {
		tok string
		id  int
	}
	var pieces [16]piece
	out := pieces[:0]
	for start := 0; start < len(word); {
		found := false
		for end := len(word); end > start; {
			buf = buf[:0]
			if start > 0 {
				buf = append(buf, t.opt.Prefix...)
			}
			buf = append(buf, word[start:end]...)
			if id, ok := t.vocab[string(buf)]; ok { // no allocation for the lookup
				out = append(out, piece{string(buf), id})
				start, found = end, true
				break
			}
			// Step back one character, not one byte.
			_, w := utf8.DecodeLastRuneInString(word[start:end])
			end -= w
		}
		if !found {
			emit(t.opt.Unk, t.unk)
			return buf
		}
	}
	for _, p := range out {
		emit(p.tok, p.id)
	}
	return buf
}
