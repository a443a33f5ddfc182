package wordpiece

import "testing"

// BenchmarkEncode: Encode of English sentences (ASCII) and of accented
// text, on the reference vocabulary.
func BenchmarkEncode(b *testing.B) {
	ref := readReference(b)
	tok, err := New(vocabOf(ref.Vocab...), BertOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, text string }{
		{"ascii", "The quick brown fox jumps over the lazy dog near the database server, again and again."},
		{"accented", "Über die Straße ging ein naïve Café-Besitzer mit seinem Hündchen, très élégant."},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tok.Encode(c.text)
			}
		})
	}
}
