package syncplan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

var digest = strings.Repeat("ab", 32)

// TestParseBlock_A9: what makes an ingest block valid.
func TestParseBlock_A9(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"scope":"kb:a","source_id":"a.md","meta_digest":"` + digest + `","synced_at":"2026-12-03T02:00:00Z"}`:                             true,
		`{"scope":"kb:a","source_id":"a.md","meta_digest":"` + digest + `","synced_at":"2026-12-03T02:00:00.123456"}`:                       true,
		`{"scope":"kb:a","source_id":"a.md","meta_digest":"` + digest + `","synced_at":"2026-12-03 02:00:00+00:00","x":1}`:                  true,
		`{"scope":"","source_id":"a.md","meta_digest":"` + digest + `","synced_at":"2026-12-03T02:00:00Z"}`:                                 false,
		`{"scope":"kb:a","source_id":"","meta_digest":"` + digest + `","synced_at":"2026-12-03T02:00:00Z"}`:                                 false,
		`{"scope":"kb:a","source_id":"` + strings.Repeat("é", 257) + `","meta_digest":"` + digest + `","synced_at":"2026-12-03T02:00:00Z"}`: false,
		`{"scope":"kb:a","source_id":"a","meta_digest":"` + strings.ToUpper(digest) + `","synced_at":"2026-12-03T02:00:00Z"}`:               false,
		`{"scope":"kb:a","source_id":"a","meta_digest":"` + digest + `","synced_at":"soon"}`:                                                false,
		`{"scope":"kb:a","source_id":"a","meta_digest":"` + digest + `","synced_at":null}`:                                                  false,
		`{"scope":"kb:a","source_id":"a","meta_digest":"` + digest + `"}`:                                                                   false,
		`[1,2]`: false,
	} {
		if _, ok := ParseBlock(json.RawMessage(raw)); ok != want {
			t.Errorf("%s: valid %v, want %v", raw, ok, want)
		}
	}
}

// TestCursorRoundTrip_R152: a cursor reads back to its position; anything
// else is "invalid cursor".
func TestCursorRoundTrip_R152(t *testing.T) {
	pos := persist.IngestPos{SourceID: "docs/ünï.md", ID: strings.Repeat("0a", 16)}
	got, err := decodeCursor(encodeCursor(pos))
	if err != nil || got != pos {
		t.Fatalf("%v %v", got, err)
	}
	for _, c := range []string{"", "!!", encodeCursor(persist.IngestPos{SourceID: "", ID: pos.ID}),
		encodeCursor(persist.IngestPos{SourceID: "a", ID: "XYZ"})} {
		_, err := decodeCursor(c)
		if !errors.Is(err, cerrors.ErrInvalid) || err.Error() != "invalid cursor" {
			t.Errorf("%q: %v", c, err)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(persist.IngestPos{SourceID: "a", ID: strings.Repeat("0", 32)}))
	f.Add("W10")
	f.Fuzz(func(t *testing.T, s string) {
		pos, err := decodeCursor(s)
		if err != nil {
			return
		}
		if again, err := decodeCursor(encodeCursor(pos)); err != nil || again != pos {
			t.Fatalf("round trip of %q: %v %v", s, again, err)
		}
	})
}

func FuzzParseBlock(f *testing.F) {
	f.Add(`{"scope":"kb:a","source_id":"a.md","meta_digest":"` + digest + `","synced_at":"2026-12-03T02:00:00Z"}`)
	f.Add(`{"scope":1}`)
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := ParseBlock(json.RawMessage(s))
		if ok && (b.Scope == "" || !IsDigest(b.MetaDigest) || b.SourceID == "") {
			t.Fatalf("accepted %q", s)
		}
	})
}

// FuzzValidate: any manifest item either validates into an item that
// round-trips through Arg, or is refused with ErrInvalid; never a panic.
func FuzzValidate(f *testing.F) {
	f.Add(`[{"source_id":"a","text_digest":"`+digest+`","meta_digest":"`+digest+`"},{"source_id":"b","keep":true}]`, "", "")
	f.Add(`[{"source_id":"a","keep":"yes"}]`, "a", "b")
	f.Fuzz(func(t *testing.T, manifest, after, through string) {
		var m []map[string]any
		if json.Unmarshal([]byte(manifest), &m) != nil {
			return
		}
		req := PlanRequest{ThreadID: "kb:f", Manifest: m, AllowEmptyManifest: true}
		if after != "" {
			req.SourceIDAfter = &after
		}
		if through != "" {
			req.SourceIDThrough = &through
		}
		items, err := validate(req)
		if err != nil {
			if !errors.Is(err, cerrors.ErrInvalid) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		for i, it := range items {
			again, err := parseItem(i, it.Arg())
			if err != nil || again != it {
				t.Fatalf("item %d does not round-trip: %v %v", i, again, err)
			}
		}
	})
}
