package kchunk

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The heap merge of long pieces gives the token lengths the rescanning
// merge gives, on pieces of repeated letters, of words run together and
// of random bytes.
func TestMergeLongMatchesScan(t *testing.T) {
	tk, err := defaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"x", "ab", "the", "token", "ization", "zz", "é", "日本", "qu", "ing"}
	for i := range 300 {
		var b strings.Builder
		n := longPiece + 1 + r.IntN(1500)
		for b.Len() < n {
			switch i % 3 {
			case 0:
				b.WriteString(strings.Repeat(words[r.IntN(3)], 1+r.IntN(40)))
			case 1:
				b.WriteString(words[r.IntN(len(words))])
			default:
				b.WriteByte(byte(r.IntN(256)))
			}
		}
		piece := b.String()
		if got, want := tk.mergeLong(piece), tk.mergeScan(piece); !slices.Equal(got, want) {
			t.Fatalf("piece %.60q (%d bytes): heap merge %v, scan %v", piece, len(piece), got, want)
		}
	}
}

// A document that is one word of 262,144 letters (the text of a PDF
// whose page shows x that many times) is counted in well under a second
// of CPU (it was more than three minutes).
func TestLongWordCounted(t *testing.T) {
	tk, err := defaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n := tk.Count(strings.Repeat("x", 1<<18))
	if n == 0 {
		t.Fatal("no tokens")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("counting one word of 262,144 letters took %v", took)
	}
	if _, err := Split(context.Background(), "x.txt", strings.Repeat("x", 1<<16), Options{Strategy: "Recursive"}); err != nil {
		t.Fatal(err)
	}
}
