package paraphrase

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const dir = "../../../testdata/paraphrase"

// TestSetShape holds the set to its stated shape: at least 50
// pairs of the four kinds, at least 400 distractors, and no query sharing
// more than one content word (stemmed, stop words removed) with its entry.
func TestSetShape(t *testing.T) {
	set, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pairs) < 50 || len(set.Distractors) < 400 {
		t.Fatalf("%d pairs and %d distractors, want >= 50 and >= 400", len(set.Pairs), len(set.Distractors))
	}
	kinds := map[string]int{}
	dev := 0
	for _, p := range set.Pairs {
		kinds[p.Kind]++
		if p.Dev() {
			dev++
		}
		if sh := Shared(p.Query, p.Entry); len(sh) > 1 {
			t.Errorf("pair %d: query %q shares %v with its entry", p.ID, p.Query, sh)
		}
	}
	for _, k := range []string{"incident", "decision", "preference", "task"} {
		if kinds[k] < 8 {
			t.Errorf("%d pairs of kind %s, want >= 8", kinds[k], k)
		}
	}
	if dev < 25 || len(set.Pairs)-dev < 25 {
		t.Errorf("splits of %d and %d pairs, want >= 25 each", dev, len(set.Pairs)-dev)
	}
	// A distractor that is one of the entries would make the answer
	// ambiguous.
	for _, d := range set.Distractors {
		for _, p := range set.Pairs {
			if d == p.Entry {
				t.Fatalf("distractor repeats entry %d", p.ID)
			}
		}
	}
}

func TestShared(t *testing.T) {
	got := Shared("the databases were migrating", "Database migrations: we migrated the data")
	slices.Sort(got)
	if want := []string{"databas", "migrat"}; !slices.Equal(got, want) {
		t.Fatalf("Shared = %v, want %v", got, want)
	}
	if got := Shared("what is it", "it is what it is"); len(got) != 0 {
		t.Fatalf("stop words shared: %v", got)
	}
}

func TestParsePairsRejects(t *testing.T) {
	for _, in := range []string{
		`{"id":1,"query":"q"}`,
		`{"id":0,"query":"q","entry":"e"}`,
		`{"id":1,"query":"q","entry":"e"}` + "\n" + `{"id":1,"query":"r","entry":"f"}`,
		`not json`,
	} {
		if _, err := parsePairs([]byte(in)); !errors.Is(err, ErrData) {
			t.Errorf("%q: err %v, want ErrData", in, err)
		}
	}
}

func FuzzParsePairs(f *testing.F) {
	f.Add([]byte(`{"id":1,"kind":"task","query":"q","entry":"e"}`))
	f.Add([]byte("\n\n{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		set, err := parsePairs(b)
		if err != nil {
			return
		}
		for _, p := range set.Pairs {
			if p.ID <= 0 || strings.TrimSpace(p.Query) == "" {
				t.Fatalf("accepted %+v", p)
			}
		}
	})
}
