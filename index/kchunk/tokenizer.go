package kchunk

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/contextd/contextd/cerrors"
)

// cl100kURL names the BPE file; the offline loader resolves only its base
// name against the ranks embedded in tiktoken-go-loader, so nothing is
// downloaded at run time.
const cl100kURL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"

// cl100kPattern is cl100k_base's pre-tokenisation pattern (tiktoken).
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Tokenizer counts tokens with OpenAI's cl100k_base byte-pair encoding,
// the counter of the requirements (B3), on the ranks embedded by
// tiktoken-go-loader (bpe.go has the encoder). It is safe for concurrent
// use.
type Tokenizer struct {
	ranks map[string]int
}

// NewTokenizer loads cl100k_base from the ranks embedded in the binary.
// Loading takes about 150 ms (100,256 ranks decoded from base64, measured
// on the 2-core test machine), which is why Split shares one instance
// (defaultTokenizer) unless Options.Tokenizer names another.
func NewTokenizer() (*Tokenizer, error) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(cl100kURL)
	if err != nil || len(ranks) < 100000 {
		return nil, fmt.Errorf("%w: load cl100k_base ranks", cerrors.ErrUnavailable)
	}
	return &Tokenizer{ranks: ranks}, nil
}

// defaultTokenizer is loaded once per process: the ranks are immutable, so
// sharing them is not shared mutable state.
var defaultTokenizer = sync.OnceValues(NewTokenizer)

// Encode returns the cl100k_base token ids of s. Special tokens such as
// "<|endoftext|>" are encoded as ordinary text, never rejected.
func (t *Tokenizer) Encode(s string) []int {
	var ids []int
	at := 0
	t.walk(s, nil, func(end int) bool {
		ids = append(ids, t.ranks[s[at:end]])
		at = end
		return true
	})
	return ids
}

// Count is the number of tokens of s; whitespace-only text counts 0 (B3:
// CountTokens("Hello world") = 2, whitespace-only → 0).
func (t *Tokenizer) Count(s string) int { return t.count(s, nil) }

func (t *Tokenizer) count(s string, cache pieceCache) int {
	if strings.TrimSpace(s) == "" {
		return 0
	}
	n := 0
	t.walk(s, cache, func(int) bool { n++; return true })
	return n
}

// IndexAt is the byte index in s just after its first n tokens (B3's
// GetIndexAtTokenCount); n ≥ the token count gives len(s). A token that
// ends inside a multi-byte character moves the index to the end of that
// character, so s[:IndexAt(s, n)] is valid UTF-8 when s is.
func (t *Tokenizer) IndexAt(s string, n int) int { return t.indexAt(s, n, nil) }

func (t *Tokenizer) indexAt(s string, n int, cache pieceCache) int {
	if n <= 0 {
		return 0
	}
	at, seen := len(s), 0
	t.walk(s, cache, func(end int) bool {
		seen++
		if seen == n {
			at = end
			return false
		}
		return true
	})
	for at < len(s) && !utf8.RuneStart(s[at]) {
		at++
	}
	return at
}
