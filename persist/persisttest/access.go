package persisttest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/contextd/contextd/persist"
)

// accessFixture stores, all in thread "ta" unless noted, with tags
// "t"+thread and "all":
//
//	1 alice private                 2 alice public
//	3 alice private, user read grant to bob
//	4 alice private, group read grant to team        (thread "tg", one image)
//	5 alice private, user write grant to bob
//	6 bob private                                    (thread "tb")
//	7 alice private, group write grant to team       (thread "tg")
//	8 alice private, user read grant to carol
//
// so alice reads 1-5, 7, 8; bob 2, 3, 5, 6; bob in groups other and team
// 2-7; carol 2, 8; dave (and anyone else) 2.
func accessFixture(t testing.TB, st persist.Store) {
	t.Helper()
	var es []persist.Entry
	threads := map[int]string{4: "tg", 6: "tb", 7: "tg"}
	for n := 1; n <= 8; n++ {
		th := threads[n]
		if th == "" {
			th = "ta"
		}
		owner := "alice"
		if n == 6 {
			owner = "bob"
		}
		e := NewEntry(n, th, "user", owner)
		if n == 2 {
			e.Visibility = "public"
		}
		e.Tags = []string{"t" + th, "all"}
		if n == 4 {
			e.ContentType = "multimodal"
			e.Images = []persist.Image{{Data: []byte{1}, MimeType: "image/png"}}
		}
		es = append(es, e)
	}
	g := func(typ, id, perm string) []persist.Grant {
		return []persist.Grant{{PrincipalType: typ, PrincipalID: id, Permission: perm, GrantedBy: "alice"}}
	}
	Insert(t, st, es, map[string][]persist.Grant{
		ID(3): g("user", "bob", "read"),
		ID(4): g("group", "team", "read"),
		ID(5): g("user", "bob", "write"),
		ID(7): g("group", "team", "write"),
		ID(8): g("user", "carol", "read"),
	})
}

// readers are the principals of accessFixture with the entries each reads.
var readers = []struct {
	name string
	acc  persist.Access
	want []string
}{
	{"owner", alice, IDs(1, 2, 3, 4, 5, 7, 8)},
	{"user grants", bob, IDs(2, 3, 5, 6)},
	{"group grants", bobTeam, IDs(2, 3, 4, 5, 6, 7)},
	{"read grant only", carol, IDs(2, 8)},
	{"public only", dave, IDs(2)},
	{"unknown groups", persist.Access{Principal: "nobody", Groups: []string{"x", "alice"}}, IDs(2)},
}

func (s suite) access(t *testing.T) {
	t.Run("Reads", s.accessReads)
	t.Run("Writable", s.accessWritable)
	t.Run("ResolvePrefix", s.accessResolvePrefix)
	t.Run("ListThreads", s.accessListThreads)
	t.Run("Stats", s.accessStats)
	t.Run("StatsTops", s.accessStatsTops)
	t.Run("FilterIDs", s.accessFilterIDs)
	t.Run("Texts", s.accessTexts)
	t.Run("EmbeddingCounts", s.accessEmbeddingCounts)
	t.Run("CountNodeSummaries", s.accessCountNodeSummaries)
	t.Run("NarrowPlan", s.accessNarrowPlan)
}

// accessReads: Get, Search, State, MatchDelete and DedupCandidate apply
// READ = owner OR public OR a grant (read or write) to the user or one of
// its groups.
func (s suite) accessReads(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	all := IDs(1, 2, 3, 4, 5, 6, 7, 8)
	for _, tc := range readers {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.Get(ctx, tc.acc, all, persist.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sorted(idsOf(got)), tc.want) {
				t.Fatalf("get = %v, want %v", sorted(idsOf(got)), tc.want)
			}
			res := search(t, st, tc.acc, persist.SearchQuery{})
			if !slices.Equal(sorted(idsOf(res)), tc.want) {
				t.Fatalf("search = %v, want %v", sorted(idsOf(res)), tc.want)
			}
			// Hidden rows never take page slots.
			page := search(t, st, tc.acc, persist.SearchQuery{Limit: 1, Offset: len(tc.want) - 1})
			if len(page) != 1 || page[0].ID != tc.want[0] {
				t.Fatalf("last page = %v, want [%s]", idsOf(page), tc.want[0])
			}
			for _, id := range all {
				state, found, err := st.State(ctx, tc.acc, id)
				if err != nil || !found {
					t.Fatalf("state %s: found=%v err=%v", id, found, err)
				}
				if state.Readable != slices.Contains(tc.want, id) {
					t.Fatalf("state %s readable = %v", id, state.Readable)
				}
			}
			refs, err := st.MatchDelete(ctx, tc.acc, persist.DeleteCriteria{IDs: all})
			if err != nil || len(refs) != len(tc.want) {
				t.Fatalf("match delete = %v, %v", refs, err)
			}
			for _, r := range refs {
				if !slices.Contains(tc.want, r.ID) {
					t.Fatalf("match delete returned hidden %s", r.ID)
				}
			}
			cand, _, err := st.DedupCandidate(ctx, tc.acc, "ta", "user")
			if err != nil {
				t.Fatal(err)
			}
			if latest := latestIn(tc.want, IDs(1, 2, 3, 5, 8)); cand == nil || cand.ID != latest {
				t.Fatalf("dedup candidate = %+v, want %s", cand, latest)
			}
		})
	}
}

// latestIn returns the last of ids (in creation order) that is in readable.
func latestIn(readable, ids []string) string {
	for i := len(ids) - 1; i >= 0; i-- {
		if slices.Contains(readable, ids[i]) {
			return ids[i]
		}
	}
	return ""
}

// accessWritable: WRITE = owner OR a write grant to the user or a group.
func (s suite) accessWritable(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	tests := []struct {
		acc  persist.Access
		n    int
		want bool
	}{
		{alice, 1, true}, {bob, 1, false}, {bob, 2, false}, {bob, 3, false}, {bob, 5, true},
		{bob, 6, true}, {bob, 7, false}, {bobTeam, 4, false}, {bobTeam, 7, true}, {carol, 8, false},
		{dave, 2, false}, {persist.Access{Principal: "x", Groups: []string{"team"}}, 7, true},
	}
	for _, tc := range tests {
		state, found, err := st.State(ctx, tc.acc, ID(tc.n))
		if err != nil || !found {
			t.Fatalf("state: %v %v", found, err)
		}
		if state.Writable != tc.want {
			t.Fatalf("%s on %d: writable = %v, want %v", tc.acc.Principal, tc.n, state.Writable, tc.want)
		}
		if state.Owner == "" || state.Visibility == "" || state.ID != ID(tc.n) || state.ContentHash != fmt.Sprintf("hash%d", tc.n) {
			t.Fatalf("state = %+v", state)
		}
	}
	if _, found, err := st.State(ctx, alice, ID(99)); found || err != nil {
		t.Fatalf("absent entry: found=%v err=%v", found, err)
	}
}

func (s suite) accessResolvePrefix(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	id := func(suffix string) string { return "abcdef01" + "0000000000000000000000" + suffix }
	a, b, c := NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "bob"), NewEntry(3, "t", "user", "carol")
	a.ID, b.ID, c.ID = id("01"), id("02"), id("03")
	c.Visibility = "public"
	other := NewEntry(4, "t", "user", "bob")
	other.ID = "abcdef02" + other.ID[8:]
	granted := NewEntry(5, "t", "user", "carol")
	granted.ID = "abcdef03" + granted.ID[8:]
	Insert(t, st, []persist.Entry{a, b, c, other, granted}, map[string][]persist.Grant{
		granted.ID: {{PrincipalType: "group", PrincipalID: "team", Permission: "read", GrantedBy: "carol"}}})
	tests := []struct {
		name   string
		acc    persist.Access
		prefix string
		want   []string
	}{
		{"hidden never ambiguous", bob, "abcdef01", []string{b.ID, c.ID}},
		{"unique for dave", dave, "abcdef01", []string{c.ID}},
		{"alice sees two", alice, "abcdef01", []string{a.ID, c.ID}},
		{"long prefix", bob, id("0"), []string{b.ID, c.ID}},
		{"hidden as absent", dave, id("01"), nil},
		{"limit two", bob, "abcdef", []string{b.ID, c.ID}},
		{"other prefix", bob, "abcdef02", []string{other.ID}},
		{"group grant", bobTeam, "abcdef03", []string{granted.ID}},
		{"no group grant", bob, "abcdef03", nil},
		{"no match", bob, "ffffffff", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.ResolvePrefix(ctx, tc.acc, tc.prefix)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func (s suite) accessListThreads(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	tb := persist.ThreadInfo{ThreadID: "tb", EntryCount: 1, SourceTypes: 1, FirstEntry: At(6), LastEntry: At(6), LastID: ID(6)}
	ta := persist.ThreadInfo{ThreadID: "ta", EntryCount: 3, SourceTypes: 1, FirstEntry: At(2), LastEntry: At(5), LastID: ID(5)}
	tests := []struct {
		name          string
		acc           persist.Access
		limit, offset int
		want          []persist.ThreadInfo
	}{
		{"bob", bob, 0, 0, []persist.ThreadInfo{tb, ta}},
		{"bob team", bobTeam, 0, 0, []persist.ThreadInfo{
			{ThreadID: "tg", EntryCount: 2, SourceTypes: 1, MultimodalCount: 1, FirstEntry: At(4), LastEntry: At(7), LastID: ID(7)},
			tb, ta,
		}},
		{"paged", bobTeam, 1, 1, []persist.ThreadInfo{tb}},
		{"dave", dave, 0, 0, []persist.ThreadInfo{
			{ThreadID: "ta", EntryCount: 1, SourceTypes: 1, FirstEntry: At(2), LastEntry: At(2), LastID: ID(2)},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.ListThreads(ctx, tc.acc, tc.limit, tc.offset)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("thread %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func (s suite) accessStats(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	e := NewEntry(9, "ta", "agent", "alice")
	e.Visibility, e.Summary, e.Tags = "public", "sum", []string{"all", "extra"}
	Insert(t, st, []persist.Entry{e}, nil)
	public := persist.Stats{TotalEntries: 2, BySource: map[string]int{"user": 1, "agent": 1},
		ByContentType: map[string]int{"text": 2}, UniqueTags: 3, TotalThreads: 1,
		MostActive:   []persist.Count{{Name: "ta", Count: 2}},
		TopTags:      []persist.Count{{Name: "all", Count: 2}, {Name: "extra", Count: 1}, {Name: "tta", Count: 1}},
		SummaryCount: 1}
	tests := []struct {
		name string
		acc  persist.Access
		want persist.Stats
	}{
		{"dave", dave, public},
		{"bob team", bobTeam, persist.Stats{TotalEntries: 7, BySource: map[string]int{"user": 6, "agent": 1},
			ByContentType: map[string]int{"text": 6, "multimodal": 1}, TotalImages: 1, UniqueTags: 5, TotalThreads: 3,
			MostActive: []persist.Count{{Name: "ta", Count: 4}, {Name: "tg", Count: 2}, {Name: "tb", Count: 1}},
			TopTags: []persist.Count{{Name: "all", Count: 7}, {Name: "tta", Count: 3}, {Name: "ttg", Count: 2},
				{Name: "extra", Count: 1}, {Name: "ttb", Count: 1}},
			SummaryCount: 1}},
		{"nobody", persist.Access{Principal: "nobody", Groups: []string{"x"}}, public},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.Stats(ctx, tc.acc)
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if got.TotalEntries != w.TotalEntries || got.TotalImages != w.TotalImages || got.UniqueTags != w.UniqueTags ||
				got.TotalThreads != w.TotalThreads || got.SummaryCount != w.SummaryCount {
				t.Fatalf("stats = %+v, want %+v", got, w)
			}
			// The database size is deployment-wide: -1 when unknown.
			if got.DBSizeBytes != -1 && got.DBSizeBytes <= 0 {
				t.Fatalf("db size = %d, want -1 or a size", got.DBSizeBytes)
			}
			if !maps.Equal(got.BySource, w.BySource) || !maps.Equal(got.ByContentType, w.ByContentType) {
				t.Fatalf("maps = %v %v, want %v %v", got.BySource, got.ByContentType, w.BySource, w.ByContentType)
			}
			if !slices.Equal(got.MostActive, w.MostActive) || !slices.Equal(got.TopTags, w.TopTags) {
				t.Fatalf("tops = %v %v, want %v %v", got.MostActive, got.TopTags, w.MostActive, w.TopTags)
			}
		})
	}
}

// accessStatsTops: the top lists are cut at 5 threads and 10 tags, count
// DESC then name ASC.
func (s suite) accessStatsTops(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var es []persist.Entry
	for n := 1; n <= 40; n++ {
		e := NewEntry(n, string(rune('a'+n%7)), "user", "alice")
		for k := 0; k < n%12; k++ {
			e.Tags = append(e.Tags, string(rune('k'+k)))
		}
		es = append(es, e)
	}
	Insert(t, st, es, nil)
	stats, err := st.Stats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.MostActive) != 5 || len(stats.TopTags) != 10 || stats.TotalThreads != 7 || stats.UniqueTags != 11 {
		t.Fatalf("stats = %+v", stats)
	}
	// 40 entries over 7 threads (n%7 = 0..6 → a..g): a and g hold 5, b..f hold 6.
	want := []persist.Count{{Name: "b", Count: 6}, {Name: "c", Count: 6}, {Name: "d", Count: 6},
		{Name: "e", Count: 6}, {Name: "f", Count: 6}}
	if !slices.Equal(stats.MostActive, want) {
		t.Fatalf("most active = %v, want %v", stats.MostActive, want)
	}
	for _, top := range [][]persist.Count{stats.MostActive, stats.TopTags} {
		for i := 1; i < len(top); i++ {
			p, c := top[i-1], top[i]
			if p.Count < c.Count || (p.Count == c.Count && p.Name > c.Name) {
				t.Fatalf("top list not ordered: %v", top)
			}
		}
	}
}

// accessFilterIDs: the readable ids matching a filter, in id order.
func (s suite) accessFilterIDs(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	for _, tc := range readers {
		got, err := st.FilterIDs(ctx, tc.acc, persist.Filter{})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Fatalf("%s: filter ids = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	tests := []struct {
		acc  persist.Access
		f    persist.Filter
		want []string
	}{
		{bobTeam, persist.Filter{ThreadID: "tg"}, IDs(4, 7)},
		{bob, persist.Filter{ThreadID: "tg"}, []string{}},
		{bob, persist.Filter{Tags: []string{"tta"}}, IDs(2, 3, 5)},
		{carol, persist.Filter{IDs: IDs(1, 8, 99)}, IDs(8)},
		{alice, persist.Filter{ContentType: "multimodal"}, IDs(4)},
	}
	for _, tc := range tests {
		got, err := st.FilterIDs(ctx, tc.acc, tc.f)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Fatalf("%s %+v: filter ids = %v, %v; want %v", tc.acc.Principal, tc.f, got, err, tc.want)
		}
	}
}

// accessTexts: the texts of the readable entries among the ids.
func (s suite) accessTexts(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	for _, tc := range readers {
		got, err := st.Texts(ctx, tc.acc, IDs(1, 2, 3, 4, 5, 6, 7, 8, 99))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, id := range tc.want {
			want[id] = fmt.Sprintf("entry %d", num(id))
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s: texts = %v, want %v", tc.name, got, want)
		}
	}
	if got, err := st.Texts(ctx, alice, nil); err != nil || len(got) != 0 {
		t.Fatalf("texts of no ids = %v, %v", got, err)
	}
}

// accessEmbeddingCounts: entry n of accessFixture has n chunks.
func (s suite) accessEmbeddingCounts(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	accessVectors(t, st)
	for _, tc := range readers {
		chunks := 0
		for _, id := range tc.want {
			chunks += num(id)
		}
		ents, ch, err := st.EmbeddingCounts(ctx, tc.acc)
		if err != nil || ents != len(tc.want) || ch != chunks {
			t.Fatalf("%s: counts = %d, %d, %v; want %d, %d", tc.name, ents, ch, err, len(tc.want), chunks)
		}
	}
}

// accessVectors gives entry n of accessFixture n chunks at (n, 0), (n, 1), ...
func accessVectors(t testing.TB, st persist.Store) {
	t.Helper()
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for n := 1; n <= 8; n++ {
			var vs [][]float32
			for i := 0; i < n; i++ {
				vs = append(vs, []float32{float32(n), float32(i)})
			}
			if err := tx.SetEmbeddings(ctx, ID(n), Embeddings(2, vs...)); err != nil {
				return err
			}
		}
		return nil
	})
}

// accessCountNodeSummaries: entry n of accessFixture has n node summaries.
func (s suite) accessCountNodeSummaries(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for n := 1; n <= 8; n++ {
			var ns []persist.NodeSummary
			for i := 0; i < n; i++ {
				ns = append(ns, persist.NodeSummary{NodeID: fmt.Sprint(i), Start: i, End: i + 1, Summary: "s"})
			}
			if err := tx.ReplaceNodeSummaries(ctx, ID(n), ns); err != nil {
				return err
			}
		}
		return nil
	})
	for _, tc := range readers {
		want := 0
		for _, id := range tc.want {
			want += num(id)
		}
		if got, err := st.CountNodeSummaries(ctx, tc.acc); err != nil || got != want {
			t.Fatalf("%s: count = %d, %v; want %d", tc.name, got, err, want)
		}
	}
}
