package contextd_test

import (
	"encoding/base64"
	"testing"

	"github.com/contextd/contextd"
)

// FuzzDecodeKnowledgeBase64 checks the lenient base64 reader of uploads:
// whatever it accepts round-trips, and whitespace anywhere is ignored.
func FuzzDecodeKnowledgeBase64(f *testing.F) {
	f.Add("aGVsbG8=")
	f.Add("aGVs\nbG8=")
	f.Add("!!!not-base64!!!")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := contextd.DecodeKnowledgeBase64(s)
		if err != nil {
			return
		}
		if again, err := contextd.DecodeKnowledgeBase64(base64.StdEncoding.EncodeToString(b)); err != nil || string(again) != string(b) {
			t.Fatalf("round trip of %q failed", s)
		}
	})
}
