package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func TestMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	for i := 0; i < 3; i++ {
		s, err := Open(ctx, Options{Path: path})
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		var n, max int64
		if err := s.w.QueryRowContext(ctx, `SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatalf("read schema_migrations: %v", err)
		}
		ms, err := migrations()
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(ms)) || max != ms[len(ms)-1].version {
			t.Fatalf("open #%d: %d migrations up to %d, want %d up to %d", i, n, max, len(ms), ms[len(ms)-1].version)
		}
		if i == 0 {
			e := entry(1, "t", "user", "alice")
			insert(t, s, []persist.Entry{e}, nil)
		}
		got, err := s.Get(ctx, persist.Access{Principal: "alice"}, []string{tid(1)}, persist.GetOptions{})
		if err != nil || len(got) != 1 {
			t.Fatalf("open #%d: get = %v, %v", i, len(got), err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	s := openFile(t, path)
	if _, err := s.w.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, Options{Path: path}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("open of a newer schema: err = %v", err)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	bad := []struct {
		name, option string
		o            Options
	}{
		{"journal", "JournalMode", Options{JournalMode: "fast"}},
		{"sync", "Synchronous", Options{Synchronous: "sometimes"}},
		{"temp", "TempStore", Options{TempStore: "disk"}},
		{"mmap", "MmapSize", Options{MmapSize: -1}},
		{"page", "PageSize", Options{PageSize: 1000}},
		{"wal", "WALAutocheckpoint", Options{WALAutocheckpoint: -5}},
		{"busy", "BusyTimeout", Options{BusyTimeout: -time.Second}},
		{"readers", "MaxReaders", Options{MaxReaders: -1}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Path = ":memory:"
			_, err := Open(ctx, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.option) {
				t.Fatalf("err = %v, want one naming %s", err, tc.option)
			}
		})
	}
	if _, err := Open(ctx, Options{}); err == nil {
		t.Fatalf("empty path accepted")
	}

	// Defaults and explicit values reach every connection.
	fk := false
	pragmas := []struct {
		name string
		o    Options
		want map[string]string
	}{
		{"defaults", Options{}, map[string]string{"journal_mode": "wal", "synchronous": "1", "temp_store": "2",
			"mmap_size": "268435456", "cache_size": "-64000", "page_size": "4096",
			"wal_autocheckpoint": "1000", "busy_timeout": "10000", "foreign_keys": "1"}},
		{"explicit", Options{JournalMode: "delete", Synchronous: "full", TempStore: "file", MmapSize: 4096,
			CacheSize: -2000, PageSize: 8192, WALAutocheckpoint: 50, BusyTimeout: 1500 * time.Millisecond, ForeignKeys: &fk},
			map[string]string{"journal_mode": "delete", "synchronous": "2", "temp_store": "1",
				"mmap_size": "4096", "cache_size": "-2000", "page_size": "8192",
				"wal_autocheckpoint": "50", "busy_timeout": "1500", "foreign_keys": "0"}},
	}
	for _, tc := range pragmas {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Path = tempDB(t)
			s := openFile(t, tc.o.Path)
			s.Close()
			s, err := Open(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tc.name == "explicit" { // page_size only applies to a new database
				s.Close()
				tc.o.Path = tempDB(t)
				if s, err = Open(ctx, tc.o); err != nil {
					t.Fatal(err)
				}
				defer s.Close()
			}
			for name, want := range tc.want {
				for _, db := range []querier{s.w, s.r} {
					var got string
					if err := db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
						t.Fatalf("pragma %s: %v", name, err)
					}
					if got != want {
						t.Fatalf("pragma %s = %s, want %s", name, got, want)
					}
				}
			}
		})
	}
}

func TestMemoryStoresArePrivate(t *testing.T) {
	a, b := openMem(t), openMem(t)
	insert(t, a, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	acc := persist.Access{Principal: "alice"}
	if got := search(t, a, acc, persist.SearchQuery{}); len(got) != 1 {
		t.Fatalf("store a sees %d entries, want 1", len(got))
	}
	if got := search(t, b, acc, persist.SearchQuery{}); len(got) != 0 {
		t.Fatalf("store b sees %d entries, want 0", len(got))
	}
	st, err := a.Stats(context.Background(), acc)
	if err != nil || st.DBSizeBytes != -1 {
		t.Fatalf("memory stats size = %d, %v; want -1", st.DBSizeBytes, err)
	}
}

func TestCRUDRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, tempDB(t))
	acc := persist.Access{Principal: "alice"}
	empty, imgMeta := "", `{"w":1}`
	e := entry(1, "t1", "agent", "alice")
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
	plain := entry(2, "t1", "user", "alice")
	insert(t, s, []persist.Entry{e, plain}, nil)

	got, err := s.Get(ctx, acc, []string{tid(1), tid(2), tid(99)}, persist.GetOptions{Images: true})
	if err != nil {
		t.Fatal(err)
	}
	if !eqStrings(idsOf(got), []string{tid(2), tid(1)}) {
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
	if !eqStrings(g.Tags, []string{"Beta", "alpha", "zeta"}) {
		t.Fatalf("tags = %v", g.Tags)
	}
	if g.ImageCount != 3 || len(g.Images) != 3 {
		t.Fatalf("images = %d/%d", g.ImageCount, len(g.Images))
	}
	if g.Images[0].Metadata == nil || *g.Images[0].Metadata != "" || g.Images[1].Metadata != nil ||
		*g.Images[2].Metadata != imgMeta || g.Images[2].MimeType != "image/gif" || string(g.Images[0].Data) != "\x01\x02\x03" {
		t.Fatalf("image rows = %+v", g.Images)
	}
	p := got[0]
	if p.Metadata != nil || p.Summary != "" || p.Tags == nil || len(p.Tags) != 0 || p.ImageCount != 0 {
		t.Fatalf("plain entry = %+v", p)
	}
	if got, _ := s.Get(ctx, acc, []string{tid(1)}, persist.GetOptions{}); got[0].Images != nil || got[0].ImageCount != 3 {
		t.Fatalf("images loaded without asking: %+v", got[0])
	}

	// Update: version check, hash check, replacements, content type follows images.
	text, hash, summ := "new text", "newhash", ""
	md := json.RawMessage(`{"b":2}`)
	tags := []string{"only"}
	imgs := []persist.Image{}
	upd := persist.Update{Text: &text, ContentHash: &hash, Summary: &summ, Metadata: &md, Tags: &tags,
		Images: &imgs, BumpVersion: true, UpdatedAt: base.Add(time.Hour), ExpectVersion: 0}
	steps := []struct {
		name string
		u    persist.Update
		want bool
	}{
		{"wrong version", persist.Update{ExpectVersion: 7, BumpVersion: true}, false},
		{"wrong hash", func() persist.Update { h := "other"; return persist.Update{ExpectHash: &h} }(), false},
		{"applies", upd, true},
		{"stale version", upd, false},
	}
	for _, st := range steps {
		var changed bool
		err := s.Write(ctx, func(tx persist.Tx) error {
			var err error
			changed, err = tx.Update(ctx, tid(1), st.u)
			return err
		})
		if err != nil || changed != st.want {
			t.Fatalf("%s: changed = %v, %v; want %v", st.name, changed, err, st.want)
		}
	}
	got, _ = s.Get(ctx, acc, []string{tid(1)}, persist.GetOptions{Images: true})
	g = got[0]
	if g.Text != text || g.ContentHash != hash || g.Summary != "" || string(g.Metadata) != `{"b":2}` ||
		!eqStrings(g.Tags, tags) || g.ImageCount != 0 || g.ContentType != "text" || g.Version != 1 ||
		!g.UpdatedAt.Equal(base.Add(time.Hour)) {
		t.Fatalf("updated entry = %+v", g)
	}
	// Expected hash matching NULL, metadata cleared.
	var nullMD json.RawMessage
	h := hash
	err = s.Write(ctx, func(tx persist.Tx) error {
		ok, err := tx.Update(ctx, tid(1), persist.Update{ExpectVersion: 1, ExpectHash: &h, Metadata: &nullMD})
		if err == nil && !ok {
			err = errors.New("not applied")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, found, err := s.State(ctx, acc, tid(1)); err != nil || !found || st.Metadata != nil || st.Version != 1 || st.ContentHash != hash {
		t.Fatalf("state = %+v, %v, %v", st, found, err)
	}

	// Delete cascades and counts only existing rows.
	var n int
	err = s.Write(ctx, func(tx persist.Tx) error {
		var err error
		n, err = tx.Delete(ctx, []string{tid(1), tid(42)})
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("delete = %d, %v", n, err)
	}
	for _, table := range []string{"tags", "image_attachments", "context_entry_grants"} {
		var c int
		s.r.QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE context_entry_id = ?", tid(1)).Scan(&c)
		if c != 0 {
			t.Fatalf("%s rows left after delete: %d", table, c)
		}
	}
	if _, found, _ := s.State(ctx, acc, tid(1)); found {
		t.Fatalf("deleted entry still found")
	}
}

func TestChangeLog(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	insert(t, s, []persist.Entry{entry(1, "t", "user", "a"), entry(2, "t", "user", "a"), entry(3, "t", "user", "a")}, nil)
	err := s.Write(ctx, func(tx persist.Tx) error {
		if ok, err := tx.Update(ctx, tid(2), persist.Update{ExpectVersion: 5}); err != nil || ok {
			return fmt.Errorf("mismatched update applied: %v %v", ok, err)
		}
		if _, err := tx.Update(ctx, tid(2), persist.Update{}); err != nil {
			return err
		}
		_, err := tx.Delete(ctx, []string{tid(3), tid(1)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// A failing write rolls back the entry and its log row.
	boom := errors.New("boom")
	err = s.Write(ctx, func(tx persist.Tx) error {
		e := entry(9, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("write err = %v, want boom", err)
	}
	// A failing statement (duplicate id) also rolls back.
	err = s.Write(ctx, func(tx persist.Tx) error {
		e, dup := entry(10, "t", "user", "a"), entry(2, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		return tx.Insert(ctx, &dup, nil)
	})
	if err == nil || !strings.HasPrefix(err.Error(), "sqlite: insert entry") {
		t.Fatalf("duplicate insert err = %v", err)
	}
	ch := func(seq int64, id int, op string) persist.Change {
		return persist.Change{Seq: seq, EntryID: tid(id), Op: op}
	}
	want := []persist.Change{
		ch(1, 1, persist.OpInsert), ch(2, 2, persist.OpInsert), ch(3, 3, persist.OpInsert),
		ch(4, 2, persist.OpUpdate), ch(5, 1, persist.OpDelete), ch(6, 3, persist.OpDelete),
	}
	got, err := s.Changes(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("change %d = %v, want %v", i, got[i], want[i])
		}
	}
	if got, _ := s.Changes(ctx, 3, 2); len(got) != 2 || got[0].Seq != 4 || got[1].Seq != 5 {
		t.Fatalf("changes after 3 limit 2 = %v", got)
	}
	for _, id := range []int{9, 10} {
		if _, found, _ := s.State(ctx, persist.Access{Principal: "a"}, tid(id)); found {
			t.Fatalf("rolled-back entry %d exists", id)
		}
	}
	// The next write continues the sequence without a gap.
	insert(t, s, []persist.Entry{entry(11, "t", "user", "a")}, nil)
	if got, _ := s.Changes(ctx, 6, 0); len(got) != 1 || got[0].Seq != 7 {
		t.Fatalf("changes after rollback = %v", got)
	}
}

func TestWriteSeesOwnWrites(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	acc := persist.Access{Principal: "a"}
	err := s.Write(ctx, func(tx persist.Tx) error {
		e := entry(1, "t", "user", "a")
		if err := tx.Insert(ctx, &e, nil); err != nil {
			return err
		}
		res, err := tx.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{ThreadID: "t"}})
		if err != nil || len(res.Entries) != 1 {
			return fmt.Errorf("search in tx: %d, %v", len(res.Entries), err)
		}
		st, err := tx.Stats(ctx, acc)
		if err != nil || st.TotalEntries != 1 {
			return fmt.Errorf("stats in tx: %+v, %v", st, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestContextCanceled(t *testing.T) {
	s := openMem(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Search(ctx, persist.Access{Principal: "a"}, persist.SearchQuery{}); err == nil {
		t.Fatalf("search with a canceled context succeeded")
	}
	if err := s.Write(ctx, func(persist.Tx) error { return nil }); err == nil {
		t.Fatalf("write with a canceled context succeeded")
	}
}

func TestDeleteWithoutForeignKeys(t *testing.T) {
	ctx := context.Background()
	fk := false
	s, err := Open(ctx, Options{Path: tempDB(t), ForeignKeys: &fk})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e := entry(1, "t", "user", "alice")
	e.Tags = []string{"x"}
	e.ContentType = "multimodal"
	e.Images = []persist.Image{{Data: []byte{1}, MimeType: "image/png"}}
	insert(t, s, []persist.Entry{e}, map[string][]persist.Grant{
		tid(1): {{PrincipalType: "user", PrincipalID: "bob", Permission: "read", GrantedBy: "alice"}}})
	if err := s.Write(ctx, func(tx persist.Tx) error {
		n, err := tx.Delete(ctx, []string{tid(1)})
		if err == nil && n != 1 {
			err = fmt.Errorf("deleted %d", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"tags", "image_attachments", "context_entry_grants"} {
		var c int
		if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&c); err != nil || c != 0 {
			t.Fatalf("%s rows left: %d, %v", table, c, err)
		}
	}
}
