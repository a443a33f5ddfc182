package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// accessStore holds, all in thread "ta" unless noted:
//
//	1 alice private                 2 alice public
//	3 alice private, user read grant to bob
//	4 alice private, group read grant to team        (thread "tg")
//	5 alice private, user write grant to bob
//	6 bob private                                    (thread "tb")
//	7 alice private, group write grant to team       (thread "tg")
//	8 alice private, user read grant to carol
func accessStore(t *testing.T) *Store {
	s := openMem(t)
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
		e := entry(n, th, "user", owner)
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
	insert(t, s, es, map[string][]persist.Grant{
		tid(3): g("user", "bob", "read"),
		tid(4): g("group", "team", "read"),
		tid(5): g("user", "bob", "write"),
		tid(7): g("group", "team", "write"),
		tid(8): g("user", "carol", "read"),
	})
	return s
}

var (
	alice   = persist.Access{Principal: "alice"}
	bob     = persist.Access{Principal: "bob"}
	bobTeam = persist.Access{Principal: "bob", Groups: []string{"other", "team"}}
	carol   = persist.Access{Principal: "carol"}
	dave    = persist.Access{Principal: "dave"}
)

func nums(ns ...int) []string {
	var out []string
	for _, n := range ns {
		out = append(out, tid(n))
	}
	return out
}

func TestAccessReads(t *testing.T) {
	ctx := context.Background()
	s := accessStore(t)
	all := nums(1, 2, 3, 4, 5, 6, 7, 8)
	tests := []struct {
		name string
		acc  persist.Access
		want []string // readable ids
	}{
		{"owner", alice, nums(1, 2, 3, 4, 5, 7, 8)},
		{"user grants", bob, nums(2, 3, 5, 6)},
		{"group grants", bobTeam, nums(2, 3, 4, 5, 6, 7)},
		{"read grant only", carol, nums(2, 8)},
		{"public only", dave, nums(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Get(ctx, tc.acc, all, persist.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !eqStrings(sorted(idsOf(got)), tc.want) {
				t.Fatalf("get = %v, want %v", sorted(idsOf(got)), tc.want)
			}
			res := search(t, s, tc.acc, persist.SearchQuery{})
			if !eqStrings(sorted(idsOf(res)), tc.want) {
				t.Fatalf("search = %v, want %v", sorted(idsOf(res)), tc.want)
			}
			// Hidden rows never take page slots.
			page := search(t, s, tc.acc, persist.SearchQuery{Limit: 1, Offset: len(tc.want) - 1})
			if len(page) != 1 || page[0].ID != tc.want[0] {
				t.Fatalf("last page = %v, want [%s]", idsOf(page), tc.want[0])
			}
			for _, id := range all {
				st, found, err := s.State(ctx, tc.acc, id)
				if err != nil || !found {
					t.Fatalf("state %s: found=%v err=%v", id, found, err)
				}
				if st.Readable != contains(tc.want, id) {
					t.Fatalf("state %s readable = %v", id, st.Readable)
				}
			}
			refs, err := s.MatchDelete(ctx, tc.acc, persist.DeleteCriteria{IDs: all})
			if err != nil || len(refs) != len(tc.want) {
				t.Fatalf("match delete = %v, %v", refs, err)
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestAccessWritable(t *testing.T) {
	ctx := context.Background()
	s := accessStore(t)
	tests := []struct {
		acc  persist.Access
		n    int
		want bool
	}{
		{alice, 1, true}, {bob, 1, false}, {bob, 2, false}, {bob, 3, false}, {bob, 5, true},
		{bob, 6, true}, {bob, 7, false}, {bobTeam, 4, false}, {bobTeam, 7, true}, {carol, 8, false},
	}
	for _, tc := range tests {
		st, found, err := s.State(ctx, tc.acc, tid(tc.n))
		if err != nil || !found {
			t.Fatalf("state: %v %v", found, err)
		}
		if st.Writable != tc.want {
			t.Fatalf("%s on %d: writable = %v, want %v", tc.acc.Principal, tc.n, st.Writable, tc.want)
		}
		if st.Owner == "" || st.Visibility == "" || st.ID != tid(tc.n) {
			t.Fatalf("state = %+v", st)
		}
	}
	if _, found, err := s.State(ctx, alice, tid(99)); found || err != nil {
		t.Fatalf("absent entry: found=%v err=%v", found, err)
	}
}

func TestResolvePrefixHidden(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	id := func(suffix string) string { return "abcdef01" + "0000000000000000000000" + suffix }
	a, b, c := entry(1, "t", "user", "alice"), entry(2, "t", "user", "bob"), entry(3, "t", "user", "carol")
	a.ID, b.ID, c.ID = id("01"), id("02"), id("03")
	c.Visibility = "public"
	other := entry(4, "t", "user", "bob")
	other.ID = "abcdef02" + other.ID[8:]
	insert(t, s, []persist.Entry{a, b, c, other}, nil)
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
		{"no match", bob, "ffffffff", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ResolvePrefix(ctx, tc.acc, tc.prefix)
			if err != nil {
				t.Fatal(err)
			}
			if !eqStrings(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestListThreadsAccess(t *testing.T) {
	ctx := context.Background()
	s := accessStore(t)
	tests := []struct {
		name          string
		acc           persist.Access
		limit, offset int
		want          []persist.ThreadInfo
	}{
		{"bob", bob, 0, 0, []persist.ThreadInfo{
			{ThreadID: "tb", EntryCount: 1, SourceTypes: 1, FirstEntry: at(6), LastEntry: at(6), LastID: tid(6)},
			{ThreadID: "ta", EntryCount: 3, SourceTypes: 1, FirstEntry: at(2), LastEntry: at(5), LastID: tid(5)},
		}},
		{"bob team", bobTeam, 0, 0, []persist.ThreadInfo{
			{ThreadID: "tg", EntryCount: 2, SourceTypes: 1, MultimodalCount: 1, FirstEntry: at(4), LastEntry: at(7), LastID: tid(7)},
			{ThreadID: "tb", EntryCount: 1, SourceTypes: 1, FirstEntry: at(6), LastEntry: at(6), LastID: tid(6)},
			{ThreadID: "ta", EntryCount: 3, SourceTypes: 1, FirstEntry: at(2), LastEntry: at(5), LastID: tid(5)},
		}},
		{"paged", bobTeam, 1, 1, []persist.ThreadInfo{
			{ThreadID: "tb", EntryCount: 1, SourceTypes: 1, FirstEntry: at(6), LastEntry: at(6), LastID: tid(6)},
		}},
		{"dave", dave, 0, 0, []persist.ThreadInfo{
			{ThreadID: "ta", EntryCount: 1, SourceTypes: 1, FirstEntry: at(2), LastEntry: at(2), LastID: tid(2)},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListThreads(ctx, tc.acc, tc.limit, tc.offset)
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

func at(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

func TestStatsAccess(t *testing.T) {
	ctx := context.Background()
	s := accessStore(t)
	insert(t, s, []persist.Entry{func() persist.Entry {
		e := entry(9, "ta", "agent", "alice")
		e.Visibility, e.Summary, e.Tags = "public", "sum", []string{"all", "extra"}
		return e
	}()}, nil)
	tests := []struct {
		name string
		acc  persist.Access
		want persist.Stats
	}{
		{"dave", dave, persist.Stats{TotalEntries: 2, BySource: map[string]int{"user": 1, "agent": 1},
			ByContentType: map[string]int{"text": 2}, UniqueTags: 3, TotalThreads: 1,
			MostActive:   []persist.Count{{Name: "ta", Count: 2}},
			TopTags:      []persist.Count{{Name: "all", Count: 2}, {Name: "extra", Count: 1}, {Name: "tta", Count: 1}},
			SummaryCount: 1}},
		{"bob team", bobTeam, persist.Stats{TotalEntries: 7, BySource: map[string]int{"user": 6, "agent": 1},
			ByContentType: map[string]int{"text": 6, "multimodal": 1}, TotalImages: 1, UniqueTags: 5, TotalThreads: 3,
			MostActive: []persist.Count{{Name: "ta", Count: 4}, {Name: "tg", Count: 2}, {Name: "tb", Count: 1}},
			TopTags: []persist.Count{{Name: "all", Count: 7}, {Name: "tta", Count: 3}, {Name: "ttg", Count: 2},
				{Name: "extra", Count: 1}, {Name: "ttb", Count: 1}},
			SummaryCount: 1}},
		{"nobody", persist.Access{Principal: "nobody", Groups: []string{"x"}}, persist.Stats{TotalEntries: 2,
			BySource: map[string]int{"user": 1, "agent": 1}, ByContentType: map[string]int{"text": 2},
			UniqueTags: 3, TotalThreads: 1, MostActive: []persist.Count{{Name: "ta", Count: 2}},
			TopTags:      []persist.Count{{Name: "all", Count: 2}, {Name: "extra", Count: 1}, {Name: "tta", Count: 1}},
			SummaryCount: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Stats(ctx, tc.acc)
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if got.TotalEntries != w.TotalEntries || got.TotalImages != w.TotalImages || got.UniqueTags != w.UniqueTags ||
				got.TotalThreads != w.TotalThreads || got.SummaryCount != w.SummaryCount || got.DBSizeBytes != -1 {
				t.Fatalf("stats = %+v, want %+v", got, w)
			}
			if !eqMap(got.BySource, w.BySource) || !eqMap(got.ByContentType, w.ByContentType) {
				t.Fatalf("maps = %v %v, want %v %v", got.BySource, got.ByContentType, w.BySource, w.ByContentType)
			}
			if !eqCounts(got.MostActive, w.MostActive) || !eqCounts(got.TopTags, w.TopTags) {
				t.Fatalf("tops = %v %v, want %v %v", got.MostActive, got.TopTags, w.MostActive, w.TopTags)
			}
		})
	}
}

func TestStatsFileSizeAndTops(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	var es []persist.Entry
	for n := 1; n <= 40; n++ {
		e := entry(n, string(rune('a'+n%7)), "user", "alice")
		for k := 0; k < n%12; k++ {
			e.Tags = append(e.Tags, string(rune('k'+k)))
		}
		es = append(es, e)
	}
	insert(t, s, es, nil)
	st, err := s.Stats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if st.DBSizeBytes <= 0 {
		t.Fatalf("db size = %d", st.DBSizeBytes)
	}
	if len(st.MostActive) != 5 || len(st.TopTags) != 10 || st.TotalThreads != 7 || st.UniqueTags != 11 {
		t.Fatalf("stats = %+v", st)
	}
	// 40 entries over 7 threads (n%7 = 0..6 → a..g): a and g hold 5, b..f hold 6.
	want := []persist.Count{{Name: "b", Count: 6}, {Name: "c", Count: 6}, {Name: "d", Count: 6},
		{Name: "e", Count: 6}, {Name: "f", Count: 6}}
	if !eqCounts(st.MostActive, want) {
		t.Fatalf("most active = %v, want %v", st.MostActive, want)
	}
	for i := 1; i < len(st.MostActive); i++ {
		p, c := st.MostActive[i-1], st.MostActive[i]
		if p.Count < c.Count || (p.Count == c.Count && p.Name > c.Name) {
			t.Fatalf("most active not ordered: %v", st.MostActive)
		}
	}
	for i := 1; i < len(st.TopTags); i++ {
		p, c := st.TopTags[i-1], st.TopTags[i]
		if p.Count < c.Count || (p.Count == c.Count && p.Name > c.Name) {
			t.Fatalf("top tags not ordered: %v", st.TopTags)
		}
	}
}

func eqMap(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func eqCounts(a, b []persist.Count) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
