package knowledge

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// FuzzDecodeBase64 checks the lenient base64 reader: whatever it accepts
// round-trips, and whitespace anywhere is ignored.
func FuzzDecodeBase64(f *testing.F) {
	f.Add("aGVsbG8=")
	f.Add("aGVs\nbG8=")
	f.Add("!!!not-base64!!!")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := decodeBase64(s)
		if err != nil {
			return
		}
		if again, err := decodeBase64(base64.StdEncoding.EncodeToString(b)); err != nil || string(again) != string(b) {
			t.Fatalf("round trip of %q failed", s)
		}
	})
}

// FuzzReadArgs feeds arbitrary JSON objects to the argument reader of
// search_knowledge: it never panics, and a value it accepts has the
// declared type.
func FuzzReadArgs(f *testing.F) {
	f.Add(`{"query":"x","topK":3,"minScore":0.5}`)
	f.Add(`{"topK":1.5}`)
	f.Add(`{"query":7,"topK":"ten"}`)
	params := []param{{"query", "string", "", true}, {"topK", "integer", "", false}, {"minScore", "number", "", false}}
	f.Fuzz(func(t *testing.T, s string) {
		var raw map[string]any
		if json.Unmarshal([]byte(s), &raw) != nil {
			return
		}
		a, msg := readArgs(params, raw)
		if msg != "" {
			return
		}
		if v, ok := a.nums["topK"]; ok && v != float64(int64(v)) {
			t.Fatalf("topK %v accepted as an integer", v)
		}
	})
}

func TestN0(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234: "1,234", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := n0(n); got != want {
			t.Errorf("n0(%d) = %q, want %q", n, got, want)
		}
	}
}
