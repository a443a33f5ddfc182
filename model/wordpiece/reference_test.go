package wordpiece

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestPythonReference compares every case of testdata/reference.json,
// written by testdata/bert_reference.py (an independent Python
// implementation of the same rules whose character classes come from
// Python's unicodedata), in each of the four lower-case/strip-accents
// modes: 270 texts, 250 of them random strings over every character
// class the rules distinguish.
func TestPythonReference(t *testing.T) {
	ref := readReference(t)
	vocab := vocabOf(ref.Vocab...)
	if len(ref.Cases) < 200 || len(ref.Modes) != 4 {
		t.Fatalf("reference has %d cases and %d modes", len(ref.Cases), len(ref.Modes))
	}
	fails := 0
	for m, mode := range ref.Modes {
		o := BertOptions()
		o.Lower, o.StripAccents = mode[0], mode[1]
		tok := mustNew(t, vocab, o)
		for _, c := range ref.Cases {
			got := tok.IDs(c.Text)
			if !slices.Equal(got, c.IDs[m]) && (len(got) > 0 || len(c.IDs[m]) > 0) {
				fails++
				if fails <= 10 {
					t.Errorf("lower=%v strip=%v %q:\n got  %q\n want %q", mode[0], mode[1], c.Text,
						names(ref.Vocab, got), names(ref.Vocab, c.IDs[m]))
				}
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d cases differ", fails, len(ref.Cases)*len(ref.Modes))
	}
}

// pyReference is testdata/reference.json.
type pyReference struct {
	Modes [][2]bool `json:"modes"`
	Vocab []string  `json:"vocab"`
	Cases []struct {
		Text string  `json:"text"`
		IDs  [][]int `json:"ids"`
	} `json:"cases"`
}

func readReference(tb testing.TB) pyReference {
	tb.Helper()
	var ref pyReference
	data, err := os.ReadFile("testdata/reference.json")
	if err == nil {
		err = json.Unmarshal(data, &ref)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return ref
}

func names(vocab []string, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = vocab[id]
	}
	return out
}
