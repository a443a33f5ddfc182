package kchunk

import "testing"

// TestSentencesB3 checks the sentence segmenter against the golden cases
// of the requirements (B3).
func TestSentencesB3(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Hello world. How are you?", []string{"Hello world.", "How are you?"}},
		{"Dr. Smith works for the U.S. government.", []string{"Dr. Smith works for the U.S. government."}},
		{"The value is 3.14 and the price is $1.99.", []string{"The value is 3.14 and the price is $1.99."}},
		{"He paused... then walked away. The room was silent.", []string{"He paused... then walked away.", "The room was silent."}},
		{"What now? Run! Then he stopped.", []string{"What now?", "Run!", "Then he stopped."}},
		{"", nil},
		{"   \n\t ", nil},
		{"First paragraph without a stop\n\nsecond paragraph", []string{"First paragraph without a stop", "second paragraph"}},
		{"He said \"Stop.\" Then he left.", []string{"He said \"Stop.\"", "Then he left."}},
		{"See e.g. the manual. It helps.", []string{"See e.g. the manual.", "It helps."}},
	} {
		got := sentences(tc.text)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %d sentences %v, want %d", tc.text, len(got), texts(tc.text, got), len(tc.want))
			continue
		}
		for i, s := range got {
			if tc.text[s.start:s.end] != tc.want[i] {
				t.Errorf("%q: sentence %d = %q, want %q", tc.text, i, tc.text[s.start:s.end], tc.want[i])
			}
		}
	}
}

func texts(text string, spans []span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s.start:s.end]
	}
	return out
}
