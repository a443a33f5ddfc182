package kchunk

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

// oracle is tiktoken-go's cl100k_base encoder on the same ranks, the
// reference the hand-written pre-tokeniser and merge are checked against.
var oracle = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	t, err := defaultTokenizer()
	if err != nil {
		return nil, err
	}
	bpe, err := tiktoken.NewCoreBPE(t.ranks, map[string]int{"<|endoftext|>": 100257}, cl100kPattern)
	if err != nil {
		return nil, err
	}
	return tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{Name: "cl100k_base", PatStr: cl100kPattern, MergeableRanks: t.ranks}, map[string]any{}), nil
})

func sameAsOracle(t *testing.T, s string) {
	t.Helper()
	o, err := oracle()
	if err != nil {
		t.Fatal(err)
	}
	want := o.EncodeOrdinary(s)
	got := tok(t).Encode(s)
	if !slices.Equal(got, want) {
		t.Fatalf("Encode(%q)\n got %v\nwant %v (tiktoken-go)", s, got, want)
	}
}

// TestEncoderOracle: the encoder gives tiktoken-go's ids on the golden
// documents, code, numbers, contractions, white-space runs and random
// Unicode text.
func TestEncoderOracle(t *testing.T) {
	docs, _ := filepath.Glob("../../testdata/knowledge/golden/docs/*")
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sameAsOracle(t, string(b))
	}
	for _, s := range []string{
		"Hello world", "I'm sure they'll say it's JOHN'S car, we'd've", "'S 'RE 'Ve '",
		"1234567 12.5% 3,14159 ١٢٣٤ ⅫⅩ ²³", "a  b   c\t\td \n\n\n  e \r\n f  ",
		"trailing spaces   ", "   leading", "x\u00a0y\u2003z\u3000w", "\u0085\u2028\u2029",
		"func main() {\n\tfmt.Println(\"hi\") // ok\n}\n", "#!/bin/sh\necho $((1+2)) && ls -la | grep '^d'",
		"naïve café — “quoted” ‘text’ … ", "日本語のテキストと中文和한국어", "emoji 🎉🎉 👩‍👩‍👧 ok",
		"<|endoftext|> <|fim_prefix|>", " !!!\n\n?? ...", "\r\r\n\n \t", "a\u0301b\u0308",
	} {
		sameAsOracle(t, s)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []rune("ab Z9'\n\r\t .,!?-_é日🎉\u00a0\u2003١Ⅻ\u0301sStT")
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := rng.Intn(40); j > 0; j-- {
			b.WriteRune(alphabet[rng.Intn(len(alphabet))])
		}
		sameAsOracle(t, b.String())
	}
}

// FuzzEncoder compares the encoder with tiktoken-go on any valid UTF-8.
func FuzzEncoder(f *testing.F) {
	f.Add("Hello world")
	f.Add("it's  \n\n x")
	f.Add("١٢٣٤5 ⅫⅩ")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 || !utf8Valid(s) {
			return
		}
		sameAsOracle(t, s)
	})
}
