package persisttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func (s suite) entries(t *testing.T) {
	t.Run("RoundTrip", s.entriesRoundTrip)
	t.Run("Update", s.entriesUpdate)
	t.Run("Delete", s.entriesDelete)
	t.Run("DeletedIDStaysGone", s.entriesDeletedIDStaysGone)
	t.Run("IndexSource", s.entriesIndexSource)
	t.Run("WriteSeesOwnWrites", s.entriesWriteSeesOwnWrites)
	t.Run("ContextCanceled", s.entriesContextCanceled)
	t.Run("AtomicBatch", s.entriesAtomicBatch)
}

// roundTripEntry is entry 1 of the round trip: every field set, three
// images (metadata "", absent and set), tags unsorted with a duplicate.
func roundTripEntry() persist.Entry {
	empty, imgMeta := "", `{"w":1}`
	e := NewEntry(1, "t1", "agent", "alice")
	e.ContentType = "multimodal"
	e.Metadata = json.RawMessage(`{"status":"active","nested":{"a":[1,2]}}`)
	e.Summary = "a summary"
	e.Tags = []string{"zeta", "alpha", "Beta", "alpha"}
	e.Images = []persist.Image{
		{Data: []byte{1, 2, 3}, MimeType: "image/png", Metadata: &empty},
		{Data: []byte{4}, MimeType: "image/jpeg"},
		{Data: []byte{5, 6}, MimeType: "image/gif", Metadata: &imgMeta},
	}
	e.CreatedAt = e.CreatedAt.Add(123456 * time.Microsecond)
	return e
}

func (s suite) entriesRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	e := roundTripEntry()
	Insert(t, st, []persist.Entry{e, NewEntry(2, "t1", "user", "alice")}, nil)

	got, err := st.Get(ctx, alice, []string{ID(1), ID(2), ID(99)}, persist.GetOptions{Images: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(idsOf(got), []string{ID(2), ID(1)}) {
		t.Fatalf("get order = %v", idsOf(got))
	}
	g := got[1]
	if g.ThreadID != "t1" || g.Source != "agent" || g.ContentType != "multimodal" || g.Text != "entry 1" ||
		g.Summary != "a summary" || g.ContentHash != "hash1" || g.Owner != "alice" || g.Visibility != "private" ||
		g.Version != 0 || !g.CreatedAt.Equal(e.CreatedAt) || g.CreatedAt.Location() != time.UTC {
		t.Fatalf("entry = %+v", g)
	}
	if string(g.Metadata) != string(e.Metadata) {
		t.Fatalf("metadata = %s", g.Metadata)
	}
	if !slices.Equal(g.Tags, []string{"Beta", "alpha", "zeta"}) {
		t.Fatalf("tags = %v", g.Tags)
	}
	if g.ImageCount != 3 || len(g.Images) != 3 {
		t.Fatalf("images = %d/%d", g.ImageCount, len(g.Images))
	}
	if g.Images[0].Metadata == nil || *g.Images[0].Metadata != "" || g.Images[1].Metadata != nil ||
		*g.Images[2].Metadata != *e.Images[2].Metadata || g.Images[2].MimeType != "image/gif" || string(g.Images[0].Data) != "\x01\x02\x03" {
		t.Fatalf("image rows = %+v", g.Images)
	}
	p := got[0]
	if p.Metadata != nil || p.Summary != "" || p.Tags == nil || len(p.Tags) != 0 || p.ImageCount != 0 {
		t.Fatalf("plain entry = %+v", p)
	}
	if got, _ := st.Get(ctx, alice, []string{ID(1)}, persist.GetOptions{}); got[0].Images != nil || got[0].ImageCount != 3 {
		t.Fatalf("images loaded without asking: %+v", got[0])
	}
}

// entriesUpdate: conflict detection (a stale ExpectVersion or ExpectHash
// changes nothing), replacements, content type following the images.
func (s suite) entriesUpdate(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{roundTripEntry()}, nil)
	logged := len(changes(t, st))

	text, hash, summ := "new text", "newhash", ""
	md := json.RawMessage(`{"b":2}`)
	tags := []string{"only"}
	imgs := []persist.Image{}
	upd := persist.Update{Text: &text, ContentHash: &hash, Summary: &summ, Metadata: &md, Tags: &tags,
		Images: &imgs, BumpVersion: true, UpdatedAt: base.Add(time.Hour), ExpectVersion: 0}
	otherHash := "other"
	steps := []struct {
		name string
		u    persist.Update
		want bool
	}{
		{"wrong version", persist.Update{ExpectVersion: 7, BumpVersion: true}, false},
		{"wrong hash", persist.Update{ExpectHash: &otherHash}, false},
		{"stale hash with every field", func() persist.Update { u := upd; u.ExpectHash = &otherHash; return u }(), false},
		{"applies", upd, true},
		{"stale version", upd, false},
	}
	for _, step := range steps {
		before, _, _ := st.State(ctx, alice, ID(1))
		var changed bool
		write(t, st, func(ctx context.Context, tx persist.Tx) error {
			var err error
			changed, err = tx.Update(ctx, ID(1), step.u)
			return err
		})
		if changed != step.want {
			t.Fatalf("%s: changed = %v; want %v", step.name, changed, step.want)
		}
		if after, _, _ := st.State(ctx, alice, ID(1)); !step.want && fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("%s: a refused update changed the entry: %+v -> %+v", step.name, before, after)
		}
	}
	// Only the applied update is in the change log.
	if cs := changes(t, st); len(cs) != logged+1 || cs[logged].Op != persist.OpUpdate {
		t.Fatalf("change log after one applied update of four: %v", cs)
	}
	got, _ := st.Get(ctx, alice, []string{ID(1)}, persist.GetOptions{Images: true})
	g := got[0]
	if g.Text != text || g.ContentHash != hash || g.Summary != "" || string(g.Metadata) != `{"b":2}` ||
		!slices.Equal(g.Tags, tags) || g.ImageCount != 0 || g.ContentType != "text" || g.Version != 1 ||
		!g.UpdatedAt.Equal(base.Add(time.Hour)) {
		t.Fatalf("updated entry = %+v", g)
	}
	// Expected hash matching, metadata cleared, version kept.
	var nullMD json.RawMessage
	h := hash
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		ok, err := tx.Update(ctx, ID(1), persist.Update{ExpectVersion: 1, ExpectHash: &h, Metadata: &nullMD})
		if err == nil && !ok {
			err = errors.New("not applied")
		}
		return err
	})
	if state, found, err := st.State(ctx, alice, ID(1)); err != nil || !found || state.Metadata != nil || state.Version != 1 || state.ContentHash != hash {
		t.Fatalf("state = %+v, %v, %v", state, found, err)
	}
	// Images back: the content type follows them.
	two := []persist.Image{{Data: []byte{9}, MimeType: "image/png"}}
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		ok, err := tx.Update(ctx, ID(1), persist.Update{ExpectVersion: 1, Images: &two})
		if err == nil && !ok {
			err = errors.New("not applied")
		}
		return err
	})
	if got, _ := st.Get(ctx, alice, []string{ID(1)}, persist.GetOptions{}); got[0].ContentType != "multimodal" || got[0].ImageCount != 1 {
		t.Fatalf("after adding an image: %+v", got[0])
	}
	// An update of an absent entry changes nothing.
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		if ok, err := tx.Update(ctx, ID(42), persist.Update{}); err != nil || ok {
			return fmt.Errorf("update of an absent entry: %v, %v", ok, err)
		}
		return nil
	})
}

// entriesDelete: Delete counts only existing entries and takes everything
// attached to them along.
func (s suite) entriesDelete(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	e := roundTripEntry()
	Insert(t, st, []persist.Entry{e, NewEntry(2, "t1", "user", "alice")}, map[string][]persist.Grant{
		ID(1): {{PrincipalType: "user", PrincipalID: "bob", Permission: "read", GrantedBy: "alice"}}})
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		if err := tx.SetEmbeddings(ctx, ID(1), Embeddings(2, []float32{1, 2})); err != nil {
			return err
		}
		return tx.ReplaceNodeSummaries(ctx, ID(1), []persist.NodeSummary{{NodeID: "x", Start: 0, End: 3, Summary: "s"}})
	})
	var n int
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		var err error
		n, err = tx.Delete(ctx, []string{ID(1), ID(42)})
		return err
	})
	if n != 1 {
		t.Fatalf("delete = %d, want 1", n)
	}
	if _, found, _ := st.State(ctx, alice, ID(1)); found {
		t.Fatalf("deleted entry still found")
	}
	if got, err := st.Get(ctx, alice, IDs(1, 2), persist.GetOptions{Images: true}); err != nil || !slices.Equal(idsOf(got), IDs(2)) {
		t.Fatalf("get after delete = %v, %v", idsOf(got), err)
	}
	if gs, err := st.Grants(ctx, ID(1)); err != nil || len(gs) != 0 {
		t.Fatalf("grants survive their entry: %v, %v", gs, err)
	}
	if docs := vdocs(t, st, ID(1)); len(docs) != 0 {
		t.Fatalf("vectors survive their entry: %v", docs)
	}
	if ns, err := st.NodeSummaries(ctx, ID(1)); err != nil || len(ns) != 0 {
		t.Fatalf("node summaries survive their entry: %v, %v", ns, err)
	}
	st2, err := st.Stats(ctx, alice)
	if err != nil || st2.TotalEntries != 1 || st2.TotalImages != 0 || st2.UniqueTags != 0 {
		t.Fatalf("stats after delete = %+v, %v", st2, err)
	}
	// Deleting nothing, or only absent ids, logs nothing.
	logged := len(changes(t, st))
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for _, ids := range [][]string{nil, {}, {ID(1), ID(42)}} {
			if n, err := tx.Delete(ctx, ids); err != nil || n != 0 {
				return fmt.Errorf("delete %v = %d, %v", ids, n, err)
			}
		}
		return nil
	})
	if got := len(changes(t, st)); got != logged {
		t.Fatalf("deleting nothing logged %d rows", got-logged)
	}
}

// entriesDeletedIDStaysGone: ids are never reused, so a deleted id stays
// absent from every read while other entries come and go, and its last
// change-log row is its delete.
func (s suite) entriesDeletedIDStaysGone(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	Insert(t, st, []persist.Entry{NewEntry(1, "t", "user", "alice"), NewEntry(2, "t", "user", "alice")}, nil)
	SetEmbeddings(t, st, ID(2), Embeddings(2, []float32{1, 1}))
	deleteIDs(t, st, ID(2))
	Insert(t, st, []persist.Entry{NewEntry(3, "t", "user", "alice")}, nil)
	SetEmbeddings(t, st, ID(3), Embeddings(2, []float32{1, 1}))
	deleteIDs(t, st, ID(1))
	Insert(t, st, []persist.Entry{NewEntry(4, "t", "user", "alice")}, nil)

	last := map[string]string{}
	for _, c := range changes(t, st) {
		last[c.EntryID] = c.Op
	}
	for _, id := range IDs(1, 2) {
		if last[id] != persist.OpDelete {
			t.Fatalf("last change of deleted %s is %q", id, last[id])
		}
		if _, found, _ := st.State(ctx, alice, id); found {
			t.Fatalf("deleted %s found", id)
		}
		if got, _ := st.ResolvePrefix(ctx, alice, id); len(got) != 0 {
			t.Fatalf("deleted %s resolves: %v", id, got)
		}
	}
	docs, err := st.IndexDocs(ctx, IDs(1, 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(sorted(ids), IDs(3, 4)) {
		t.Fatalf("index docs = %v, want 3 and 4", ids)
	}
	if vd, err := st.ScanVectorDocs(ctx, "", 0); err != nil || len(vd) != 1 || vd[0].ID != ID(3) {
		t.Fatalf("vector docs = %v, %v", vd, err)
	}
}

// entriesIndexSource: IndexDocs, ScanIndexDocs and ScanAccessDocs read
// every entry whoever owns it, with every grant; FilterIDs and Texts are
// tested with the access predicates.
func (s suite) entriesIndexSource(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	accessFixture(t, st)
	docs, err := st.IndexDocs(ctx, IDs(8, 6, 4, 99))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]persist.IndexDoc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	if len(docs) != 3 || len(byID) != 3 || byID[ID(99)].ID != "" {
		t.Fatalf("index docs = %+v", docs)
	}
	if d := byID[ID(4)]; d.Text != "entry 4" || d.Owner != "alice" || d.ContentType != "multimodal" || d.ImageCount != 1 ||
		!slices.Equal(d.Tags, []string{"all", "ttg"}) || len(d.Grants) != 1 ||
		d.Grants[0].PrincipalType != "group" || d.Grants[0].PrincipalID != "team" || d.Grants[0].Permission != "read" {
		t.Fatalf("index doc 4 = %+v", d)
	}
	if d := byID[ID(6)]; d.Owner != "bob" || len(d.Grants) != 0 {
		t.Fatalf("index doc 6 = %+v", d)
	}
	if docs, err := st.IndexDocs(ctx, nil); err != nil || len(docs) != 0 {
		t.Fatalf("index docs of no ids = %v, %v", docs, err)
	}
	// AccessDocs (the SQL stores' reader, which the catalogs use when a
	// store has it, or they read every text back): IndexDocs without the
	// text and summary.
	a, ok := st.(interface {
		AccessDocs(ctx context.Context, ids []string) ([]persist.IndexDoc, error)
	})
	if !ok {
		t.Fatalf("%T has no AccessDocs", st)
	}
	{
		acc, err := a.AccessDocs(ctx, IDs(8, 6, 4, 99))
		if err != nil || len(acc) != len(docs) {
			t.Fatalf("access docs = %+v, %v", acc, err)
		}
		for _, d := range acc {
			want := byID[d.ID]
			want.Text, want.Summary = "", ""
			if !reflect.DeepEqual(d, want) {
				t.Fatalf("access doc %+v, want index doc without text %+v", d, want)
			}
		}
	}
	// TextSizes (how the full-text index cuts a change into parts it
	// reads one at a time): the bytes of each existing entry's text.
	ts, ok := st.(interface {
		TextSizes(ctx context.Context, ids []string) (map[string]int, error)
	})
	if !ok {
		t.Fatalf("%T has no TextSizes", st)
	}
	if sizes, err := ts.TextSizes(ctx, IDs(8, 6, 4, 99)); err != nil || len(sizes) != 3 || sizes[ID(4)] != len("entry 4") || sizes[ID(6)] != len(byID[ID(6)].Text) {
		t.Fatalf("text sizes = %v, %v", sizes, err)
	}
	for _, scan := range []struct {
		name string
		fn   func(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error)
		text bool
	}{{"ScanIndexDocs", st.ScanIndexDocs, true}, {"ScanAccessDocs", st.ScanAccessDocs, false}} {
		var got []string
		grants := 0
		for after := ""; ; {
			page, err := scan.fn(ctx, after, 3)
			if err != nil {
				t.Fatalf("%s: %v", scan.name, err)
			}
			if len(page) == 0 {
				break
			}
			if len(page) > 3 {
				t.Fatalf("%s: page of %d, limit 3", scan.name, len(page))
			}
			for _, d := range page {
				got = append(got, d.ID)
				grants += len(d.Grants)
				if (d.Text != "") != scan.text || d.Owner == "" || d.Visibility == "" || d.Tags == nil {
					t.Fatalf("%s: doc %+v", scan.name, d)
				}
			}
			after = page[len(page)-1].ID
		}
		if !slices.Equal(got, IDs(1, 2, 3, 4, 5, 6, 7, 8)) || grants != 5 {
			t.Fatalf("%s: ids %v with %d grants, want every entry in id order with the 5 grants", scan.name, got, grants)
		}
	}
}

func (s suite) entriesWriteSeesOwnWrites(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	acc := persist.Access{Principal: "a"}
	err := st.Write(ctx, func(tx persist.Tx) error {
		e := NewEntry(1, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		res, err := tx.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t"}})
		if err != nil || len(res.Entries) != 1 {
			return fmt.Errorf("search in tx: %d, %v", len(res.Entries), err)
		}
		stats, err := tx.Stats(ctx, acc)
		if err != nil || stats.TotalEntries != 1 {
			return fmt.Errorf("stats in tx: %+v, %v", stats, err)
		}
		if state, found, err := tx.State(ctx, acc, e.ID); err != nil || !found || !state.Writable {
			return fmt.Errorf("state in tx: %+v %v %v", state, found, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (s suite) entriesContextCanceled(t *testing.T) {
	st := s.store(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.Search(ctx, persist.Access{Principal: "a"}, persist.SearchQuery{}); err == nil {
		t.Fatalf("search with a canceled context succeeded")
	}
	if err := st.Write(ctx, func(persist.Tx) error { return nil }); err == nil {
		t.Fatalf("write with a canceled context succeeded")
	}
}
