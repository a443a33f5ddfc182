package persisttest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func (s suite) search(t *testing.T) {
	t.Run("Filters", s.searchFilters)
	t.Run("Images", s.searchImages)
	t.Run("Metadata", s.searchMetadata)
	t.Run("MetadataErrors", s.searchMetadataErrors)
	t.Run("DedupCandidate", s.searchDedupCandidate)
	t.Run("MatchDelete", s.searchMatchDelete)
}

// filterFixture stores entries 1..6 of alice:
//
//	1 t1 user  text       tags a
//	2 t1 agent multimodal tags b (one image)
//	3 t2 user  text       tags a, c
//	4 t2 agent text       no tags
//	5 t1 user  text       tags c
//	6 t1 user  text       no tags, created in the same second as 5 (later microsecond)
func filterFixture(t testing.TB, st persist.Store) {
	t.Helper()
	spec := []struct {
		thread, source string
		tags           []string
	}{
		{"t1", "user", []string{"a"}}, {"t1", "agent", []string{"b"}}, {"t2", "user", []string{"a", "c"}},
		{"t2", "agent", nil}, {"t1", "user", []string{"c"}}, {"t1", "user", nil},
	}
	var es []persist.Entry
	for i, sp := range spec {
		e := NewEntry(i+1, sp.thread, sp.source, "alice")
		e.Tags = sp.tags
		if i == 1 {
			e.ContentType = "multimodal"
			e.Images = []persist.Image{{Data: []byte("img"), MimeType: "image/png"}}
		}
		if i == 5 {
			e.CreatedAt = At(5).Add(time.Microsecond)
		}
		es = append(es, e)
	}
	Insert(t, st, es, nil)
}

func tp(tm time.Time) *time.Time { return &tm }

func (s suite) searchFilters(t *testing.T) {
	st := s.store(t)
	filterFixture(t, st)
	tests := []struct {
		name string
		q    persist.SearchQuery
		want []string
	}{
		{"all newest first", persist.SearchQuery{}, IDs(6, 5, 4, 3, 2, 1)},
		{"thread", persist.SearchQuery{Filter: persist.Filter{ThreadID: "t2"}}, IDs(4, 3)},
		{"source", persist.SearchQuery{Filter: persist.Filter{Source: "agent"}}, IDs(4, 2)},
		{"content type", persist.SearchQuery{Filter: persist.Filter{ContentType: "multimodal"}}, IDs(2)},
		{"tags any", persist.SearchQuery{Filter: persist.Filter{Tags: []string{"a", "b"}}}, IDs(3, 2, 1)},
		{"tags one", persist.SearchQuery{Filter: persist.Filter{Tags: []string{"c"}}}, IDs(5, 3)},
		{"tags none match", persist.SearchQuery{Filter: persist.Filter{Tags: []string{"zz"}}}, nil},
		{"start inclusive", persist.SearchQuery{Filter: persist.Filter{Start: tp(At(4))}}, IDs(6, 5, 4)},
		{"end inclusive", persist.SearchQuery{Filter: persist.Filter{End: tp(At(2))}}, IDs(2, 1)},
		{"start end", persist.SearchQuery{Filter: persist.Filter{Start: tp(At(2)), End: tp(At(3))}}, IDs(3, 2)},
		{"end micro", persist.SearchQuery{Filter: persist.Filter{Start: tp(At(5)), End: tp(At(5))}}, IDs(5)},
		{"start sub-micro", persist.SearchQuery{Filter: persist.Filter{Start: tp(At(5).Add(time.Nanosecond))}}, IDs(6)},
		{"ids", persist.SearchQuery{Filter: persist.Filter{IDs: IDs(1, 4, 99)}}, IDs(4, 1)},
		{"ids empty", persist.SearchQuery{Filter: persist.Filter{IDs: []string{}}}, nil},
		{"combined", persist.SearchQuery{Filter: persist.Filter{ThreadID: "t1", Source: "user", Tags: []string{"a", "c"}}}, IDs(5, 1)},
		{"limit", persist.SearchQuery{Limit: 2}, IDs(6, 5)},
		{"limit offset", persist.SearchQuery{Limit: 2, Offset: 3}, IDs(3, 2)},
		{"offset past end", persist.SearchQuery{Limit: 2, Offset: 30}, nil},
		{"before", persist.SearchQuery{Filter: persist.Filter{Before: &persist.Position{CreatedAt: At(4), ID: ID(4)}}}, IDs(3, 2, 1)},
		{"before same time smaller id", persist.SearchQuery{Filter: persist.Filter{Before: &persist.Position{CreatedAt: At(3), ID: ID(4)}}}, IDs(3, 2, 1)},
		{"before same time larger id", persist.SearchQuery{Filter: persist.Filter{Before: &persist.Position{CreatedAt: At(3), ID: ID(2)}}}, IDs(2, 1)},
		{"before microsecond", persist.SearchQuery{Filter: persist.Filter{Before: &persist.Position{CreatedAt: At(5).Add(time.Microsecond), ID: ID(6)}}}, IDs(5, 4, 3, 2, 1)},
		{"before with limit", persist.SearchQuery{Filter: persist.Filter{Before: &persist.Position{CreatedAt: At(5), ID: ID(5)}}, Limit: 2}, IDs(4, 3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := search(t, st, alice, tc.q)
			if !slices.Equal(idsOf(got), tc.want) {
				t.Fatalf("got %v, want %v", idsOf(got), tc.want)
			}
		})
	}
	// Many ids: more than a backend binds one parameter per member.
	many := IDs(1, 3)
	for i := 1000; i < 2000; i++ {
		many = append(many, ID(i))
	}
	if got := search(t, st, alice, persist.SearchQuery{Filter: persist.Filter{IDs: many}}); !slices.Equal(idsOf(got), IDs(3, 1)) {
		t.Fatalf("many ids: got %v", idsOf(got))
	}
}

// searchImages: images are loaded only when asked, their count and the
// tags always; Plan stays empty without Explain.
func (s suite) searchImages(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	filterFixture(t, st)
	res, err := st.Search(ctx, alice, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Entries {
		if e.Images != nil {
			t.Fatalf("images loaded without Images")
		}
		if e.ID == ID(2) && (e.ImageCount != 1 || !slices.Equal(e.Tags, []string{"b"})) {
			t.Fatalf("entry 2 = %+v", e)
		}
	}
	res, err = st.Search(ctx, alice, persist.SearchQuery{Filter: persist.Filter{ContentType: "multimodal"}, Images: true})
	if err != nil || len(res.Entries) != 1 || len(res.Entries[0].Images) != 1 || string(res.Entries[0].Images[0].Data) != "img" {
		t.Fatalf("search with images = %+v, %v", res.Entries, err)
	}
	if res.Plan != "" {
		t.Fatalf("plan without Explain: %q", res.Plan)
	}
}

// metaFixture holds the dataset of T-036..T-045: status
// active/pending/active/completed/error, priority 5/3/8/1/10, agent_name on
// the first three, plus one entry with null metadata (entry 6).
func metaFixture(t testing.TB, st persist.Store) {
	t.Helper()
	ms := []any{
		map[string]any{"status": "active", "priority": 5, "agent_name": "planner",
			"technologies": []any{"python", "go"}, "flag": true,
			"user": map[string]any{"preferences": map[string]any{"theme": "dark"}}},
		map[string]any{"status": "pending", "priority": 3, "agent_name": "coder",
			"x": nil, "code": "5000", "technologies": "python"},
		map[string]any{"status": "active", "priority": 8, "agent_name": "reviewer",
			"title": "café", "technologies": []any{5, "7"}, "code": "50%"},
		map[string]any{"status": "completed", "priority": 1, "technologies": map[string]any{"python": true},
			"n": "12", "flag": 1, "ratio": 0.5},
		map[string]any{"status": "error", "priority": 10, "flag": "true", "nums": []any{"5"}},
		nil,
	}
	var es []persist.Entry
	for i, m := range ms {
		e := NewEntry(i+1, "t", "user", "alice")
		e.Metadata = meta(t, m)
		es = append(es, e)
	}
	Insert(t, st, es, nil)
}

func (s suite) searchMetadata(t *testing.T) {
	st := s.store(t)
	metaFixture(t, st)
	c := func(key, op string, v any) persist.MetaCond {
		return persist.MetaCond{Path: strings.Split(key, "."), Op: op, Value: v}
	}
	cs := func(m persist.MetaCond) persist.MetaCond { m.CaseSensitive = true; return m }
	in := func(key, op string, vs ...any) persist.MetaCond {
		return persist.MetaCond{Path: strings.Split(key, "."), Op: op, Values: vs}
	}
	tests := []struct {
		name  string
		conds []persist.MetaCond
		want  []int // entry numbers
	}{
		{"eq insensitive", []persist.MetaCond{c("status", "eq", "ACTIVE")}, []int{1, 3}},
		{"eq case sensitive miss", []persist.MetaCond{cs(c("status", "eq", "ACTIVE"))}, nil},
		{"eq case sensitive hit", []persist.MetaCond{cs(c("status", "eq", "active"))}, []int{1, 3}},
		{"eq ascii fold only", []persist.MetaCond{c("title", "eq", "CAFÉ")}, nil},
		{"eq ascii fold", []persist.MetaCond{c("title", "eq", "CAFé")}, []int{3}},
		{"gt 5", []persist.MetaCond{c("priority", "gt", int64(5))}, []int{3, 5}},
		{"gte 5", []persist.MetaCond{c("priority", "gte", int64(5))}, []int{1, 3, 5}},
		{"lt 5", []persist.MetaCond{c("priority", "lt", int64(5))}, []int{2, 4}},
		{"lte 5", []persist.MetaCond{c("priority", "lte", 5.0)}, []int{1, 2, 4}},
		{"gt number never string", []persist.MetaCond{c("n", "gt", int64(5))}, nil},
		{"gt string byte order", []persist.MetaCond{c("n", "gt", "1")}, []int{4}},
		{"gt string never number", []persist.MetaCond{c("priority", "gt", "0")}, nil},
		{"gt string status", []persist.MetaCond{c("status", "gt", "d")}, []int{2, 5}},
		{"gt float", []persist.MetaCond{c("ratio", "gt", 0.25)}, []int{4}},
		{"eq string vs number", []persist.MetaCond{c("priority", "eq", "5")}, nil},
		{"eq number", []persist.MetaCond{c("priority", "eq", int64(5))}, []int{1}},
		{"eq float equals int", []persist.MetaCond{c("priority", "eq", 5.0)}, []int{1}},
		{"eq true only json true", []persist.MetaCond{c("flag", "eq", true)}, []int{1}},
		{"eq false", []persist.MetaCond{c("flag", "eq", false)}, nil},
		{"ne active", []persist.MetaCond{c("status", "ne", "active")}, []int{2, 4, 5}},
		{"ne case sensitive", []persist.MetaCond{cs(c("status", "ne", "ACTIVE"))}, []int{1, 2, 3, 4, 5}},
		{"ne number", []persist.MetaCond{c("priority", "ne", int64(5))}, []int{2, 3, 4, 5}},
		{"ne true same type only", []persist.MetaCond{c("flag", "ne", true)}, nil},
		{"ne false", []persist.MetaCond{c("flag", "ne", false)}, []int{1}},
		{"in strings", []persist.MetaCond{in("status", "in", "active", "pending")}, []int{1, 2, 3}},
		{"in folded", []persist.MetaCond{in("status", "in", "ACTIVE")}, []int{1, 3}},
		{"in case sensitive", []persist.MetaCond{cs(in("status", "in", "ACTIVE", "pending"))}, []int{2}},
		{"not_in strings", []persist.MetaCond{in("status", "not_in", "active", "pending")}, []int{4, 5}},
		{"in numbers", []persist.MetaCond{in("priority", "in", int64(5), int64(10))}, []int{1, 5}},
		{"in typed members", []persist.MetaCond{in("status", "in", "active", int64(3))}, []int{1, 3}},
		{"not_in numbers", []persist.MetaCond{in("priority", "not_in", int64(5), int64(10))}, []int{2, 3, 4}},
		{"not_in excludes json null", []persist.MetaCond{in("x", "not_in", int64(1))}, nil},
		{"in bools", []persist.MetaCond{in("flag", "in", true, "true")}, []int{1, 5}},
		{"exists", []persist.MetaCond{c("agent_name", "exists", nil)}, []int{1, 2, 3}},
		{"not_exists", []persist.MetaCond{c("agent_name", "not_exists", nil)}, []int{4, 5, 6}},
		{"not_exists counts json null", []persist.MetaCond{c("x", "not_exists", nil)}, []int{1, 2, 3, 4, 5, 6}},
		{"exists not json null", []persist.MetaCond{c("x", "exists", nil)}, nil},
		{"is_null", []persist.MetaCond{c("x", "is_null", nil)}, []int{2}},
		{"is_null missing", []persist.MetaCond{c("agent_name", "is_null", nil)}, nil},
		{"is_not_null", []persist.MetaCond{c("agent_name", "is_not_null", nil)}, []int{1, 2, 3}},
		{"is_not_null json null", []persist.MetaCond{c("x", "is_not_null", nil)}, nil},
		{"contains literal percent", []persist.MetaCond{c("code", "contains", "50%")}, []int{3}},
		{"contains underscore literal", []persist.MetaCond{c("code", "contains", "5_")}, nil},
		{"contains", []persist.MetaCond{c("agent_name", "contains", "plan")}, []int{1}},
		{"contains folded", []persist.MetaCond{c("agent_name", "contains", "PLAN")}, []int{1}},
		{"contains case sensitive", []persist.MetaCond{cs(c("agent_name", "contains", "PLAN"))}, nil},
		{"contains empty", []persist.MetaCond{c("agent_name", "contains", "")}, []int{1, 2, 3}},
		{"contains never number", []persist.MetaCond{c("priority", "contains", "5")}, nil},
		{"starts_with", []persist.MetaCond{c("agent_name", "starts_with", "CO")}, []int{2}},
		{"starts_with longer", []persist.MetaCond{c("agent_name", "starts_with", "plannerX")}, nil},
		{"ends_with", []persist.MetaCond{c("agent_name", "ends_with", "ER")}, []int{1, 2, 3}},
		{"ends_with case sensitive", []persist.MetaCond{cs(c("agent_name", "ends_with", "ER"))}, nil},
		{"ends_with multibyte", []persist.MetaCond{c("title", "ends_with", "FÉ")}, nil},
		{"ends_with multibyte hit", []persist.MetaCond{c("title", "ends_with", "Fé")}, []int{3}},
		{"ends_with longer", []persist.MetaCond{c("agent_name", "ends_with", "xcoder")}, nil},
		{"array_contains folded", []persist.MetaCond{c("technologies", "array_contains", "PYTHON")}, []int{1}},
		{"array_contains case sensitive", []persist.MetaCond{cs(c("technologies", "array_contains", "PYTHON"))}, nil},
		{"array_contains number", []persist.MetaCond{c("technologies", "array_contains", int64(5))}, []int{3}},
		{"array_contains number not string", []persist.MetaCond{c("nums", "array_contains", int64(5))}, nil},
		{"array_contains string not number", []persist.MetaCond{c("technologies", "array_contains", "5")}, nil},
		{"array_contains string member", []persist.MetaCond{c("nums", "array_contains", "5")}, []int{5}},
		{"array_contains missing", []persist.MetaCond{c("nope", "array_contains", "x")}, nil},
		{"array_contains scalar", []persist.MetaCond{c("status", "array_contains", "active")}, nil},
		{"nested path", []persist.MetaCond{c("user.preferences.theme", "eq", "DARK")}, []int{1}},
		{"nested missing", []persist.MetaCond{c("user.preferences.font", "exists", nil)}, nil},
		{"and combined", []persist.MetaCond{c("status", "eq", "active"), c("priority", "gt", int64(6))}, []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := search(t, st, alice, persist.SearchQuery{Filter: persist.Filter{Meta: tc.conds}})
			var want []string
			for i := len(tc.want) - 1; i >= 0; i-- { // newest first
				want = append(want, ID(tc.want[i]))
			}
			if !slices.Equal(idsOf(got), want) {
				t.Fatalf("got %v, want %v", idsOf(got), want)
			}
		})
	}
}

// searchMetadataErrors: a condition the engine would never hand over is an
// error, never a silent match; a quote in a path segment is data.
func (s suite) searchMetadataErrors(t *testing.T) {
	st := s.store(t)
	metaFixture(t, st)
	for name, cond := range BadMetaConds() {
		t.Run(name, func(t *testing.T) {
			_, err := st.Search(context.Background(), alice, persist.SearchQuery{
				Filter: persist.Filter{Meta: []persist.MetaCond{cond}}})
			if err == nil {
				t.Fatalf("condition %+v accepted", cond)
			}
		})
	}
	// A single quote in a segment is escaped, not an injection.
	got := search(t, st, alice, persist.SearchQuery{Filter: persist.Filter{Meta: []persist.MetaCond{
		{Path: []string{"a') OR 1=1 --"}, Op: "exists"}}}})
	if len(got) != 0 {
		t.Fatalf("quoted segment matched %d entries", len(got))
	}
}

// BadMetaConds are metadata conditions, by name, that every store refuses
// with an error; a backend's own test may check the text of its errors.
func BadMetaConds() map[string]persist.MetaCond {
	return map[string]persist.MetaCond{
		"empty path":       {Op: "eq", Value: "x"},
		"quote in segment": {Path: []string{`a"b`}, Op: "eq", Value: "x"},
		"unknown operator": {Path: []string{"a"}, Op: "regex", Value: "x"},
		"eq null":          {Path: []string{"a"}, Op: "eq"},
		"gt bool":          {Path: []string{"a"}, Op: "gt", Value: true},
		"contains number":  {Path: []string{"a"}, Op: "contains", Value: int64(1)},
		"bad value type":   {Path: []string{"a"}, Op: "eq", Value: []int{1}},
	}
}

func (s suite) searchDedupCandidate(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	mk := func(n int, source, owner, vis string) persist.Entry {
		e := NewEntry(n, "t", source, owner)
		e.Visibility = vis
		return e
	}
	Insert(t, st, []persist.Entry{
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
		{"latest user for alice", alice, "user", ID(3), true},
		{"latest agent for alice", alice, "agent", ID(5), false},
		{"bob sees his own user entry", bob, "user", ID(6), false},
		{"bob agent", bob, "agent", ID(5), true},
		{"dave user", dave, "user", "", false},
		{"dave agent", dave, "agent", ID(5), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cand, inter, err := st.DedupCandidate(ctx, tc.acc, "t", tc.source)
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

func (s suite) searchMatchDelete(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	filterFixture(t, st)
	before := At(4)
	tests := []struct {
		name string
		acc  persist.Access
		c    persist.DeleteCriteria
		want []string
	}{
		{"ids", alice, persist.DeleteCriteria{IDs: IDs(2, 4, 77)}, IDs(2, 4)},
		{"threads and source", alice, persist.DeleteCriteria{ThreadIDs: []string{"t1"}, Source: "user"}, IDs(1, 5, 6)},
		{"ids in threads", alice, persist.DeleteCriteria{IDs: IDs(1, 3), ThreadIDs: []string{"t2"}}, IDs(3)},
		{"older than", alice, persist.DeleteCriteria{Source: "agent", CreatedBefore: &before}, IDs(2)},
		{"empty ids", alice, persist.DeleteCriteria{IDs: []string{}}, nil},
		{"unreadable", dave, persist.DeleteCriteria{ThreadIDs: []string{"t1", "t2"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refs, err := st.MatchDelete(ctx, tc.acc, tc.c)
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
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
