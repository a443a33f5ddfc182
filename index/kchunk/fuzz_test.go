package kchunk

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
)

// FuzzSplit: any text, any strategy and limit, never a panic, and every
// property of check holds.
func FuzzSplit(f *testing.F) {
	f.Add("Hello world. How are you?", uint8(0), uint16(16))
	f.Add("# T\n\n```\ncode\n```\n\nText.", uint8(3), uint16(8))
	f.Add("Title\n=====\n\n~~~\nunclosed", uint8(3), uint16(4))
	f.Add("He paused... then walked away. The room was silent.", uint8(2), uint16(5))
	f.Add("\xff\xfe<|endoftext|>   \n\n\n", uint8(1), uint16(1))
	f.Add(" \u00a0no-break\u3000spaces\u00a0\n", uint8(1), uint16(1)) // Unicode white space is trimmed too
	names := []string{"a.txt", "b.txt", "c.txt", "d.md"}
	strategies := []string{FixedSize, Recursive, Semantic, ""}
	f.Fuzz(func(t *testing.T, text string, which uint8, max uint16) {
		if len(text) > 4096 {
			return
		}
		limit := 1 + int(max)%600
		i := int(which) % len(names)
		o := Options{Strategy: strategies[i], MaxTokens: limit, Embed: topicEmbed}
		cs, err := Split(context.Background(), names[i], text, o)
		if !utf8.ValidString(text) {
			if !errors.Is(err, cerrors.ErrInvalid) {
				t.Fatalf("invalid UTF-8: err = %v, want ErrInvalid", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		check(t, names[i], text, cs, limit)
	})
}
