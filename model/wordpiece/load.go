package wordpiece

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"golang.org/x/text/unicode/norm"
)

// errf is a malformed-tokenizer error.
func errf(format string, args ...any) error {
	return fmt.Errorf("tokenizer: %s: %w", fmt.Sprintf(format, args...), cerrors.ErrMalformed)
}

// Load reads the tokenizer of a model folder: tokenizer.json when the
// folder has one (the tokenizers library's format, which
// sentence-transformers uses), else vocab.txt with the options of
// tokenizer_config.json (transformers' BertTokenizer). Errors name the
// file and wrap cerrors.ErrMalformed, cerrors.ErrUnsupported (a
// tokenizer that is not WordPiece) or fs.ErrNotExist (neither file).
func Load(dir string) (*Tokenizer, error) {
	p := filepath.Join(dir, "tokenizer.json")
	data, err := os.ReadFile(p)
	if err == nil {
		t, err := FromTokenizerJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return t, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	vp := filepath.Join(dir, "vocab.txt")
	vocab, err := os.ReadFile(vp)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("model folder %s has neither tokenizer.json nor vocab.txt: %w", dir, fs.ErrNotExist)
		}
		return nil, err
	}
	cp := filepath.Join(dir, "tokenizer_config.json")
	cfg, err := os.ReadFile(cp)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	t, err := FromVocab(vocab, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vp, err)
	}
	return t, nil
}

// FromVocab builds a tokenizer from vocab.txt (one token per line, its
// id the line number) and tokenizer_config.json (nil for the defaults:
// uncased BERT). Of the configuration it reads do_lower_case,
// strip_accents (null: follow do_lower_case), tokenize_chinese_chars,
// never_split, model_max_length and the special tokens' names.
func FromVocab(vocabTxt, configJSON []byte) (*Tokenizer, error) {
	vocab := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(vocabTxt))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		// transformers strips only the newline: a token keeps its other
		// spaces.
		vocab[sc.Text()] = n
		n++
	}
	if err := sc.Err(); err != nil {
		return nil, errf("vocab.txt: %v", err)
	}
	opt := BertOptions()
	if len(configJSON) > 0 {
		var cfg struct {
			DoLower        *bool           `json:"do_lower_case"`
			StripAccents   *bool           `json:"strip_accents"`
			CJK            *bool           `json:"tokenize_chinese_chars"`
			NeverSplit     []string        `json:"never_split"`
			ModelMaxLength *float64        `json:"model_max_length"`
			Unk            json.RawMessage `json:"unk_token"`
			Cls            json.RawMessage `json:"cls_token"`
			Sep            json.RawMessage `json:"sep_token"`
			Pad            json.RawMessage `json:"pad_token"`
			Mask           json.RawMessage `json:"mask_token"`
		}
		if err := json.Unmarshal(configJSON, &cfg); err != nil {
			return nil, errf("tokenizer_config.json: %v", err)
		}
		if cfg.DoLower != nil {
			opt.Lower = *cfg.DoLower
		}
		// transformers: accents are stripped when strip_accents is true,
		// or when it is null and the text is lower-cased.
		opt.StripAccents = opt.Lower
		if cfg.StripAccents != nil {
			opt.StripAccents = *cfg.StripAccents
		}
		if cfg.CJK != nil {
			opt.CJK = *cfg.CJK
		}
		// model_max_length is a huge sentinel (1e30) when unset.
		if m := cfg.ModelMaxLength; m != nil && *m > 0 && *m < 1<<20 {
			opt.MaxLen = int(*m)
		}
		names := []string{}
		for i, raw := range []json.RawMessage{cfg.Unk, cfg.Sep, cfg.Pad, cfg.Cls, cfg.Mask} {
			name := tokenName(raw)
			if name == "" {
				name = opt.Specials[i]
			}
			names = append(names, name)
		}
		opt.Unk = names[0]
		opt.Specials = append(names, cfg.NeverSplit...)
		if cls, ok := vocab[names[3]]; ok {
			if sep, ok := vocab[names[1]]; ok {
				opt.Single, opt.Pair = BertTemplates(cls, sep)
			}
		}
		opt.Pad = vocab[names[2]]
	} else {
		opt.Pad = vocab["[PAD]"]
	}
	return New(vocab, opt)
}

// tokenName reads a special token given as a string or as an
// {"content": ...} object.
func tokenName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Content
	}
	return ""
}

// tokenizerJSON is the part of tokenizer.json a WordPiece model uses.
type tokenizerJSON struct {
	Truncation *struct {
		MaxLength int    `json:"max_length"`
		Strategy  string `json:"strategy"`
		Direction string `json:"direction"`
	} `json:"truncation"`
	Padding *struct {
		PadID int `json:"pad_id"`
	} `json:"padding"`
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         struct {
		Type     string         `json:"type"`
		Unk      string         `json:"unk_token"`
		Prefix   *string        `json:"continuing_subword_prefix"`
		MaxChars int            `json:"max_input_chars_per_word"`
		Vocab    map[string]int `json:"vocab"`
	} `json:"model"`
}

// component is a normalizer, pre-tokenizer or post-processor entry.
type component struct {
	Type string `json:"type"`
	// BertNormalizer
	CleanText    *bool `json:"clean_text"`
	HandleCJK    *bool `json:"handle_chinese_chars"`
	StripAccents *bool `json:"strip_accents"`
	Lowercase    *bool `json:"lowercase"`
	// Sequence
	Normalizers   []json.RawMessage `json:"normalizers"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	// BertProcessing
	Sep []json.RawMessage `json:"sep"`
	Cls []json.RawMessage `json:"cls"`
	// TemplateProcessing
	Single        []map[string]templateItem `json:"single"`
	Pair          []map[string]templateItem `json:"pair"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
}

type templateItem struct {
	ID     string `json:"id"`
	TypeID int    `json:"type_id"`
}

// FromTokenizerJSON builds a tokenizer from the tokenizers library's
// tokenizer.json. The model must be WordPiece (cerrors.ErrUnsupported
// otherwise: BPE and Unigram tokenizers are not implemented); the
// normalizer BertNormalizer, or a Sequence of Lowercase, NFD, NFC, NFKD,
// NFKC, StripAccents, Strip and BertNormalizer applied in order; the
// pre-tokenizer BertPreTokenizer or WhitespaceSplit; the post-processor
// BertProcessing or TemplateProcessing (or absent: no special tokens).
func FromTokenizerJSON(data []byte) (*Tokenizer, error) {
	var tj tokenizerJSON
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, errf("not a tokenizer.json: %v", err)
	}
	if tj.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("tokenizer: model type %q is not supported (only WordPiece, the BERT tokenizer): %w",
			tj.Model.Type, cerrors.ErrUnsupported)
	}
	if len(tj.Model.Vocab) == 0 {
		return nil, errf("model.vocab is empty")
	}
	opt := Options{Unk: tj.Model.Unk, Prefix: "##", MaxChars: tj.Model.MaxChars}
	if tj.Model.Prefix != nil {
		opt.Prefix = *tj.Model.Prefix
	}
	vocab := make(map[string]int, len(tj.Model.Vocab)+len(tj.AddedTokens))
	for k, v := range tj.Model.Vocab {
		vocab[k] = v
	}
	for _, a := range tj.AddedTokens {
		if a.ID < 0 {
			return nil, errf("added token %q has a negative id", a.Content)
		}
		vocab[a.Content] = a.ID
		opt.Specials = append(opt.Specials, a.Content)
	}
	if err := normalizerOptions(tj.Normalizer, &opt); err != nil {
		return nil, err
	}
	opt.SplitPunct = true
	if err := preTokenizerOptions(tj.PreTokenizer, &opt); err != nil {
		return nil, err
	}
	if err := postOptions(tj.PostProcessor, &opt); err != nil {
		return nil, err
	}
	if opt.Single == nil && opt.Pair == nil {
		// No post-processor: no special tokens (the pair's second text
		// still gets type 1, as the library encodes it).
		opt.Single, opt.Pair = []Piece{{Seq: 0}}, []Piece{{Seq: 0}, {Seq: 1, TypeID: 1}}
	}
	if tj.Truncation != nil && tj.Truncation.MaxLength > 0 {
		opt.MaxLen = tj.Truncation.MaxLength
	}
	if tj.Padding != nil {
		opt.Pad = tj.Padding.PadID
	} else {
		opt.Pad = vocab["[PAD]"]
	}
	t, err := New(vocab, opt)
	if err != nil {
		return nil, err
	}
	for _, p := range append(slices.Clone(t.opt.Single), t.opt.Pair...) {
		for _, id := range p.IDs {
			if id < 0 || id >= t.size {
				return nil, errf("post_processor's special token id %d is outside the vocabulary (%d)", id, t.size)
			}
		}
	}
	if opt.Pad < 0 || opt.Pad >= t.size {
		return nil, errf("padding id %d is outside the vocabulary (%d)", opt.Pad, t.size)
	}
	return t, nil
}

func decodeComponent(raw json.RawMessage, what string) (*component, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, errf("%s: %v", what, err)
	}
	return &c, nil
}

func unsupported(what, typ string) error {
	return fmt.Errorf("tokenizer: %s %q is not supported: %w", what, typ, cerrors.ErrUnsupported)
}

// normalizerOptions maps the normalizer onto Options: BertNormalizer
// onto its flags; a Sequence onto its steps in order (Lowercase, NFD,
// NFC, NFKD, NFKC, StripAccents, which drops the nonspacing marks
// without decomposing, as the library's does, Strip, which cannot change
// a token, and nested BertNormalizer and Sequence).
func normalizerOptions(raw json.RawMessage, opt *Options) error {
	c, err := decodeComponent(raw, "normalizer")
	if c == nil || err != nil {
		return err
	}
	if c.Type == "BertNormalizer" {
		opt.CleanText, opt.CJK, opt.StripAccents, opt.Lower = bertFlags(c)
		return nil
	}
	steps, err := normalizerSteps(c, 0)
	if err != nil {
		return err
	}
	opt.steps = steps
	return nil
}

// normalizerSteps lists the steps of one normalizer; depth bounds the
// nesting of Sequences.
func normalizerSteps(c *component, depth int) ([]step, error) {
	if depth > 8 {
		return nil, errf("normalizer: Sequences nested too deep")
	}
	steps := []step{}
	switch c.Type {
	case "BertNormalizer":
		return bertSteps(bertFlags(c)), nil
	case "Sequence":
		for _, r := range c.Normalizers {
			sub, err := decodeComponent(r, "normalizer")
			if err != nil {
				return nil, err
			}
			if sub == nil {
				continue
			}
			s, err := normalizerSteps(sub, depth+1)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
	case "Lowercase":
		steps = append(steps, lower)
	case "StripAccents":
		steps = append(steps, dropMarks)
	case "NFD":
		steps = append(steps, norm.NFD.String)
	case "NFC":
		steps = append(steps, norm.NFC.String)
	case "NFKD":
		steps = append(steps, norm.NFKD.String)
	case "NFKC":
		steps = append(steps, norm.NFKC.String)
	case "Strip":
		// Trims whitespace at the ends, which the pre-tokenizer drops.
	default:
		return nil, unsupported("normalizer", c.Type)
	}
	return steps, nil
}

// bertFlags reads BertNormalizer's options with the library's defaults:
// all on, and strip_accents null following lowercase.
func bertFlags(c *component) (clean, cjk, strip, lowerCase bool) {
	on := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	lowerCase = on(c.Lowercase, true)
	return on(c.CleanText, true), on(c.HandleCJK, true), on(c.StripAccents, lowerCase), lowerCase
}

// preTokenizerOptions: BertPreTokenizer splits at whitespace and
// punctuation, WhitespaceSplit at whitespace only.
func preTokenizerOptions(raw json.RawMessage, opt *Options) error {
	c, err := decodeComponent(raw, "pre_tokenizer")
	if c == nil || err != nil {
		return err
	}
	switch c.Type {
	case "BertPreTokenizer":
		opt.SplitPunct = true
	case "WhitespaceSplit":
		opt.SplitPunct = false
	case "Sequence":
		punct := false
		for _, r := range c.PreTokenizers {
			sub, err := decodeComponent(r, "pre_tokenizer")
			if err != nil {
				return err
			}
			switch {
			case sub == nil:
			case sub.Type == "BertPreTokenizer":
				punct = true
			case sub.Type == "WhitespaceSplit":
			default:
				return unsupported("pre_tokenizer", sub.Type)
			}
		}
		opt.SplitPunct = punct
	default:
		return unsupported("pre_tokenizer", c.Type)
	}
	return nil
}

// postOptions reads the special-token templates.
func postOptions(raw json.RawMessage, opt *Options) error {
	c, err := decodeComponent(raw, "post_processor")
	if c == nil || err != nil {
		return err
	}
	switch c.Type {
	case "BertProcessing":
		cls, err1 := tokenID(c.Cls)
		sep, err2 := tokenID(c.Sep)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		opt.Single, opt.Pair = BertTemplates(cls, sep)
	case "TemplateProcessing":
		var err error
		if opt.Single, err = template(c, c.Single); err != nil {
			return err
		}
		if opt.Pair, err = template(c, c.Pair); err != nil {
			return err
		}
	case "Sequence":
		for _, r := range c.Processors {
			sub, err := decodeComponent(r, "post_processor")
			if err != nil {
				return err
			}
			if sub != nil && sub.Type != "ByteLevel" {
				if err := postOptions(r, opt); err != nil {
					return err
				}
			}
		}
	default:
		return unsupported("post_processor", c.Type)
	}
	return nil
}

// tokenID reads BertProcessing's ["[CLS]", 101].
func tokenID(pair []json.RawMessage) (int, error) {
	var id int
	if len(pair) != 2 || json.Unmarshal(pair[1], &id) != nil {
		return 0, errf("post_processor: a special token must be [name, id]")
	}
	return id, nil
}

// template reads TemplateProcessing's items: {"SpecialToken": {"id":
// "[CLS]", "type_id": 0}} or {"Sequence": {"id": "A", "type_id": 0}}.
func template(c *component, items []map[string]templateItem) ([]Piece, error) {
	var out []Piece
	for _, it := range items {
		if s, ok := it["Sequence"]; ok {
			seq := strings.Index("AB", s.ID)
			if len(s.ID) != 1 || seq < 0 {
				return nil, errf("post_processor: sequence %q is not A or B", s.ID)
			}
			out = append(out, Piece{Seq: seq, TypeID: s.TypeID})
			continue
		}
		s, ok := it["SpecialToken"]
		if !ok {
			return nil, errf("post_processor: template item is neither Sequence nor SpecialToken")
		}
		st, ok := c.SpecialTokens[s.ID]
		if !ok {
			return nil, errf("post_processor: special token %q is not in special_tokens", s.ID)
		}
		out = append(out, Piece{Seq: -1, IDs: st.IDs, TypeID: s.TypeID})
	}
	if out == nil {
		out = []Piece{}
	}
	return out, nil
}
