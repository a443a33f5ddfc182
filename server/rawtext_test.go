package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestDecodePreservingKeepsInvalidText(t *testing.T) {
	cases := []struct {
		raw  string
		want string // the decoded string value
	}{
		{`"a\ud800b"`, "a\xed\xa0\x80b"},
		{`"\udc00"`, "\xed\xb0\x80"},
		{`"\ud800\ud800"`, "\xed\xa0\x80\xed\xa0\x80"},
		{`"\ud800\u0041"`, "\xed\xa0\x80A"},
		{`"\ud83d\ude00"`, "😀"},
		{"\"\xff\xfe\xc3\"", "\xff\xfe\xc3"},
		{`"\u00e9\n\t\"\\\/"`, "é\n\t\"\\/"},
		{`"\\ud800"`, `\ud800`}, // an escaped backslash: plain text
	}
	for _, c := range cases {
		v, err := decodePreserving([]byte(c.raw))
		if err != nil || v != c.want {
			t.Fatalf("%s: got %q %v, want %q", c.raw, v, err, c.want)
		}
		if s := v.(string); utf8.ValidString(s) != utf8.ValidString(c.want) {
			t.Fatalf("%s: validity changed", c.raw)
		}
	}
	for _, bad := range []string{`"\ud80"`, `"\x"`, `{"a":}`, `[1,]`, `01`, `-`, `1e`, `"a`, "\"\x01\"", `{} {}`, `tru`} {
		if _, err := decodePreserving([]byte(bad)); err == nil {
			t.Fatalf("%q: accepted", bad)
		}
	}
}

// FuzzDecodePreserving: every document encoding/json accepts is accepted,
// and where the text is valid UTF-8 without surrogate escapes the result
// equals encoding/json's (with UseNumber).
func FuzzDecodePreserving(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true,{"b":"\u00e9"}]}`, `"\ud800"`, "\"\xff\"", `[]`, `{"a":{"a":1},"a":2}`, ` 1e3 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodePreserving(b)
		if !json.Valid(b) {
			return
		}
		if err != nil {
			t.Fatalf("%q: valid JSON refused: %v", b, err)
		}
		if mayHoldInvalidText(b) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, want %#v", b, got, want)
		}
	})
}
