package search

import (
	"context"
	"slices"
	"testing"

	"github.com/contextd/contextd/persist"
)

// partsSource is an index source that tells text sizes and releases:
// it records each AccessDocs call's ids and, for each release, how many
// AccessDocs calls came before it.
type partsSource struct {
	persist.IndexSource // never called: IndexDocs would read the texts
	sizes               map[string]int
	reads               [][]string
	releases            []int
}

func (s *partsSource) AccessDocs(_ context.Context, ids []string) ([]persist.IndexDoc, error) {
	s.reads = append(s.reads, slices.Clone(ids))
	var out []persist.IndexDoc
	for _, id := range ids {
		if _, ok := s.sizes[id]; ok {
			out = append(out, persist.IndexDoc{Entry: persist.Entry{ID: id}})
		}
	}
	return out, nil
}

func (s *partsSource) TextSizes(_ context.Context, ids []string) (map[string]int, error) {
	out := map[string]int{}
	for _, id := range ids {
		if n, ok := s.sizes[id]; ok {
			out[id] = n
		}
	}
	return out, nil
}

func (s *partsSource) ReleaseMemory(context.Context) error {
	s.releases = append(s.releases, len(s.reads))
	return nil
}

// TestAccessDocsInParts: a catalog's read of large entries goes in parts
// of at most partBytes of text (a larger text alone) and hands the mapped
// pages back after each part of releaseBytes or more; small notes are
// read in one part with no release, and an id that no longer exists is
// reported deleted as before.
func TestAccessDocsInParts(t *testing.T) {
	ctx := context.Background()
	big := 10 << 20
	src := &partsSource{sizes: map[string]int{"a": 100, "b": big, "c": big, "d": 200, "e": 300}}
	docs, dels, err := changedAccessDocs(ctx, src, []string{"a", "b", "gone", "c", "d", "e"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID)
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) || !slices.Equal(dels, []string{"gone"}) {
		t.Fatalf("read %v, deleted %v", got, dels)
	}
	want := [][]string{{"a"}, {"b"}, {"gone"}, {"c"}, {"d", "e"}}
	if !slices.EqualFunc(src.reads, want, slices.Equal) {
		t.Fatalf("parts %v, want %v", src.reads, want)
	}
	if !slices.Equal(src.releases, []int{2, 4}) {
		t.Fatalf("releases after reads %v, want after the two large parts (2, 4)", src.releases)
	}

	small := &partsSource{sizes: map[string]int{"a": 100, "b": 200}}
	if _, _, err := changedAccessDocs(ctx, small, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if len(small.reads) != 1 || len(small.releases) != 0 {
		t.Fatalf("small notes: parts %v, releases %v; want one part, none", small.reads, small.releases)
	}
}
