package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// filterStore holds entries 1..6 of alice:
//
//	1 t1 user  text       tags a
//	2 t1 agent multimodal tags b (one image)
//	3 t2 user  text       tags a, c
//	4 t2 agent text       no tags
//	5 t1 user  text       tags c
//	6 t1 user  text       no tags, created in the same second as 5 (later microsecond)
func filterStore(t *testing.T) *Store {
	s := openMem(t)
	spec := []struct {
		thread, source string
		tags           []string
	}{
		{"t1", "user", []string{"a"}}, {"t1", "agent", []string{"b"}}, {"t2", "user", []string{"a", "c"}},
		{"t2", "agent", nil}, {"t1", "user", []string{"c"}}, {"t1", "user", nil},
	}
	var es []persist.Entry
	for i, sp := range spec {
		e := entry(i+1, sp.thread, sp.source, "alice")
		e.Tags = sp.tags
		if i == 1 {
			e.ContentType = "multimodal"
			e.Images = []persist.Image{{Data: []byte("img"), MimeType: "image/png"}}
		}
		if i == 5 {
			e.CreatedAt = at(5).Add(time.Microsecond)
		}
		es = append(es, e)
	}
	insert(t, s, es, nil)
	return s
}

func TestSearchFilters(t *testing.T) {
	s := filterStore(t)
	tp := func(tm time.Time) *time.Time { return &tm }
	tests := []struct {
		name string
		q    persist.SearchQuery
		want []string
	}{
		{"all newest first", persist.SearchQuery{}, nums(6, 5, 4, 3, 2, 1)},
		{"thread", persist.SearchQuery{Filter: persist.Filter{ThreadID: "t2"}}, nums(4, 3)},
		{"source", persist.SearchQuery{Filter: persist.Filter{Source: "agent"}}, nums(4, 2)},
		{"content type", persist.SearchQuery{Filter: persist.Filter{ContentType: "multimodal"}}, nums(2)},
		{"tags any", persist.SearchQuery{Filter: persist.Filter{Tags: []string{"a", "b"}}}, nums(3, 2, 1)},
		{"tags one", persist.SearchQuery{Filter: persist.Filter{Tags: []string{"c"}}}, nums(5, 3)},
		{"tags none match", persist.SearchQuery{Filter: persist.Filter{Tags: []string{"zz"}}}, nil},
		{"start inclusive", persist.SearchQuery{Filter: persist.Filter{Start: tp(at(4))}}, nums(6, 5, 4)},
		{"end inclusive", persist.SearchQuery{Filter: persist.Filter{End: tp(at(2))}}, nums(2, 1)},
		{"start end", persist.SearchQuery{Filter: persist.Filter{Start: tp(at(2)), End: tp(at(3))}}, nums(3, 2)},
		{"end micro", persist.SearchQuery{Filter: persist.Filter{Start: tp(at(5)), End: tp(at(5))}}, nums(5)},
		{"start sub-micro", persist.SearchQuery{Filter: persist.Filter{Start: tp(at(5).Add(time.Nanosecond))}}, nums(6)},
		{"ids", persist.SearchQuery{Filter: persist.Filter{IDs: nums(1, 4, 99)}}, nums(4, 1)},
		{"ids empty", persist.SearchQuery{Filter: persist.Filter{IDs: []string{}}}, nil},
		{"combined", persist.SearchQuery{Filter: persist.Filter{ThreadID: "t1", Source: "user", Tags: []string{"a", "c"}}}, nums(5, 1)},
		{"limit", persist.SearchQuery{Limit: 2}, nums(6, 5)},
		{"limit offset", persist.SearchQuery{Limit: 2, Offset: 3}, nums(3, 2)},
		{"offset past end", persist.SearchQuery{Limit: 2, Offset: 30}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := search(t, s, alice, tc.q)
			if !eqStrings(idsOf(got), tc.want) {
				t.Fatalf("got %v, want %v", idsOf(got), tc.want)
			}
		})
	}
	// Many ids travel as one JSON parameter.
	many := nums(1, 3)
	for i := 1000; i < 1000+2*inlineListMax; i++ {
		many = append(many, tid(i))
	}
	if got := search(t, s, alice, persist.SearchQuery{Filter: persist.Filter{IDs: many}}); !eqStrings(idsOf(got), nums(3, 1)) {
		t.Fatalf("many ids: got %v", idsOf(got))
	}
}

func TestSearchImagesAndPlan(t *testing.T) {
	ctx := context.Background()
	s := filterStore(t)
	res, err := s.Search(ctx, alice, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t1"}, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Plan, "idx_entries_thread_created") {
		t.Fatalf("plan does not use the thread index:\n%s", res.Plan)
	}
	for _, e := range res.Entries {
		if e.Images != nil {
			t.Fatalf("images loaded without Images")
		}
		if e.ID == tid(2) && (e.ImageCount != 1 || !eqStrings(e.Tags, []string{"b"})) {
			t.Fatalf("entry 2 = %+v", e)
		}
	}
	res, err = s.Search(ctx, alice, persist.SearchQuery{Filter: persist.Filter{ContentType: "multimodal"}, Images: true})
	if err != nil || len(res.Entries) != 1 || len(res.Entries[0].Images) != 1 || string(res.Entries[0].Images[0].Data) != "img" {
		t.Fatalf("search with images = %+v, %v", res.Entries, err)
	}
	if res.Plan != "" {
		t.Fatalf("plan without Explain: %q", res.Plan)
	}
}

func TestDedupCandidate(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	mk := func(n int, source, owner, vis string) persist.Entry {
		e := entry(n, "t", source, owner)
		e.Visibility = vis
		return e
	}
	insert(t, s, []persist.Entry{
		mk(1, "user", "alice", "private"),
		mk(2, "agent", "alice", "private"),
		mk(3, "user", "alice", "private"),
		mk(4, "agent", "bob", "private"), // hidden from alice: never interleaves for her
		mk(5, "agent", "alice", "public"),
		mk(6, "user", "bob", "private"),
	}, nil)
	tests := []struct {
		name   string
		acc    persist.Access
		source string
		want   string
		inter  bool
	}{
		{"latest user for alice", alice, "user", tid(3), true},
		{"latest agent for alice", alice, "agent", tid(5), false},
		{"bob sees his own user entry", bob, "user", tid(6), false},
		{"bob agent", bob, "agent", tid(5), true},
		{"dave user", dave, "user", "", false},
		{"dave agent", dave, "agent", tid(5), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cand, inter, err := s.DedupCandidate(ctx, tc.acc, "t", tc.source)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if cand != nil {
				got = cand.ID
				if cand.ContentHash == "" || cand.Owner == "" || cand.Text == "" || cand.Tags == nil {
					t.Fatalf("candidate = %+v", cand)
				}
			}
			if got != tc.want || inter != tc.inter {
				t.Fatalf("got %q interleaved=%v, want %q %v", got, inter, tc.want, tc.inter)
			}
		})
	}
}

func TestMatchDelete(t *testing.T) {
	ctx := context.Background()
	s := filterStore(t)
	before := at(4)
	tests := []struct {
		name string
		acc  persist.Access
		c    persist.DeleteCriteria
		want []string
	}{
		{"ids", alice, persist.DeleteCriteria{IDs: nums(2, 4, 77)}, nums(2, 4)},
		{"threads and source", alice, persist.DeleteCriteria{ThreadIDs: []string{"t1"}, Source: "user"}, nums(1, 5, 6)},
		{"ids in threads", alice, persist.DeleteCriteria{IDs: nums(1, 3), ThreadIDs: []string{"t2"}}, nums(3)},
		{"older than", alice, persist.DeleteCriteria{Source: "agent", CreatedBefore: &before}, nums(2)},
		{"empty ids", alice, persist.DeleteCriteria{IDs: []string{}}, nil},
		{"unreadable", dave, persist.DeleteCriteria{ThreadIDs: []string{"t1", "t2"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refs, err := s.MatchDelete(ctx, tc.acc, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range refs {
				if r.Owner != "alice" {
					t.Fatalf("ref %+v", r)
				}
				got = append(got, r.ID)
			}
			if !eqStrings(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
